// retrace-cua/simdesk: the package @retrace-cua/simdesk, re-exported whole.
export * from "@retrace-cua/simdesk";
