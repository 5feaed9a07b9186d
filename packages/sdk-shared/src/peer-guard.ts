/**
 * What an SDK entry (`retrace-cua/ai-sdk`, `/openai-agents`, `/stagehand`, `/langchain`) does when
 * a package it needs is not installed. Static imports are resolved before any code runs, so each
 * entry's published JavaScript is a small guard (`entry.ts` beside its `index.ts`) that loads the
 * real entry with `await import(...)` and turns Node's 20-line ERR_MODULE_NOT_FOUND into one
 * ConfigError line naming the package and the install command (the wording of packages/core/src/optional-import.ts). The entry's
 * types stay those of
 * its `index.ts` (package.json `exports`: `types` names the index, `import` the guard).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@retrace-cua/core/errors";

/**
 * The optional peer dependencies an SDK entry may need, with the ranges of package.json
 * `peerDependencies` (test/adapters/sdk/peer-guard.test.ts keeps the two equal).
 */
export const SDK_PEERS: Readonly<Record<string, string>> = {
  ai: "^6.0.0 || ^7.0.0",
  "@ai-sdk/anthropic": "^3.0.0 || ^4.0.0",
  "@openai/agents": ">=0.14.3",
  "@browserbasehq/stagehand": "^3.7.3",
  langchain: "^1.0.0",
};

/**
 * Stagehand's majors the Stagehand entry refuses, and why: one line each. Stagehand 4 (the
 * Browserbase client `packages/sdk-ts`) has no `agent()`, no `AgentConfig`/`AgentResult` and no
 * `lib/v3/agent/*` modules: the computer-use agent that `executeWithRecovery` wraps and
 * `stagehandForwardPolicy` drives is gone (its `Stagehand` class has `act`, `observe`, `extract`).
 */
export const STAGEHAND_REFUSED = "Stagehand 4 has no agent(), the computer-use agent this entry wraps";

/**
 * The one-line error for a Stagehand without `agent()` (Stagehand 4 installed past the peer range,
 * e.g. with --legacy-peer-deps or a package manager that only warns), or undefined when
 * `sdk.Stagehand` has it. `version` is the installed version, when known.
 */
export function stagehandWithoutAgent(
  sdk: { Stagehand?: unknown },
  version: string | undefined,
): ConfigError | undefined {
  const proto = (sdk.Stagehand as { prototype?: { agent?: unknown } } | undefined)?.prototype;
  if (typeof proto?.agent === "function") return undefined;
  const pkg = "@browserbasehq/stagehand";
  const range = SDK_PEERS[pkg];
  const found = version === undefined ? "" : `, found ${version}`;
  const err = new ConfigError(
    `@retrace-cua/stagehand needs ${pkg} ${range}${found}: ${STAGEHAND_REFUSED}: npm install "${pkg}@${range}"`,
    { field: pkg },
  );
  err.stack = `${err.name}: ${err.message}`;
  return err;
}

/**
 * The version in the package.json of the installed package that `resolved` (a file URL from
 * `import.meta.resolve`) belongs to, or undefined when it cannot be read.
 */
export function installedVersion(pkg: string, resolved: string | undefined): string | undefined {
  if (resolved === undefined) return undefined;
  try {
    let dir = dirname(fileURLToPath(resolved));
    for (;;) {
      const file = join(dir, "package.json");
      if (existsSync(file)) {
        const json = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
        if (json.name === pkg && typeof json.version === "string") return json.version;
      }
      const up = dirname(dir);
      if (up === dir) return undefined;
      dir = up;
    }
  } catch {
    return undefined; // the version only adds to the message
  }
}

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
