/**
 * The JavaScript of `@retrace-cua/stagehand` (package.json `exports` `import`; its types are those of
 * `./index.ts`): loads the entry with `await import`, so that a missing SDK package is one line
 * naming it and its install command (packages/sdk-shared/src/peer-guard.ts), not Node's
 * ERR_MODULE_NOT_FOUND. A Stagehand without `agent()` (Stagehand 4) is refused the same way, in one
 * line saying why (`stagehandWithoutAgent`), before the entry's deep imports of Stagehand 3's
 * modules would fail with ERR_PACKAGE_PATH_NOT_EXPORTED. Exports the same values as `./index.ts`
 * (test/adapters/sdk/peer-guard.test.ts).
 */
import { installedVersion, loadSdkEntry, stagehandWithoutAgent } from "@retrace-cua/sdk-shared/peer-guard";

const entry = await loadSdkEntry("@retrace-cua/stagehand", async () => {
  const sdk = (await import("@browserbasehq/stagehand")) as { Stagehand?: unknown };
  const refused = stagehandWithoutAgent(sdk, installedVersion("@browserbasehq/stagehand", resolveStagehand()));
  if (refused !== undefined) throw refused;
  return import("./index.ts");
});

/** Where `@browserbasehq/stagehand` resolves from here (undefined where `import.meta.resolve` is not available). */
function resolveStagehand(): string | undefined {
  try {
    return typeof import.meta.resolve === "function" ? import.meta.resolve("@browserbasehq/stagehand") : undefined;
  } catch {
    return undefined;
  }
}

export const { STAGEHAND_READ_ONLY_TOOLS, executeWithRecovery, stagehandForwardPolicy, stagehandToolCallToActions } =
  entry;
