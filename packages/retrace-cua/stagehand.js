// retrace-cua/stagehand: the package @retrace-cua/stagehand, re-exported whole.
export * from "@retrace-cua/stagehand";
