// retrace-cua/testing: the package @retrace-cua/testing, re-exported whole.
export * from "@retrace-cua/testing";
