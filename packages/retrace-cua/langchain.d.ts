// retrace-cua/langchain: the package @retrace-cua/langchain, re-exported whole.
export * from "@retrace-cua/langchain";
