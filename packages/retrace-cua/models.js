// retrace-cua/models: the package @retrace-cua/models, re-exported whole.
export * from "@retrace-cua/models";
