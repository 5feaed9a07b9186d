/**
 * Flags shared by `retrace run`, `sweep` and `demo`, the progress lines (progress.ts),
 * and the condition table printed at the end. The CLI owns the terminal; library code never prints.
 */
import { conditionLabel } from "../report/labels.ts";
import { Option, type Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { checkSqlitePath, parseCheckpointSpec } from "@retrace-cua/graphs/checkpointers";
import { registerCheckpointSchemes } from "../runner/checkpoints.ts";
import type { RunSettings } from "../runner/context.ts";
import type { ExperimentSummary } from "../runner/summary.ts";
import { ShardPool } from "../runner/shards.ts";
import { SIMDESK_RUNTIME_SPEC } from "../runtime/simdesk.ts";
import { MAX_SEED } from "../config/schema.ts";
import { clip, safeName } from "./terminal.ts";
import { parseIntFlag } from "./numeric-flags.ts";
import { outFlag, quietFlag, seedFlag } from "./common-flags.ts";

/** Parsed shared flags. */
export interface RunFlags {
  out?: string;
  workers: string;
  seed: string;
  resume?: boolean;
  quiet?: boolean;
  /** Environment kind overriding the config's env.kind: simdesk, x11, docker, browser or osworld. */
  env?: string;
  /** --checkpoint none|memory|sqlite[:path]|postgres://USER@HOST:PORT/DB. */
  checkpoint?: string;
}

/** Add --out, --workers, --seed, --resume, --quiet. */
export function addRunFlags(cmd: Command, defaultOut: string): Command {
  return cmd
    .addOption(
      outFlag(
        `output folder (results.jsonl, summary.json/csv, manifest.json, one folder per episode) (default: ${defaultOut})`,
      ),
    )
    .option("-w, --workers <n>", "parallel workers, each with its own environment instance", "2")
    .addOption(seedFlag("base seed added to every seed of the config (same config + seed = same results.jsonl)"))
    .option("--resume", "continue the run in --out: skip finished episodes, re-run missing and environment-error ones")
    .option(
      "--checkpoint <spec>",
      "per-episode checkpoints: none (fastest; a killed episode re-runs), memory, sqlite or sqlite:<path>, postgres://USER@HOST:PORT/DB (durable: a killed episode resumes mid-way)",
      "none",
    )
    .addOption(quietFlag("no progress bars (CI)"))
    .addOption(
      new Option(
        "--env <kind>",
        "environment: simdesk (built in), x11 (apps under Xvfb on this host), docker (a desktop container per episode), browser (headless Chromium on the built-in web apps, or env.tasksFile) or osworld (OSWorld tasks against a control server: env.url); default: the config's env.kind",
      ).choices(["simdesk", "x11", "docker", "browser", "osworld"]),
    );
}

/** Validate the shared flags into runner settings. */
export function runSettings(flags: RunFlags, defaultOut: string): RunSettings & { quiet: boolean } {
  const workers = parseIntFlag("--workers", flags.workers, { min: 1, max: 64 });
  // Bounded like the config's seeds, so that their sums stay safe integers.
  const seed = parseIntFlag("--seed", flags.seed, {
    min: -MAX_SEED,
    max: MAX_SEED,
    expect: `expected an integer between -${MAX_SEED} and ${MAX_SEED}`,
  });
  const checkpoint = flags.checkpoint ?? "none";
  registerCheckpointSchemes();
  const cp = parseCheckpointSpec(checkpoint);
  // A sqlite:PATH is checked like --out, before anything is written (/proc/x, a file's subpath).
  if (cp?.scheme === "sqlite" && cp.rest) checkSqlitePath(cp.rest);
  return {
    out: flags.out ?? defaultOut,
    workers,
    seedBase: seed,
    resume: flags.resume === true,
    quiet: flags.quiet === true,
    ...(checkpoint !== "none" ? { checkpoint } : {}),
  };
}

/** Process workers for `--workers n` > 1 (undefined for 1: run in this process). Close it when done. */
export function processWorkers(workers: number): ShardPool | undefined {
  return workers > 1 ? new ShardPool(workers, { ...SIMDESK_RUNTIME_SPEC }) : undefined;
}

export { progressReporter } from "./progress.ts";

/** A plain-text table of the conditions (for the terminal). */
export function conditionTableText(s: ExperimentSummary): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  // The condition's display name, as the report shows it.
  const rows = s.conditions.map((c) => [
    conditionLabel(c.condition),
    `${c.success.successes}/${c.success.n}`,
    pct(c.success.rate),
    `${pct(c.success.lo)}-${pct(c.success.hi)}`,
    String(c.envErrors),
    c.meanRecoveryAttempts.toFixed(2),
    c.meanRecoverySteps.toFixed(2),
    c.stepsPerEpisode.toFixed(1),
  ]);
  return textTable(
    ["condition", "succ/n", "success", "95% CI", "env err", "rec att/ep", "rec steps/ep", "steps/ep"],
    rows,
  );
}

/** Left-aligned text table. */
export function textTable(head: string[], rawRows: string[][]): string {
  // Cells hold names from configs and result files: escaped and shortened (see terminal.ts).
  const rows = rawRows.map((r) => r.map((c) => safeName(c)));
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(w[i])).join("  ");
  return [line(head), w.map((n) => "-".repeat(n)).join("  "), ...rows.map(line)].join("\n");
}

/** `runs/<name>-<UTC timestamp>`. */
export function defaultOutFor(name: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  return `runs/${name.replace(/[^A-Za-z0-9_-]+/g, "-")}-${stamp}`;
}
