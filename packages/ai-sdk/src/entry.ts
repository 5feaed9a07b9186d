/**
 * The JavaScript of `@retrace-cua/ai-sdk` (package.json `exports` `import`; its types are those of
 * `./index.ts`): loads the entry with `await import`, so that a missing SDK package is one line
 * naming it and its install command (packages/sdk-shared/src/peer-guard.ts), not Node's
 * ERR_MODULE_NOT_FOUND. Exports the same values as `./index.ts` (test/adapters/sdk/peer-guard.test.ts).
 */
import { loadSdkEntry } from "@retrace-cua/sdk-shared/peer-guard";

const entry = await loadSdkEntry("@retrace-cua/ai-sdk", () => import("./index.ts"));

export const {
  AiSdkRecovery,
  RECOVERY_SPAN,
  aiSdkForwardPolicy,
  createRecovery,
  generateTextWithRecovery,
  recoverySpanAttributes,
  retraceComputerTool,
} = entry;
