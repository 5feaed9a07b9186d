/**
 * `retrace-cua/langchain`: recovery for LangChain agents. The `createAgent` middleware
 * (`recoveryMiddleware`, its custom event), the policy-driven restoration it runs, and a
 * LangChain chat model as a retrace `ChatModel` or forward policy. The one entry that loads
 * LangChain's core and LangGraph at import; the others never do. Explicit named exports only.
 * Pinned by test/public-api.test.ts.
 */
export { createLangChainChatModel } from "./models/langchain-chat.ts";
export type { LangChainChatModelOptions } from "./models/langchain-chat.ts";
export { createLangChainPolicy } from "./policies/langchain/langchain-policy.ts";
export type { LangChainPolicyOptions } from "./policies/langchain/langchain-policy.ts";
export { recoveryMiddleware, RECOVERY_EVENT } from "./langchain/recovery-middleware.ts";
export { recoverWithPolicy } from "../src/runtime/recover-with-policy.ts";
export type { RecoverWithPolicyOptions } from "../src/runtime/recover-with-policy.ts";
export type { RecoveryTrack } from "./langchain/recovery-middleware.ts";
export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "./langchain/options.ts";
