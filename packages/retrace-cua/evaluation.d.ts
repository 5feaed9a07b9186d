// retrace-cua/evaluation: the package @retrace-cua/evaluation, re-exported whole.
export * from "@retrace-cua/evaluation";
