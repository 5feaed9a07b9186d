// retrace-cua/ai-sdk: the package @retrace-cua/ai-sdk, re-exported whole.
export * from "@retrace-cua/ai-sdk";
