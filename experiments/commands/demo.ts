/**
 * `retrace demo` (= `npm run demo`): on SimDesk with seeded simulated policies, a small but honest
 * version of experiment 1 (ideal recovery, Success@K per recovery step), experiment 2 (no
 * recovery vs max recovery iterations, skilled and weak recoverers) and a freeze-window sweep; then checks the
 * paper's qualitative findings against its own numbers, prints a table and writes report.html;
 * a small recovery evaluation (implicit vs explicit recovery, oracle agreement) goes into
 * `<out>/recovery-eval/` so the report shows its tables too.
 */
import { conditionLabel, labelConditionsIn } from "../report/labels.ts";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { packBlobFolder } from "@retrace-cua/core/blob-pack";
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { parseExperimentConfig } from "../config/load.ts";
import type { EndToEndConfig, ExperimentConfig } from "../config/schema.ts";
import { runExperiment, type ExperimentRun } from "../runner/experiment.ts";
import { acquireRunLock } from "../runner/run-lock.ts";
import { readPlan } from "../ideal/plan.ts";
import type { ExperimentSummary } from "../runner/summary.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { buildReport } from "../report/index.ts";
import { runRecoveryEvalSuite } from "../recovery-eval/run.ts";
import type { RecoveryEvalReport } from "../recovery-eval/report-data.ts";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { findingVerdict, VERDICT_RULE, type Finding } from "../report/html.ts";
import { computeFindings } from "../report/findings.ts";
import {
  addRunFlags,
  defaultOutFor,
  processWorkers,
  progressReporter,
  runSettings,
  textTable,
  type RunFlags,
} from "./run-options.ts";
import { onInterrupt } from "./progress.ts";
import { parseTuneConfig } from "../tune/config.ts";
import { runTune, type TuneRun } from "../tune/run.ts";
import { selectTasks } from "../runner/context.ts";

/** Demo sizes: "small" is what `npm run demo` runs; "tiny" is for tests. */
export const DEMO_SIZES = {
  tiny: { tasks: 4, idealSeeds: 2, maxInstances: 4, k: 2, e2eSeeds: 1, sweepSeeds: 1, sweepTasks: 4, evalTasks: 2 },
  // 3 forward seeds per task give ~50 failed runs for experiment 1, so Success@1 gaps of ~20
  // points can clear noise; the recovery evaluation runs on the first 6 tasks (a few seconds).
  small: { tasks: 0, idealSeeds: 3, maxInstances: 64, k: 5, e2eSeeds: 3, sweepSeeds: 1, sweepTasks: 24, evalTasks: 6 },
} as const;
export type DemoSize = keyof typeof DEMO_SIZES;

/** The three demo configs. */
export function demoConfigs(size: DemoSize): ExperimentConfig[] {
  const z = DEMO_SIZES[size];
  const env = z.tasks > 0 ? { kind: "simdesk", limit: z.tasks } : { kind: "simdesk" };
  return [
    parseExperimentConfig(
      {
        kind: "ideal-recovery",
        name: "demo-ideal-recovery",
        env,
        seeds: { count: z.idealSeeds },
        forward: { kind: "sim", profile: "default" },
        detector: { kind: "sim", profile: "decent" },
        selector: { kind: "sim", profile: "accurate" },
        k: z.k,
        maxInstances: z.maxInstances,
        options: { maxForwardSteps: 30 },
      },
      "demo.ideal",
    ),
    parseExperimentConfig(
      {
        kind: "end-to-end",
        name: "demo-end-to-end",
        env,
        seeds: { count: z.e2eSeeds },
        // The two pairs differ only in the recoverer. The detector is the "noisy" profile (recall 0.6,
        // 10% false alarms per step), closer to an LLM judge than "decent": behind a precise detector a
        // weak recoverer is rarely asked to act on a run that was fine, and it gains too (README).
        pairs: [
          {
            name: "skilled",
            forward: { kind: "sim", profile: "default" },
            recovery: { kind: "sim", profile: "skilled" },
            detector: { kind: "sim", profile: "noisy" },
            selector: { kind: "sim", profile: "accurate" },
          },
          {
            name: "weak",
            baseline: false,
            forward: { kind: "sim", profile: "default" },
            recovery: { kind: "sim", profile: "weak" },
            detector: { kind: "sim", profile: "noisy" },
            selector: { kind: "sim", profile: "accurate" },
          },
        ],
        maxRecoveryIterations: [1, 3, 5],
        options: { maxForwardSteps: 30 },
      },
      "demo.e2e",
    ),
    parseExperimentConfig(
      {
        kind: "sweep",
        name: "demo-freeze-window-sweep",
        env: z.tasks > 0 ? env : { kind: "simdesk", sample: z.sweepTasks },
        seeds: { count: z.sweepSeeds },
        pair: {
          name: "skilled",
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: { kind: "sim", profile: "noisy" },
        },
        preset: "freeze-window",
        maxRecoveryIterations: [3],
        baseline: false,
        options: { maxForwardSteps: 30 },
      },
      "demo.sweep",
    ),
  ];
}

/**
 * The demo's small race (retrace tune): a weak vs a skilled recoverer crossed with freeze window 0
 * and 10, on 4 tasks, 1 new seed a round, at most 6 seeds: a few seconds, in `<demo>/race`.
 */
export const DEMO_RACE = {
  kind: "tune",
  name: "demo-race",
  env: { kind: "simdesk", sample: 4 },
  options: { maxForwardSteps: 25 },
  pair: {
    name: "demo",
    forward: { kind: "sim", profile: "sloppy" },
    recovery: { kind: "sim", profile: "skilled" },
    detector: { kind: "sim", profile: "decent" },
  },
  space: { "pair.recovery.profile": ["weak", "skilled"], "options.freezeWindow": [0, 10] },
  race: { seedsPerRound: 1, maxSeedsPerBatch: 6, maxEpisodes: 96 },
};

/** Run the demo's race into `<out>/race` (its rounds share the demo's blobs). */
async function demoRace(
  out: string,
  runtime: ReturnType<typeof createSimDeskRuntime>,
  resume: boolean,
): Promise<TuneRun> {
  const config = parseTuneConfig(DEMO_RACE, "demo.race");
  const tasks = selectTasks(runtime, config.parsed.env).map((t) => t.id);
  return runTune(config, {
    out: join(out, "race"),
    resume,
    tasks,
    runGroup: async (cfg, dir, again) =>
      (
        await runExperiment(cfg, runtime, {
          out: dir,
          resume: again,
          workers: 1,
          blobsDir: join(out, "blobs"),
          osworldFiles: false,
          episodeRecords: "pack",
        })
      ).lines,
  });
}

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;

/**
 * Check the paper's findings against the demo's numbers (experiments/report/findings.ts): paired by task and seed, from
 * the runs' own episodes.
 */
export function demoFindings(
  ideal: ExperimentRun,
  e2e: ExperimentRun,
  plan?: { instances: Array<{ fallback: boolean }> },
  recovery?: RecoveryEvalReport,
  e2eConfig?: EndToEndConfig,
  recoveryRuns?: readonly RecoveryRun[],
): Finding[] {
  return computeFindings({
    ideal: ideal.summary,
    idealLines: ideal.lines,
    e2e: e2e.summary,
    e2eLines: e2e.lines,
    e2eConfig,
    plan,
    recovery,
    recoveryRuns,
  });
}

/** The line under the demo's ideal-recovery table. */
export const TABLE1_GLOSSARY =
  "  restore to: the recovery step R a failed run restarts from (E = the detector's first error step; R=0 = the start, R=E-1 = the step before the error, R=E-random = a random step before it); Success@K = share of failed runs solved by at least one of K fresh continuations from R.";
/** The line under the demo's end-to-end and sweep table. */
export const TABLE2_GLOSSARY =
  "  rec att/ep = recovery attempts per episode; rec steps/ep = recovery steps per episode; recov. ability = share of runs that went off track and came back on track; 95% CI = Wilson interval. The findings below compare conditions on discordant pairs: (task, seed) units where one condition solved the task and the other did not.";

/** The terminal table of the demo. */
export function demoTable(summaries: ExperimentSummary[]): string {
  const rows: string[][] = [];
  for (const s of summaries) {
    if (s.successAtK?.length) {
      for (const c of s.successAtK)
        rows.push([
          "ideal recovery",
          c.condition,
          String(c.instances),
          ...[0, 2, 4].map((i) => (c.curve[i] ? pct(c.curve[i]) : "-")),
          "",
          "",
        ]);
    }
  }
  const table1 = textTable(
    ["experiment", "restore to", "failed runs", "Success@1", "Success@3", "Success@5", "", ""].slice(0, 6),
    rows.map((r) => r.slice(0, 6)),
  );
  const rows2: string[][] = [];
  for (const s of summaries.filter((x) => x.kind !== "ideal-recovery"))
    for (const c of s.conditions)
      rows2.push([
        s.kind === "sweep" ? "freeze sweep" : "end-to-end",
        conditionLabel(c.condition),
        `${c.success.successes}/${c.success.n}`,
        pct(c.success),
        `${(100 * c.success.lo).toFixed(0)}-${(100 * c.success.hi).toFixed(0)}%`,
        c.meanRecoveryAttempts.toFixed(2),
        c.meanRecoverySteps.toFixed(1),
        c.stability.recoveryAbility === null ? "-" : `${(100 * c.stability.recoveryAbility).toFixed(0)}%`,
      ]);
  const table2 = textTable(
    ["experiment", "condition", "succ/n", "success", "95% CI", "rec att/ep", "rec steps/ep", "recov. ability"],
    rows2,
  );
  return `${table1}\n${TABLE1_GLOSSARY}\n\n${table2}\n${TABLE2_GLOSSARY}`;
}

/**
 * Remove the render memos (`blobs/derived/`: SVG hash -> PNG ref, one 64-byte file per screen, a
 * disk block each) of every blob store in the demo folder: they only spare re-rendering while the
 * runs go on; a resumed demo re-renders what it needs.
 */
function dropRenderMemos(dir: string, depth = 3): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    if (e.name === "blobs") rmSync(join(dir, e.name, "derived"), { recursive: true, force: true });
    else if (depth > 0 && !/^[0-9a-f]{2}$/.test(e.name)) dropRenderMemos(join(dir, e.name), depth - 1);
  }
}

/** Run the demo into `out`; returns the summaries and findings. */
export async function runDemo(opts: {
  out: string;
  size: DemoSize;
  workers: number;
  seedBase: number;
  resume: boolean;
  quiet: boolean;
  /** Run workers as async tasks in this process instead of child processes. */ inProcess?: boolean;
}): Promise<{ summaries: ExperimentSummary[]; findings: Finding[]; report: string; race?: string }> {
  prepareOutDir(opts.out);
  // One demo per folder: a second `demo --resume` of it is refused (its runs, recovery evaluation and packs would
  // interleave).
  const unlock = acquireRunLock(opts.out);
  try {
    return await runDemoLocked(opts);
  } finally {
    unlock();
  }
}

async function runDemoLocked(
  opts: Parameters<typeof runDemo>[0],
): Promise<{ summaries: ExperimentSummary[]; findings: Finding[]; report: string; race?: string }> {
  const runtime = createSimDeskRuntime();
  const summaries: ExperimentSummary[] = [];
  const runs: ExperimentRun[] = [];
  const names = ["ideal", "e2e", "sweep"];
  const configs = demoConfigs(opts.size);
  const processes = opts.inProcess ? undefined : processWorkers(opts.workers);
  let recovery: RecoveryEvalReport | undefined;
  let recoveryRuns: RecoveryRun[] | undefined;
  let race: TuneRun | undefined;
  try {
    for (let i = 0; i < configs.length; i++) {
      const progress = progressReporter(opts.quiet, `${names[i].padEnd(5)} `);
      try {
        // One blob store for the three runs (a screen seen in several is stored once), no
        // per-episode OSWorld files (`retrace export --osworld <out>` writes them on demand), and the
        // episode records packed into one file per run instead of ~2,400 episode folders.
        const run = await runExperiment(configs[i], runtime, {
          out: join(opts.out, names[i]),
          blobsDir: join(opts.out, "blobs"),
          osworldFiles: false,
          episodeRecords: "pack",
          workers: opts.workers,
          seedBase: opts.seedBase,
          resume: opts.resume,
          processes,
          onProgress: progress.onProgress,
        });
        summaries.push(run.summary);
        runs.push(run);
      } finally {
        progress.stop();
      }
    }
    if (!opts.quiet) process.stderr.write("race: a small retrace tune race (recoverer x freeze window)\n");
    race = await demoRace(opts.out, runtime, opts.resume);
    if (!opts.quiet) process.stderr.write("recovery-eval: building a small dataset and evaluating recovery on it\n");
    ({ report: recovery, runs: recoveryRuns } = await runRecoveryEvalSuite({
      out: join(opts.out, "recovery-eval"),
      limit: DEMO_SIZES[opts.size].evalTasks,
      seed: opts.seedBase,
      recoveryBudget: [1, 3, 10],
    }));
    // ~1,700 screens (gzipped SVG, ~1 KB), ~3,000 state snapshots and ~800 accessibility trees:
    // one pack per folder instead of a 4 KB disk block or two per file (packages/core/src/blob-pack.ts); the
    // stores read the packs, so no reference changes. The recovery evaluation's folders stay as
    // files (\`eval-recovery --dataset\` copies states from them).
    packBlobFolder(join(opts.out, "blobs"), ".svgz");
    packBlobFolder(join(opts.out, "simdesk-states"), ".json");
    packBlobFolder(join(opts.out, "blobs", "ax"), ".json");
  } finally {
    processes?.close();
  }
  const findings = demoFindings(
    runs[0],
    runs[1],
    readPlan(join(opts.out, "ideal", "plan.json")),
    recovery,
    configs[1] as EndToEndConfig,
    recoveryRuns,
  );
  writeFileSync(join(opts.out, "findings.json"), JSON.stringify({ simulated: true, findings }, null, 2) + "\n");
  const report = await buildReport(opts.out, { title: "retrace demo (SIMULATED policies on SimDesk)" });
  // After the report: its screen check reads the memos instead of rendering every screen again (BlobStore.checkedSvgz).
  dropRenderMemos(opts.out);
  return { summaries, findings, report: report.file, ...(race && { race: race.result.decision }) };
}

export function register(program: Command): void {
  addRunFlags(
    program
      .command("demo")
      .description(
        "On SimDesk with seeded simulated policies: a small ideal-recovery experiment (Success@K per recovery step), an end-to-end ablation (skilled vs weak recoverer, max recovery iterations 1/3/5), a freeze-window sweep and a small recovery evaluation (implicit vs explicit, oracle agreement); checks the paper's findings against its own numbers and writes report.html. Results are SIMULATED.",
      )
      .option("--size <size>", `demo size: ${Object.keys(DEMO_SIZES).join(", ")}`, "small"),
    "runs/demo-<timestamp>",
  ).action(async (flags: RunFlags & { size: string }) => {
    const started = Date.now();
    const settings = runSettings(flags, defaultOutFor("demo"));
    if (!(flags.size in DEMO_SIZES))
      throw new ConfigError(`--size: one of ${Object.keys(DEMO_SIZES).join(", ")}`, { field: "size" });
    const offInterrupt = onInterrupt(settings.out);
    const { summaries, findings, report, race } = await runDemo({
      out: settings.out,
      size: flags.size as DemoSize,
      workers: settings.workers ?? 2,
      seedBase: settings.seedBase ?? 0,
      resume: settings.resume ?? false,
      quiet: settings.quiet,
    });
    offInterrupt();
    const w = process.stdout;
    w.write("\nretrace demo - SIMULATED: seeded simulated policies on SimDesk, not models.\n\n");
    w.write(demoTable(summaries) + "\n");
    const sweep = summaries[2];
    if (sweep.recommendation)
      w.write(
        `\nfreeze window: ${labelConditionsIn(
          sweep.recommendation.text,
          sweep.conditions.map((c) => c.condition),
        )}\n`,
      );
    if (race) w.write(`\nrace (recoverer x freeze window, retrace tune): ${race}\n`);
    w.write("\nDo the paper's findings hold in this simulation?\n");
    w.write(`  ${VERDICT_RULE}\n`);
    for (const f of findings) w.write(`  [${findingVerdict(f)}] ${f.claim}\n      ${f.evidence}\n`);
    w.write(`\nreport: ${report}\nwall time: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });
}
