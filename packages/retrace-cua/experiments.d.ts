// retrace-cua/experiments: the package @retrace-cua/experiments, re-exported whole.
export * from "@retrace-cua/experiments";
