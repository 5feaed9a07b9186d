/**
 * `retrace demo` (= `npm run demo`): on SimDesk with seeded simulated policies, a small but honest
 * version of experiment 1 (ideal recovery, Success@K per recovery step), experiment 2 (no
 * recovery vs retry caps, skilled and weak recoverers) and a freeze-window sweep; then checks the
 * paper's qualitative findings against its own numbers, prints a table and writes report.html;
 * a small recovery evaluation (implicit vs explicit recovery, oracle agreement) goes into
 * `<out>/recovery-eval/` so the report shows its tables too.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../../src/errors.ts";
import { prepareOutDir } from "../../src/store/out-dir.ts";
import { twoProportionPValue, type Proportion } from "../../src/metrics/wilson.ts";
import { parseExperimentConfig } from "../config/load.ts";
import type { ExperimentConfig } from "../config/schema.ts";
import { runExperiment } from "../runner/experiment.ts";
import { readPlan } from "../ideal/plan.ts";
import type { ExperimentSummary } from "../runner/summary.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { buildReport } from "../report/index.ts";
import { runRecoveryEvalSuite } from "../recovery-eval/run.ts";
import { findingVerdict, type Finding } from "../report/html.ts";
import { addRunFlags, defaultOutFor, processWorkers, progressReporter, runSettings, textTable, type RunFlags } from "./run-options.ts";

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
    parseExperimentConfig({
      kind: "ideal-recovery", name: "demo-ideal-recovery", env, seeds: { count: z.idealSeeds },
      forward: { kind: "sim", profile: "default" }, detector: { kind: "sim", profile: "decent" }, selector: { kind: "sim", profile: "accurate" },
      k: z.k, maxInstances: z.maxInstances, options: { maxForwardSteps: 30 },
    }, "demo.ideal"),
    parseExperimentConfig({
      kind: "end-to-end", name: "demo-end-to-end", env, seeds: { count: z.e2eSeeds },
      // The two pairs differ only in the recoverer. The detector is the "noisy" profile (recall 0.6,
      // 10% false alarms per step), closer to an LLM judge than "decent": behind a precise detector a
      // weak recoverer is rarely asked to act on a run that was fine, and it gains too (README).
      pairs: [
        { name: "skilled", forward: { kind: "sim", profile: "default" }, recovery: { kind: "sim", profile: "skilled" }, detector: { kind: "sim", profile: "noisy" }, selector: { kind: "sim", profile: "accurate" } },
        { name: "weak", baseline: false, forward: { kind: "sim", profile: "default" }, recovery: { kind: "sim", profile: "weak" }, detector: { kind: "sim", profile: "noisy" }, selector: { kind: "sim", profile: "accurate" } },
      ],
      maxRecoveryIterations: [1, 3, 5], options: { maxForwardSteps: 30 },
    }, "demo.e2e"),
    parseExperimentConfig({
      kind: "sweep", name: "demo-freeze-window-sweep", env: z.tasks > 0 ? env : { kind: "simdesk", sample: z.sweepTasks }, seeds: { count: z.sweepSeeds },
      pair: { name: "skilled", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" }, detector: { kind: "sim", profile: "noisy" } },
      preset: "freeze-window", retryCap: [3], baseline: false, options: { maxForwardSteps: 30 },
    }, "demo.sweep"),
  ];
}

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
const pv = (a: Proportion, b: Proportion) => twoProportionPValue(a, b);
const noise = (p: number) => (p < 0.05 ? `p=${p.toFixed(3)}, beyond noise` : `p=${p.toFixed(2)}, within noise`);

/** Check the paper's three qualitative findings against the demo's numbers. */
export function demoFindings(ideal: ExperimentSummary, e2e: ExperimentSummary, plan?: { instances: Array<{ fallback: boolean }> }): Finding[] {
  const out: Finding[] = [];
  const curve = (c: string) => ideal.successAtK?.find((x) => x.condition === c);
  const zero = curve("R=0"), em1 = curve("R=E-1");
  if (zero && em1 && zero.instances > 0) {
    const others = (ideal.successAtK ?? []).filter((c) => c.condition !== "R=0");
    const a = em1.curve[0], b = zero.curve[0];
    const last = em1.curve.length - 1;
    const gap1 = a.rate - b.rate, gapK = em1.curve[last].rate - zero.curve[last].rate;
    const trend = gap1 <= 0 ? "no lead to narrow" : gapK < 0 ? "full resets catch up and overtake it" : gapK < gap1 ? "the gap narrows" : "the gap does not narrow";
    const beating = others.filter((c) => c.curve[0].rate > b.rate).length;
    out.push({
      claim: "Restoring to a past state beats a full reset at small K (Finding 1: every past-state strategy beats R=0 at K=1).",
      holds: beating === others.length,
      significant: pv(a, b) < 0.05,
      evidence: `Success@1: R=E-1 ${pct(a)} vs R=0 ${pct(b)} over ${em1.instances} failed runs (${noise(pv(a, b))}); ${beating} of ${others.length} past-state strategies beat R=0 at K=1 (${others.map((c) => `${c.condition} ${pct(c.curve[0])}`).join(", ")}). At K=${last + 1}: R=E-1 ${pct(em1.curve[last])} vs R=0 ${pct(zero.curve[last])} (${trend} as K grows).${plan ? ` E comes from the simulated detector: ${plan.instances.filter((i) => i.fallback).length} of ${plan.instances.length} failed runs got no error from it and were left out of the continuations.` : ""}`,
    });
  } else out.push({ claim: "Restoring to a past state beats a full reset at small K (Finding 1).", holds: null, evidence: "no failed forward runs to restore" });
  const cond = (id: string) => e2e.conditions.find((c) => c.condition === id);
  const base = cond("skilled.no-recovery"), s1 = cond("skilled.max-rec-1"), s5 = cond("skilled.max-rec-5");
  if (base && s1 && s5) {
    out.push({
      claim: "A skilled recoverer gains from more recovery attempts (Finding 6).",
      holds: s5.success.rate > s1.success.rate && s5.success.rate > base.success.rate,
      significant: pv(s5.success, base.success) < 0.05,
      evidence: `skilled: no recovery ${pct(base.success)}, 1 attempt ${pct(s1.success)}, 3 ${pct(cond("skilled.max-rec-3")?.success ?? s1.success)}, 5 ${pct(s5.success)} (5 vs 1: ${noise(pv(s5.success, s1.success))}; 5 vs none: ${noise(pv(s5.success, base.success))}).`,
    });
  }
  // The weak pair shares the skilled pair's forward policy and seeds, hence its baseline.
  const wbase = cond("weak.no-recovery") ?? base;
  const weak = [1, 3, 5].map((n) => cond(`weak.max-rec-${n}`)).filter((c): c is NonNullable<typeof c> => !!c);
  if (wbase && weak.length) {
    const worst = weak.reduce((a, b) => (b.success.rate < a.success.rate ? b : a));
    out.push({
      claim: "A weak recoverer can lose against no recovery (Finding 6).",
      holds: worst.success.rate < wbase.success.rate,
      significant: pv(worst.success, wbase.success) < 0.05,
      evidence: `weak (same forward policy and seeds): no recovery ${pct(wbase.success)}, ${weak.map((c) => `${c.condition.replace("weak.", "")} ${pct(c.success)}`).join(", ")}; worst ${worst.condition} vs none: ${noise(pv(worst.success, wbase.success))}.`,
    });
  }
  return out;
}

/** The terminal table of the demo. */
export function demoTable(summaries: ExperimentSummary[]): string {
  const rows: string[][] = [];
  for (const s of summaries) {
    if (s.successAtK?.length) {
      for (const c of s.successAtK) rows.push(["ideal recovery", c.condition, String(c.instances), ...[0, 2, 4].map((i) => (c.curve[i] ? pct(c.curve[i]) : "-")), "", ""]);
    }
  }
  const table1 = textTable(["experiment", "restore to", "failed runs", "Success@1", "Success@3", "Success@5", "", ""].slice(0, 6), rows.map((r) => r.slice(0, 6)));
  const rows2: string[][] = [];
  for (const s of summaries.filter((x) => x.kind !== "ideal-recovery"))
    for (const c of s.conditions)
      rows2.push([s.kind === "sweep" ? "freeze sweep" : "end-to-end", c.condition, `${c.success.successes}/${c.success.n}`, pct(c.success), `${(100 * c.success.lo).toFixed(0)}-${(100 * c.success.hi).toFixed(0)}%`, c.meanRecoveryAttempts.toFixed(2), c.meanRecoverySteps.toFixed(1), c.stability.recoveryAbility === null ? "-" : `${(100 * c.stability.recoveryAbility).toFixed(0)}%`]);
  const table2 = textTable(["experiment", "condition", "succ/n", "success", "95% CI", "rec att/ep", "rec steps/ep", "recov. ability"], rows2);
  return `${table1}\n\n${table2}`;
}

/** Run the demo into `out`; returns the summaries and findings. */
export async function runDemo(opts: { out: string; size: DemoSize; workers: number; seedBase: number; resume: boolean; quiet: boolean; /** Run workers as async tasks in this process instead of child processes. */ inProcess?: boolean }): Promise<{ summaries: ExperimentSummary[]; findings: Finding[]; report: string }> {
  prepareOutDir(opts.out);
  const runtime = createSimDeskRuntime();
  const summaries: ExperimentSummary[] = [];
  const names = ["ideal", "e2e", "sweep"];
  const configs = demoConfigs(opts.size);
  const processes = opts.inProcess ? undefined : processWorkers(opts.workers);
  try {
    for (let i = 0; i < configs.length; i++) {
      const progress = progressReporter(opts.quiet, `${names[i].padEnd(5)} `);
      try {
        const run = await runExperiment(configs[i], runtime, { out: join(opts.out, names[i]), workers: opts.workers, seedBase: opts.seedBase, resume: opts.resume, processes, onProgress: progress.onProgress });
        summaries.push(run.summary);
      } finally {
        progress.stop();
      }
    }
    if (!opts.quiet) process.stderr.write("recovery-eval: building a small dataset and evaluating recovery on it\n");
    await runRecoveryEvalSuite({ out: join(opts.out, "recovery-eval"), limit: DEMO_SIZES[opts.size].evalTasks, seed: opts.seedBase, budgets: [1, 3, 10] });
  } finally {
    processes?.close();
  }
  const findings = demoFindings(summaries[0], summaries[1], readPlan(join(opts.out, "ideal", "plan.json")));
  writeFileSync(join(opts.out, "findings.json"), JSON.stringify({ simulated: true, findings }, null, 2) + "\n");
  const report = await buildReport(opts.out, { title: "retrace demo (SIMULATED policies on SimDesk)", episodesPerRun: 10 });
  return { summaries, findings, report: report.file };
}

export function register(program: Command): void {
  addRunFlags(
    program
      .command("demo")
      .description("On SimDesk with seeded simulated policies: a small ideal-recovery experiment (Success@K per recovery step), an end-to-end ablation (skilled vs weak recoverer, retry caps 1/3/5), a freeze-window sweep and a small recovery evaluation (implicit vs explicit, oracle agreement); checks the paper's findings against its own numbers and writes report.html. Results are SIMULATED.")
      .option("--size <size>", `demo size: ${Object.keys(DEMO_SIZES).join(", ")}`, "small"),
    "runs/demo-<timestamp>",
  ).action(async (flags: RunFlags & { size: string }) => {
    const started = Date.now();
    const settings = runSettings(flags, defaultOutFor("demo"));
    if (!(flags.size in DEMO_SIZES)) throw new ConfigError(`--size: one of ${Object.keys(DEMO_SIZES).join(", ")}`, { field: "size" });
    const { summaries, findings, report } = await runDemo({ out: settings.out, size: flags.size as DemoSize, workers: settings.workers ?? 2, seedBase: settings.seedBase ?? 0, resume: settings.resume ?? false, quiet: settings.quiet });
    const w = process.stdout;
    w.write("\nretrace demo - SIMULATED: seeded simulated policies on SimDesk, not models.\n\n");
    w.write(demoTable(summaries) + "\n");
    const sweep = summaries[2];
    if (sweep.recommendation) w.write(`\nfreeze window: ${sweep.recommendation.text}\n`);
    w.write("\nDo the paper's findings hold in this simulation?\n");
    for (const f of findings) w.write(`  [${findingVerdict(f)}] ${f.claim}\n      ${f.evidence}\n`);
    w.write(`\nreport: ${report}\nwall time: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });
}
