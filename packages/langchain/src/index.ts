/**
 * `retrace-cua/langchain`: recovery for LangChain agents. The `createAgent` middleware
 * (`recoveryMiddleware`, its custom event), the policy-driven restoration it runs, and a
 * LangChain chat model as a retrace `ChatModel` or forward policy. The one entry that loads
 * LangChain's core and LangGraph at import; the others never do. Explicit named exports only.
 * Pinned by test/public-api.test.ts.
 */
export { createLangChainChatModel } from "@retrace-cua/models/models/langchain-chat";
export type { LangChainChatModelOptions } from "@retrace-cua/models/models/langchain-chat";
export { createLangChainPolicy } from "./policies/langchain-policy.ts";
export type { LangChainPolicyOptions } from "./policies/langchain-policy.ts";
export { recoveryMiddleware, RECOVERY_EVENT } from "./recovery-middleware.ts";
export { recoverWithPolicy } from "@retrace-cua/core/runtime/recover-with-policy";
export type { RecoverWithPolicyOptions } from "@retrace-cua/core/runtime/recover-with-policy";
export type { RecoveryTrack } from "./recovery-middleware.ts";
export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "./options.ts";
