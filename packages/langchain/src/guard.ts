/**
 * The JavaScript of `@retrace-cua/langchain` (package.json `exports` `import`; its types are those of
 * `./entry-langchain.ts`): loads the entry with `await import`, so that a missing SDK package is one line
 * naming it and its install command (packages/sdk-shared/src/peer-guard.ts), not Node's
 * ERR_MODULE_NOT_FOUND. Exports the same values as `./entry-langchain.ts` (test/adapters/sdk/peer-guard.test.ts).
 */
import { loadSdkEntry } from "@retrace-cua/sdk-shared/peer-guard";

const entry = await loadSdkEntry("@retrace-cua/langchain", () => import("./index.ts"));

export const {
  RECOVERY_EVENT,
  createLangChainChatModel,
  createLangChainPolicy,
  recoverWithPolicy,
  recoveryMiddleware,
} = entry;
