/**
 * What `--resume` checks before it touches a run folder: that the folder is this config's run.
 * manifest.json must be there (a folder with results and no manifest is refused), its config hash,
 * seed list and task list must be this run's, and every line already in results.jsonl must be an
 * episode of this run's job list: a folder whose manifest was removed or copied from another
 * config used to be resumed silently, keeping the other config's results beside this one's.
 * A missing or empty folder starts a fresh run (as `demo --resume` needs for runs not yet begun).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { showId } from "@retrace-cua/core/store/safe-path";
import type { ExperimentConfig } from "../config/schema.ts";
import { readResults } from "./results-log.ts";

/** This run's identity, compared with the folder's manifest.json. */
export interface RunIdentity {
  configHash: string;
  seeds: readonly number[];
  tasks: readonly string[];
  /** Whether a results key belongs to this run's job list. */
  ownsKey: (key: string) => boolean;
}

/** The manifest fields the check reads. */
interface ManifestIdentity {
  configHash?: unknown;
  seeds?: unknown;
  tasks?: unknown;
}

const same = (a: unknown, b: readonly unknown[]) =>
  Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);

/** Throw a one-line ConfigError unless `out` can be resumed as the run `id`. */
export function checkResumable(out: string, id: RunIdentity): void {
  if (!existsSync(out) || readdirSync(out).length === 0) return;
  const manifestFile = join(out, "manifest.json");
  const resultsFile = join(out, "results.jsonl");
  if (!existsSync(manifestFile)) {
    throw new ConfigError(
      `--resume: ${out} has no manifest.json, so nothing shows it holds this config's run; resume a folder made by \`retrace run\` with this config, or choose another --out`,
      { field: "resume" },
    );
  }
  let old: ManifestIdentity;
  try {
    old = JSON.parse(readFileSync(manifestFile, "utf8")) as ManifestIdentity;
  } catch {
    throw new ConfigError(
      `--resume: ${manifestFile} is not valid JSON; it should be the manifest \`retrace run\` wrote (restore it, or choose another --out)`,
      { field: "resume" },
    );
  }
  if (typeof old !== "object" || old === null || typeof old.configHash !== "string")
    throw new ConfigError(
      `--resume: ${manifestFile} has no configHash; it is not a manifest \`retrace run\` wrote (restore it, or choose another --out)`,
      { field: "resume" },
    );
  if (old.configHash !== id.configHash)
    throw new ConfigError(
      `--resume: the config (or --seed) differs from the one that started ${out} (hash ${old.configHash.slice(0, 12)} vs ${id.configHash.slice(0, 12)}); use the same config or another --out`,
      { field: "resume" },
    );
  if (!same(old.seeds, id.seeds))
    throw new ConfigError(
      `--resume: the seed list differs from the one that started ${out} (manifest.json); use the same config and --seed, or another --out`,
      { field: "resume" },
    );
  if (!same(old.tasks, id.tasks))
    throw new ConfigError(
      `--resume: the task list differs from the one that started ${out} (manifest.json: ${Array.isArray(old.tasks) ? old.tasks.length : 0} tasks, now ${id.tasks.length}); use the same config and environment, or another --out`,
      { field: "resume" },
    );
  const foreign = [...readResults(resultsFile).keys()].filter((k) => !id.ownsKey(k));
  if (foreign.length)
    throw new ConfigError(
      `--resume: ${resultsFile} holds ${foreign.length} result line(s) that are not episodes of this run (e.g. ${showId(foreign[0])}); they come from another config: move them away, or choose another --out`,
      { field: "resume" },
    );
}

/**
 * The key test of an ideal-recovery run: forward runs `forward/<task>/<seed>` and continuations
 * `<strategy label>/<task>/<seed>/k<i>` with i from 1 to K (the labels include plan.json's).
 */
export function idealKeyTest(
  config: Extract<ExperimentConfig, { kind: "ideal-recovery" }>,
  tasks: readonly string[],
  seeds: readonly number[],
  labels: readonly string[],
  forward: string,
): (key: string) => boolean {
  const taskSet = new Set(tasks);
  const seedSet = new Set(seeds.map(String));
  const labelSet = new Set(labels);
  return (key) => {
    const parts = key.split("/");
    if (parts.length === 3) return parts[0] === forward && taskSet.has(parts[1]) && seedSet.has(parts[2]);
    if (parts.length !== 4) return false;
    const k = /^k(\d+)$/.exec(parts[3]);
    return (
      labelSet.has(parts[0]) &&
      taskSet.has(parts[1]) &&
      seedSet.has(parts[2]) &&
      !!k &&
      Number(k[1]) >= 1 &&
      Number(k[1]) <= config.k
    );
  };
}
