// retrace-cua: the package @retrace-cua/graphs, re-exported whole.
export * from "@retrace-cua/graphs";
