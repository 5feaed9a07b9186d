/**
 * What an SDK entry (`retrace-cua/ai-sdk`, `/openai-agents`, `/stagehand`, `/langchain`) does when
 * a package it needs is not installed. Static imports are resolved before any code runs, so each
 * entry's published JavaScript is a small guard (`entry.ts` beside its `index.ts`) that loads the
 * real entry with `await import(...)` and turns Node's 20-line ERR_MODULE_NOT_FOUND into one
 * ConfigError line naming the package and the install command (the wording of src/optional-import.ts). The entry's types stay those of
 * its `index.ts` (package.json `exports`: `types` names the index, `import` the guard).
 */
import { ConfigError } from "../../../src/errors.ts";

/**
 * The optional peer dependencies an SDK entry may need, with the ranges of package.json
 * `peerDependencies` (test/adapters/sdk/peer-guard.test.ts keeps the two equal).
 */
export const SDK_PEERS: Readonly<Record<string, string>> = {
  ai: "^6.0.0 || ^7.0.0",
  "@ai-sdk/anthropic": "^3.0.0 || ^4.0.0",
  "@openai/agents": ">=0.14.3 <0.21.0",
  "@browserbasehq/stagehand": "^3.7.3",
  langchain: "^1.0.0",
};

/** The package a resolution error names (`Cannot find package 'ai' imported from ...`), or undefined. */
export function missingPackageOf(err: unknown): string | undefined {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const m = /Cannot find package '((?:@[^/'\s]+\/)?[^/'\s]+)[^']*'/.exec(err.message);
  return m?.[1];
}

/** The one-line error for a missing package: which entry needs which package, and the command that installs it. */
export function missingPackageError(entry: string, pkg: string): ConfigError {
  const range = SDK_PEERS[pkg];
  const spec = range === undefined ? pkg : `"${pkg}@${range}"`;
  const err = new ConfigError(
    `${entry} needs the optional package ${pkg}, which is not installed: npm install ${spec}`,
    { field: pkg },
  );
  // Node prints an uncaught error's stack and cause; both would be Node's loader frames, which say
  // nothing the line does not (so no `cause` either).
  err.stack = `${err.name}: ${err.message}`;
  return err;
}

/**
 * Loads an entry's implementation; a package that cannot be found becomes {@link missingPackageError}.
 * Any other failure is rethrown unchanged.
 */
export async function loadSdkEntry<T>(entry: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const pkg = missingPackageOf(err);
    if (pkg === undefined) throw err;
    throw missingPackageError(entry, pkg);
  }
}
