// retrace-cua/openai-agents: the package @retrace-cua/openai-agents, re-exported whole.
export * from "@retrace-cua/openai-agents";
