/**
 * Does recovery pay off on SimDesk? Runs seeded episodes of every SimDesk task under a few
 * recovery conditions with simulated agents (labelled simulated) and prints success rates with
 * Wilson 95% intervals and a two-proportion p-value against no recovery.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/recovery-effect.ts [--seeds 5] [--tasks 0] [--conditions a,b]
 *
 * The paper's two regimes (Sec. 6.2, Finding 6): a skilled recoverer with a decent detector raises
 * success over no recovery; a weak recoverer given more iterations can lower it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeResult, RecoveryOptionsInput } from "@retrace-cua/core/episode";
import { proportionOf, twoProportionPValue, type Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import { SIMDESK_TASKS, createSimDesk, type SimDeskTask } from "@retrace-cua/simdesk/simdesk";
import {
  createSimAgents,
  type SimForwardProfileName,
  type SimRecovererProfileName,
  type SimDetectorProfileName,
} from "@retrace-cua/simdesk/agents/index";

/** One experimental condition. `recoverer: null` = no recovery at all (no detector). */
export interface EffectCondition {
  name: string;
  recoverer: SimRecovererProfileName | null;
  detector?: SimDetectorProfileName;
  /** Forward policy profile. @default "default" */
  forward?: SimForwardProfileName;
  options?: RecoveryOptionsInput;
}

export const DEFAULT_CONDITIONS: EffectCondition[] = [
  { name: "no recovery", recoverer: null },
  { name: "skilled x1", recoverer: "skilled", options: { maxRecoveryIterations: 1 } },
  { name: "skilled x3", recoverer: "skilled", options: { maxRecoveryIterations: 3 } },
  { name: "skilled x5", recoverer: "skilled", options: { maxRecoveryIterations: 5 } },
  { name: "weak x1", recoverer: "weak", options: { maxRecoveryIterations: 1 } },
  { name: "weak x5", recoverer: "weak", options: { maxRecoveryIterations: 5 } },
  { name: "weak x1 noisy", recoverer: "weak", detector: "noisy", options: { maxRecoveryIterations: 1 } },
  { name: "weak x5 noisy", recoverer: "weak", detector: "noisy", options: { maxRecoveryIterations: 5 } },
  { name: "skilled x5 noisy", recoverer: "skilled", detector: "noisy", options: { maxRecoveryIterations: 5 } },
  // A careful forward policy fails rarely, so most detections are false alarms: what recovery costs.
  { name: "careful: no recovery", recoverer: null, forward: "careful" },
  {
    name: "careful: weak x1 noisy",
    recoverer: "weak",
    detector: "noisy",
    forward: "careful",
    options: { maxRecoveryIterations: 1 },
  },
  {
    name: "careful: weak x5 noisy",
    recoverer: "weak",
    detector: "noisy",
    forward: "careful",
    options: { maxRecoveryIterations: 5 },
  },
  {
    name: "careful: skilled x5 noisy",
    recoverer: "skilled",
    detector: "noisy",
    forward: "careful",
    options: { maxRecoveryIterations: 5 },
  },
];

export interface EffectRow {
  condition: string;
  success: Proportion;
  /** Two-sided p-value against the no-recovery condition with the same forward policy (else the first row). */
  pVsBaseline: number;
  /** Name of that baseline condition. */
  baseline: string;
  episodes: number;
  envErrors: number;
  recoveryAttempts: number;
  recoverySteps: number;
  forwardSteps: number;
}

/** Run every task x seed under each condition; returns one row per condition (simulated). */
export async function measureRecoveryEffect(args: {
  seeds: number[];
  tasks?: readonly SimDeskTask[];
  conditions?: EffectCondition[];
  onEpisode?: (c: string, r: EpisodeResult) => void;
}): Promise<EffectRow[]> {
  const tasks = args.tasks ?? SIMDESK_TASKS;
  const conditions = args.conditions ?? DEFAULT_CONDITIONS;
  const dir = mkdtempSync(join(tmpdir(), "retrace-effect-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const env = createSimDesk({ blobs });
  const rows: EffectRow[] = [];
  try {
    for (const cond of conditions) {
      const results: EpisodeResult[] = [];
      for (const task of tasks) {
        for (const seed of args.seeds) {
          const agents = createSimAgents({
            task,
            groundTruth: env,
            seed,
            forward: cond.forward ?? "default",
            recoverer: cond.recoverer ?? "skilled",
            detector: cond.detector ?? "decent",
          });
          const r = await runEpisode({
            task,
            components: {
              policy: agents.policy,
              env,
              blobs,
              ...(cond.recoverer ? { detector: agents.detector, recoverer: agents.recoverer } : {}),
            },
            options: { seed, ...cond.options },
            checkpointer: false, // batch run: no per-step checkpoints needed, ~3x faster
          });
          results.push(r);
          args.onEpisode?.(cond.name, r);
        }
      }
      const valid = results.filter((r) => r.stopReason !== "env-error");
      const sum = (f: (r: EpisodeResult) => number) => valid.reduce((a, r) => a + f(r), 0);
      rows.push({
        condition: cond.name,
        success: proportionOf(valid.map((r) => r.success)),
        pVsBaseline: 1,
        baseline: cond.name,
        episodes: results.length,
        envErrors: results.length - valid.length,
        recoveryAttempts: sum((r) => r.accounting.recoveryAttempts),
        recoverySteps: sum((r) => r.accounting.recoverySteps),
        forwardSteps: sum((r) => r.accounting.forwardSteps),
      });
    }
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
  rows.forEach((row, i) => {
    const forward = conditions[i].forward ?? "default";
    const j = conditions.findIndex((c) => c.recoverer === null && (c.forward ?? "default") === forward);
    const base = rows[j >= 0 ? j : 0];
    row.baseline = base.condition;
    row.pVsBaseline = twoProportionPValue(row.success, base.success);
  });
  return rows;
}

/** The table as text. */
export function formatEffect(rows: EffectRow[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `condition                   success (95% CI)              p vs baseline   episodes  recoveries  rec.steps  fwd.steps   [simulated]`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.condition.padEnd(26)}  ${pct(r.success.rate).padStart(6)} [${pct(r.success.lo)}, ${pct(r.success.hi)}] (${r.success.successes}/${r.success.n})`.padEnd(
        42,
      ) +
        `${r.pVsBaseline.toFixed(4).padStart(8)}   ${String(r.episodes).padStart(8)}  ${String(r.recoveryAttempts).padStart(10)}  ${String(r.recoverySteps).padStart(9)}  ${String(r.forwardSteps).padStart(9)}`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, dflt: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : dflt;
  };
  const seeds = Array.from({ length: Number(arg("seeds", "5")) }, (_, i) => i);
  const nTasks = Number(arg("tasks", "0"));
  const wanted = arg("conditions", "");
  const conditions = wanted ? DEFAULT_CONDITIONS.filter((c) => wanted.split(",").includes(c.name)) : DEFAULT_CONDITIONS;
  const tasks = nTasks > 0 ? SIMDESK_TASKS.slice(0, nTasks) : SIMDESK_TASKS;
  const started = Date.now();
  let done = 0;
  const rows = await measureRecoveryEffect({
    seeds,
    tasks,
    conditions,
    onEpisode: () => {
      if (++done % 50 === 0)
        process.stderr.write(`${done} episodes, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    },
  });
  process.stdout.write(
    `SimDesk recovery effect, ${tasks.length} tasks x ${seeds.length} seeds per condition (simulated agents)\n${formatEffect(rows)}\n`,
  );
}
