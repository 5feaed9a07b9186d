/**
 * `recovery-token-overhead`: what recovery costs in tokens, paper preset against production
 * preset, on the stand-in (every role played by the SIMULATED stand-in at its README settings:
 * --error-rate 0.2, --post-cut-error-rate 0.3, the end-to-end preset's options and roles).
 *
 * One run, three arms on the same 144 (task, seed) units (48 SimDesk tasks x seeds 0-2):
 * - bare: no recovery;
 * - paper: `detector: { preset: paper }`, the paper's every-step detector (max recovery iterations 3);
 * - production: the production recipe: `detector: { preset: production }` (cascade gates with
 *   every-k 2, a last-2-steps window, tree diffs of at most 4 lines, cache-friendly layout;
 *   packages/models/src/llm/detection-preset.ts, docs/cost.md "Detector levers") with the preset's
 *   recovery recipe (1 recovery attempt of at most 5 steps: condition `production.max-rec-1`; a repeating attempt
 *   stopped; once it is spent, a stuck agent's episode ended, `onStuck: stop`;
 *   packages/core/src/runtime/preset-recovery.ts), the recovery agent's `layout: cached`, and one screenshot for
 *   the selector and summarizer (`historyImages: 1`) (docs/cost.md, "Recovery levers").
 *
 * Reported (each arm's per-episode figures over the bare arm's, on the same units):
 * - tokens per episode, and billed-equivalent tokens per episode (`billedOf` of each role's usage
 *   record: equal to tokens until the model server reports cached prompt tokens);
 * - watching: units where no recovery fired in that arm, against the same units' bare episodes
 *   (the price of leaving recovery on), and recovering (the rest), by role;
 * - the production detector's recall against the every-step (paper) detector: of the units where
 *   the paper arm's detector raised a true alarm (SimDesk's ground truth: the state after the
 *   flagged step is off the task's plan, or the step ended the episode before the plan was done),
 *   the share where the production arm's detector raised one too. Both arms play the same
 *   trajectory until the first recovery of either (the stand-in draws from the request text, and
 *   nothing of the detector reaches the policy before a recovery), so the two detectors watch the
 *   same steps; the delay of production's first alarm after paper's is reported too, and the
 *   recall against all of paper's alarms (its false alarms included);
 * - end-to-end success, production vs paper, McNemar exact on the paired units.
 * Targets (production): watching <= 1.15x bare billed, recall >= 0.95, whole run <= 0.6x paper's
 * billed, success not significantly below paper's (two-sided p >= 0.05 or production ahead).
 *
 * Episodes are capped at 25 forward steps to keep the bench near three minutes.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { startStandInServer } from "@retrace-cua/testing/stand-in/server";
import { createSimDesk, getSimDeskTask, type SimDesk } from "@retrace-cua/simdesk/simdesk";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { mcnemarExact } from "@retrace-cua/evaluation/metrics/paired";
import { billedOf } from "@retrace-cua/core/usage";
import type { BenchResult } from "./result.ts";
import { RunFailedError } from "@retrace-cua/core/errors";

const CLI = fileURLToPath(new URL("../bin/retrace.mjs", import.meta.url));
/**
 * Tasks, seeds and step cap; RETRACE_BENCH_TOKEN_TASKS narrows the tasks for a quick look (the bench line needs all
 * 48).
 */
const TASKS = Number(process.env.RETRACE_BENCH_TOKEN_TASKS ?? 48);
const SEEDS = [0, 1, 2];
const MAX_STEPS = 25;

const PRESET = fileURLToPath(new URL("../configs/stand-in/detection-presets.yaml", import.meta.url));

/**
 * The run's config: experiments/configs/stand-in/detection-presets.yaml (two pairs that differ only in the detector
 * preset), `tasks` of its 48.
 */
export function benchConfig(tasks = TASKS): Record<string, any> {
  const c = parseYaml(readFileSync(PRESET, "utf8")) as Record<string, any>;
  c.env = { ...c.env, sample: tasks };
  c.seeds = SEEDS;
  c.options = { ...c.options, maxForwardSteps: MAX_STEPS };
  return c;
}

type RoleUsage = { inputTokens: number; outputTokens: number; billedTokens?: number };
interface Row {
  condition: string;
  task: string;
  seed: number;
  success: boolean;
  stopReason?: string;
  forwardSteps: number;
  recoveryAttempts: number;
  models?: Record<string, RoleUsage>;
}
interface StepRecord {
  actions?: Array<{ type?: string }>;
  info?: { role?: string; step?: number; detection?: { isError?: boolean; cascade?: { asked?: boolean } } };
}

const unitOf = (r: { task: string; seed: number }) => `${r.task}/${r.seed}`;
const tokensOf = (r: Row, role?: string) =>
  Object.entries(r.models ?? {}).reduce(
    (s, [k, u]) => (role && k !== role ? s : s + u.inputTokens + u.outputTokens),
    0,
  );
const billedRowOf = (r: Row, role?: string) =>
  Object.entries(r.models ?? {}).reduce((s, [k, u]) => (role && k !== role ? s : s + billedOf(u)), 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const round = (x: number, d = 3) => Number(x.toFixed(d));

/**
 * The forward steps of an episode with the step of each detector alarm and whether it was true (reads the run's
 * trajectory.json).
 */
function trajectory(
  out: string,
  r: Row,
  desk: SimDesk,
): { actions: string[]; alarms: number[]; trueAlarms: number[]; asked: number; judged: number } {
  const t = JSON.parse(readFileSync(join(out, r.condition, r.task, String(r.seed), "trajectory.json"), "utf8")) as {
    trajectory: {
      steps: Array<
        StepRecord["info"] & {
          actions?: Array<{ type?: string }>;
          afterState?: string;
          detection?: { isError?: boolean; cascade?: { asked?: boolean } };
        }
      >;
    };
  };
  const task = getSimDeskTask(r.task);
  const actions: string[] = [];
  const alarms: number[] = [];
  const trueAlarms: number[] = [];
  let asked = 0;
  let judged = 0;
  for (const s of t.trajectory.steps) {
    if (s.role !== "forward") continue;
    const step = actions.length;
    actions.push(JSON.stringify(s.actions ?? []));
    const d = s.detection;
    if (!d) continue;
    judged++;
    if (!d.cascade || d.cascade.asked) asked++;
    if (!d.isError) continue;
    alarms.push(step);
    const at = s.afterState ? desk.planIndexOf(task, s.afterState) : 0;
    const ended = (s.actions ?? []).some((a) => a.type === "DONE" || a.type === "FAIL");
    if (at < 0 || (ended && at < task.plan.length)) trueAlarms.push(step);
  }
  return { actions, alarms, trueAlarms, asked, judged };
}

/** The length of the common prefix of two action lists. */
function sharedSteps(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * RETRACE_BENCH_KEEP=<dir> keeps the run there (its trajectories, for analysing gates offline); the line is measured
 * the same.
 */
const KEEP = process.env.RETRACE_BENCH_KEEP;

export async function run(): Promise<BenchResult[]> {
  const dir = KEEP
    ? (mkdirSync(KEEP, { recursive: true }), KEEP)
    : mkdtempSync(join(tmpdir(), "retrace-bench-tokens-"));
  const server = await startStandInServer({ errorRate: 0.2, postCutErrorRate: 0.3, seed: 0 });
  try {
    const cfg = join(dir, "config.json");
    writeFileSync(cfg, JSON.stringify(benchConfig()));
    const out = join(dir, "run");
    const code = await new Promise<number>((done, fail) => {
      const child = spawn(
        process.execPath,
        [CLI, "run", cfg, "--base-url", server.url, "--out", out, "--quiet", "--workers", "3"],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      const stop = () => child.kill("SIGTERM");
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      child.on("error", fail);
      child.on("exit", (n) => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        done(n ?? 1);
      });
    });
    if (code !== 0) throw new RunFailedError(`recovery-token-overhead: retrace run exited with ${code}`);
    const rows = readFileSync(join(out, "results.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
    return [measure(out, rows)];
  } finally {
    await server.close();
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

/** Episodes of `arm` ended with stop reason "stuck" (option `onStuck`), and the successes among them. */
function stuckOf(arm: Map<string, Row>, units: readonly string[]): string {
  const stuck = units.map((u) => arm.get(u)).filter((r) => r?.stopReason === "stuck");
  return `${stuck.length} (${stuck.filter((r) => r!.success).length} successes)`;
}

/** The bench line from a finished run's results (exported for a quick look at a kept run). */
export function measure(out: string, rows: Row[]): BenchResult {
  const arm = (condition: string) => new Map(rows.filter((r) => r.condition === condition).map((r) => [unitOf(r), r]));
  const bare = arm("paper.no-recovery");
  const paper = arm("paper.max-rec-3");
  // the production pair's one recovery condition: its own cap (`maxRecoveryIterations` on the pair) or the config's
  const prodCondition =
    [...new Set(rows.map((r) => r.condition))].find((c) => c.startsWith("production.max-rec-")) ??
    "production.max-rec-3";
  const prod = arm(prodCondition);
  const units = [...bare.keys()].filter((u) => paper.has(u) && prod.has(u));
  const perEpisode = (m: Map<string, Row>, us: string[], f: (r: Row) => number) =>
    us.length ? sum(us.map((u) => f(m.get(u)!))) / us.length : 0;
  const ratio = (m: Map<string, Row>, us: string[], f: (r: Row) => number) =>
    perEpisode(m, us, f) / Math.max(1, perEpisode(bare, us, f));
  const billed = (r: Row) => billedRowOf(r);
  const tokens = (r: Row) => tokensOf(r);
  const watching = (m: Map<string, Row>) => units.filter((u) => m.get(u)!.recoveryAttempts === 0);
  const recovering = (m: Map<string, Row>) => units.filter((u) => m.get(u)!.recoveryAttempts > 0);
  const roleSplit = (m: Map<string, Row>, us: string[]) =>
    ["policy", "detector", "recoverer", "selector", "summarizer"]
      .map((role) => `${role} ${Math.round(perEpisode(m, us, (r) => billedRowOf(r, role)))}`)
      .join(", ");

  // Recall against the every-step detector, on the steps both arms played alike.
  const desk = createSimDesk({ blobs: new BlobStore({ dir: join(out, "blobs") }) });
  let paperAlarmed = 0;
  let paperTrue = 0;
  let bothAlarmed = 0;
  let bothTrue = 0;
  const delays: number[] = [];
  let steps = 0;
  let asked = 0;
  for (const u of units) {
    const p = trajectory(out, paper.get(u)!, desk);
    const q = trajectory(out, prod.get(u)!, desk);
    steps += q.judged;
    asked += q.asked;
    const shared = sharedSteps(p.actions, q.actions);
    const firstPaper = p.alarms[0];
    if (firstPaper === undefined || firstPaper >= shared) continue;
    const isTrue = p.trueAlarms[0] === firstPaper;
    paperAlarmed++;
    if (isTrue) paperTrue++;
    const firstProd = q.alarms[0];
    if (firstProd === undefined) continue;
    bothAlarmed++;
    if (isTrue) bothTrue++;
    delays.push(firstProd - firstPaper);
  }
  const recall = paperTrue ? bothTrue / paperTrue : 1;
  delays.sort((a, b) => a - b);

  const onlyPaper = units.filter((u) => paper.get(u)!.success && !prod.get(u)!.success).length;
  const onlyProd = units.filter((u) => prod.get(u)!.success && !paper.get(u)!.success).length;
  const p = mcnemarExact(onlyProd, onlyPaper);
  const successOk = !(onlyPaper > onlyProd && p < 0.05);
  const rate = (m: Map<string, Row>) => units.filter((u) => m.get(u)!.success).length / Math.max(1, units.length);

  const watchProd = ratio(prod, watching(prod), billed);
  const wholeVsPaper = perEpisode(prod, units, billed) / Math.max(1, perEpisode(paper, units, billed));
  const pass = watchProd <= 1.15 && recall >= 0.95 && wholeVsPaper <= 0.6 && successOk;
  const cachedSeen = rows.some((r) => Object.values(r.models ?? {}).some((u) => typeof u.billedTokens === "number"));
  return {
    name: "recovery-token-overhead",
    ratioOf:
      "billed tokens/episode, production preset / bare agent, in units where no recovery fired (watching), stand-in (SIMULATED)",
    ratio: watchProd,
    value: watchProd,
    unit: "x",
    target: "<= 1.15 watching, recall >= 0.95, whole run <= 0.6x paper, success not below paper",
    pass,
    details: {
      units: units.length,
      maxForwardSteps: MAX_STEPS,
      productionCondition: prodCondition,
      productionAttemptsPerRecovering: round(
        perEpisode(prod, recovering(prod), (r) => r.recoveryAttempts),
        2,
      ),
      paperAttemptsPerRecovering: round(
        perEpisode(paper, recovering(paper), (r) => r.recoveryAttempts),
        2,
      ),
      billedFrom: cachedSeen
        ? "usage records (cached prompt tokens reported)"
        : "usage records (no cached tokens reported: billed = tokens)",
      bareTokensPerEpisode: Math.round(perEpisode(bare, units, tokens)),
      paperTokensX: round(ratio(paper, units, tokens)),
      productionTokensX: round(ratio(prod, units, tokens)),
      paperBilledX: round(ratio(paper, units, billed)),
      productionBilledX: round(ratio(prod, units, billed)),
      productionVsPaperBilled: round(wholeVsPaper),
      paperWatchingUnits: watching(paper).length,
      paperWatchingBilledX: round(ratio(paper, watching(paper), billed)),
      productionWatchingUnits: watching(prod).length,
      productionWatchingBilledX: round(watchProd),
      paperRecoveringBilledX: round(ratio(paper, recovering(paper), billed)),
      productionRecoveringBilledX: round(ratio(prod, recovering(prod), billed)),
      bareRoles: roleSplit(bare, units),
      paperWatchingRoles: roleSplit(paper, watching(paper)),
      productionWatchingRoles: roleSplit(prod, watching(prod)),
      paperRecoveringRoles: roleSplit(paper, recovering(paper)),
      productionRecoveringRoles: roleSplit(prod, recovering(prod)),
      judgeCallsPerStep: round(asked / Math.max(1, steps)),
      recall: round(recall),
      recallUnits: `${bothTrue}/${paperTrue} of paper's true alarms`,
      recallAllAlarms: round(paperAlarmed ? bothAlarmed / paperAlarmed : 1),
      recallAllAlarmsUnits: `${bothAlarmed}/${paperAlarmed} of paper's alarms, false ones included`,
      medianAlarmDelaySteps: delays.length ? delays[Math.floor(delays.length / 2)] : 0,
      bareSuccess: `${(100 * rate(bare)).toFixed(1)}%`,
      paperSuccess: `${(100 * rate(paper)).toFixed(1)}%`,
      productionSuccess: `${(100 * rate(prod)).toFixed(1)}%`,
      discordant: `${onlyProd} production only, ${onlyPaper} paper only`,
      mcnemarP: round(p),
      // episodes ended by `onStuck: "stop"` (the production recipe), and how many of them the checker still scored a success
      productionStuck: stuckOf(prod, units),
      paperStuck: stuckOf(paper, units),
      simulated: "yes",
    },
  };
}
