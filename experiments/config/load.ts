/**
 * Reading and validating experiment configs. Every problem becomes one ConfigError line that
 * names the field, e.g. `config.pairs.0.forward.profile: expected string, got number`.
 */
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import { readTextFile } from "@retrace-cua/core/store/read-file";
import { RecoveryOptionsSchema } from "@retrace-cua/core/episode";
import { renameDeprecatedKeys } from "@retrace-cua/core/deprecation";
import { DEPRECATED_CONFIG_FIELDS, ExperimentConfigSchema, SWEEP_PRESETS, type ExperimentConfig } from "./schema.ts";
import { checkNesting, checkYamlNesting } from "@retrace-cua/core/bounds";

/** Validate a parsed config object; throws ConfigError naming the first bad field. */
export function parseExperimentConfig(raw: unknown, source = "config"): ExperimentConfig {
  if ((raw as { kind?: unknown } | null)?.kind === "recovery-eval")
    throw new ConfigError(
      `${source}.kind: a recovery-eval config runs with \`retrace dataset build --config ${source}\` then \`retrace eval-recovery --config ${source} --dataset DIR\`, not \`retrace run\``,
      { field: "kind" },
    );
  const renames = DEPRECATED_CONFIG_FIELDS[String((raw as { kind?: unknown } | null)?.kind)];
  if (renames) raw = renameDeprecatedKeys(source, raw, renames);
  const result = ExperimentConfigSchema.safeParse(raw);
  if (!result.success) throw issueToError(result.error.issues, source);
  const config = result.data;
  if (config.kind === "sweep") {
    const keys = Object.keys(RecoveryOptionsSchema.shape);
    for (const [name, values] of Object.entries(config.params)) {
      if (!keys.includes(name))
        throw new ConfigError(`${source}.params.${name}: not a recovery option (one of: ${keys.join(", ")})`, {
          field: `params.${name}`,
        });
      values.forEach((v, i) => {
        const check = RecoveryOptionsSchema.partial().safeParse({ [name]: v });
        if (!check.success)
          throw new ConfigError(
            `${source}.params.${name}.${i}: ${check.error.issues[0].message} (value ${JSON.stringify(v)})`,
            { field: `params.${name}.${i}` },
          );
      });
    }
    if (!config.preset && Object.keys(config.params).length === 0)
      throw new ConfigError(
        `${source}.params: a sweep needs at least one parameter (or a preset: ${Object.keys(SWEEP_PRESETS).join(", ")})`,
        { field: "params" },
      );
  }
  return config;
}

/**
 * Read and parse a config file (.json, .yaml, .yml) within the size and nesting bounds: only a
 * regular file (a FIFO blocks until a writer comes, /dev/zero never ends), BOM dropped; a
 * ConfigError names the file (after `prefix`) and, when given, the `field` it came from.
 */
export function readConfigFile(file: string, opts: { prefix?: string; field?: string } = {}): unknown {
  const text = readTextFile(file, {
    what: "config",
    ...(opts.prefix && { prefix: opts.prefix }),
    maxBytes: 10 * 1024 * 1024,
  });
  let raw: unknown;
  try {
    if (extname(file) !== ".json") checkYamlNesting(text, file);
    raw = extname(file) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(
      `${file}: not valid ${extname(file) === ".json" ? "JSON" : "YAML"}: ${(cause as Error).message.split("\n")[0]}`,
      { cause, ...(opts.field && { field: opts.field }) },
    );
  }
  checkNesting(raw, file, opts.field);
  return raw;
}

/** Load a config file (.json, .yaml, .yml). */
export function loadExperimentConfig(file: string): ExperimentConfig {
  return parseExperimentConfig(readConfigFile(file), file);
}

/**
 * For a union, the most specific branch issue (deepest path), e.g. `seeds.count: expected number` rather than "Invalid
 * input".
 */
function specific(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union" || !issue.errors?.length) return issue;
  const best = issue.errors
    .map((branch) => branch[0])
    .filter(Boolean)
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!best || best.path.length === 0) return issue;
  return specific({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

function issueToError(issues: z.core.$ZodIssue[], source: string): ConfigError {
  const issue = specific(issues[0]);
  const field = issue.path.map(String).join(".");
  let message = issue.message;
  if (issue.code === "unrecognized_keys") message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  if (issue.code === "invalid_union" && issue.path.length === 1 && issue.path[0] === "kind")
    message = `kind must be one of "ideal-recovery", "end-to-end", "sweep"`;
  return new ConfigError(`${source}${field ? "." + field : ""}: ${message}`, { field });
}
