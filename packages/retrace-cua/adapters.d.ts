// retrace-cua/adapters: the package @retrace-cua/environments, re-exported whole.
export * from "@retrace-cua/environments";
