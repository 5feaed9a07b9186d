/**
 * Loading a team's SDK agent from a module for the `openai-agents` and `ai-sdk` agent kinds: the
 * path is resolved against the current working directory (absolute paths as given), the export
 * is the agent itself or a function returning it (sync or async). Loaded once per module and
 * export; a missing file is refused before any episode (the kinds' `check`), a bad export fails
 * the first step with one line naming the field.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";

/** The spec schema of an SDK agent kind. */
export function sdkAgentSpecSchema<K extends string>(kind: K, defaultExport: string) {
  return z
    .object({
      kind: z.literal(kind),
      /** Path of a .ts/.mjs/.js module exporting the agent (resolved against the current directory). */
      module: z.string().min(1, "needs the path of a module exporting the agent"),
      /** The export holding the agent (or a function returning one). */
      export: z.string().min(1).default(defaultExport),
    })
    .strict();
}

/** A spec of an SDK agent kind. */
export interface SdkAgentSpec {
  kind: string;
  module: string;
  export: string;
}

/** The `check` of an SDK agent kind: the module file exists. */
export function checkSdkModule(spec: SdkAgentSpec): { field: string; message: string } | undefined {
  const file = resolve(process.cwd(), spec.module);
  return existsSync(file)
    ? undefined
    : { field: "module", message: `${file} does not exist (module paths are resolved against ${process.cwd()})` };
}

const loaded = new Map<string, Promise<unknown>>();

/**
 * Load the export a spec names; `accept` returns what is wrong with the value (a function value
 * that is not accepted is called and its result checked). Errors name `field.module` / `field.export`.
 */
export function loadSdkExport<T>(
  spec: SdkAgentSpec,
  what: string,
  accept: (value: unknown) => string | undefined,
  field = "forward",
): Promise<T> {
  const file = resolve(process.cwd(), spec.module);
  const key = `${spec.kind}:${file}#${spec.export}`;
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      if (!existsSync(file))
        throw new ConfigError(
          `${field}.module: ${file} does not exist (module paths are resolved against ${process.cwd()})`,
          { field: `${field}.module` },
        );
      let mod: Record<string, unknown>;
      try {
        mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      } catch (err) {
        throw new ConfigError(
          `${field}.module: cannot load ${file}: ${String((err as Error).message ?? err).split("\n")[0]}`,
          { field: `${field}.module` },
        );
      }
      if (!(spec.export in mod))
        throw new ConfigError(
          `${field}.export: ${file} has no export named ${JSON.stringify(spec.export)} (it exports ${
            Object.keys(mod)
              .map((k) => JSON.stringify(k))
              .join(", ") || "nothing"
          })`,
          { field: `${field}.export` },
        );
      let value = mod[spec.export];
      if (typeof value === "function" && accept(value) !== undefined) value = await (value as () => unknown)();
      const problem = accept(value);
      if (problem)
        throw new ConfigError(`${field}.export: ${JSON.stringify(spec.export)} of ${file} is not ${what}: ${problem}`, {
          field: `${field}.export`,
        });
      return value;
    })();
    p.catch(() => loaded.delete(key));
    loaded.set(key, p);
  }
  return p as Promise<T>;
}
