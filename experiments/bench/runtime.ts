/**
 * The production-runtime benchmarks (issue 11), each a figure with its target and PASS/MISS:
 *
 * - checkpoint-bytes-per-step: SQLite file bytes / forward steps of a 200-step SimDesk episode
 *   (SqliteSaver, simulated agents, recoveries included); target <= 10 KB, flat in length.
 * - step-cost-growth: median wall time per forward step at steps 190-199 / steps 1-10 of that
 *   episode; target <= 1.5x.
 * - overlap: wall time of the wrapped agent / the bare agent loop, policy and detector 100 ms each
 *   (detector declares latency "model", so `detection: "auto"` overlaps it); target <= 1.10x.
 * - cascade: expensive-detector calls per step (per call the every-step detector makes), and the
 *   share of episodes with a true detection by the every-step detector in which the cascade also
 *   makes a true detection, on the same SimDesk episodes (restoration "none", so detections change
 *   nothing); targets <= 0.3 calls/step and >= 95% recall.
 * - e2e-throughput: episodes/min of `retrace run` on SimDesk at 1 and 2 process workers; target
 *   ratio >= 1.5 on a 2-core machine (two workers cannot do better than 2x; 1.5x leaves room for
 *   the parent process and the OS). Details: the cores the 1-worker run kept busy and the machine's
 *   own 2-process scaling measured right after (what the ratio can reach here, other load included).
 * - runtime-overhead: share of the batch run's busy main-thread CPU in LangGraph/LangChain/
 *   langsmith/checkpoint/uuid code; target < 10%.
 */
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { EpisodeResult } from "@retrace-cua/core/episode";
import { createCascadeDetector, DEFAULT_CASCADE_GATES } from "@retrace-cua/core/detectors/cascade";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import { SIMDESK_TASKS } from "@retrace-cua/simdesk/simdesk";
import { createSimAgents } from "@retrace-cua/simdesk/agents/index";
import { parseExperimentConfig } from "../config/load.ts";
import { runExperiment } from "../runner/experiment.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { processWorkers } from "../commands/run-options.ts";
import { onBenchExit } from "./cleanup.ts";
import { benchDesk, benchSqlite, neverDone, runLongEpisode, sqliteBytes } from "./long-episode.ts";
import type { BenchResult } from "./result.ts";
import { machineScaling } from "./cpu.ts";
import { machineryShare, profiled } from "./profile-share.ts";
import { InternalError } from "@retrace-cua/core/errors";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** checkpoint-bytes-per-step and step-cost-growth from one 200-step SQLite episode (and a 50-step one for flatness). */
async function checkpointLines(): Promise<BenchResult[]> {
  const desk = benchDesk("ckpt");
  try {
    const perStep: Record<number, number> = {};
    let growth = 0;
    for (const steps of [50, 200]) {
      const { path, saver } = benchSqlite(desk.dir, `s${steps}`);
      const { result, stepEndMs } = await runLongEpisode(desk, { steps, checkpointer: saver });
      await (saver as unknown as { close(): Promise<void> }).close();
      if (result.accounting.forwardSteps !== steps)
        throw new InternalError(`bench episode ran ${result.accounting.forwardSteps} of ${steps} steps`);
      perStep[steps] = sqliteBytes(path) / steps / 1024;
      if (steps === 200) {
        const d = stepEndMs.slice(1).map((t, i) => t - stepEndMs[i]); // d[i] = duration of step i+1
        growth = median(d.slice(189, 199)) / median(d.slice(0, 10));
      }
    }
    return [
      {
        name: "checkpoint-bytes-per-step",
        ratioOf: "KB per forward step, 200-step SimDesk episode, SqliteSaver",
        ratio: perStep[200],
        value: perStep[200],
        unit: "KB/step",
        target: "<= 10",
        pass: perStep[200] <= 10,
        details: { kbPerStepAt50: perStep[50] },
      },
      {
        name: "step-cost-growth",
        ratioOf: "median step time, steps 190-199 / steps 1-10",
        ratio: growth,
        value: growth,
        unit: "x",
        target: "<= 1.5",
        pass: growth <= 1.5,
        details: {},
      },
    ];
  } finally {
    await desk.close();
  }
}

/** overlap: wrapped / bare at 100 ms policy and detector latency. */
async function overlapLine(): Promise<BenchResult[]> {
  const desk = benchDesk("overlap");
  const STEPS = 20;
  const LAT = 100;
  try {
    const task = SIMDESK_TASKS[0];
    const slow = (p: ForwardPolicy): ForwardPolicy => ({
      name: p.name,
      simulated: true,
      propose: async (i) => (await delay(LAT), p.propose(i)),
    });
    // A detector that takes a model's time and finds nothing: the figure is the runtime's cost, not recoveries'.
    const quiet: ErrorDetector = {
      name: "quiet-100ms",
      simulated: true,
      latency: "model",
      detect: async () => (await delay(LAT), { isError: false, errorStep: null, reason: "fine", confidence: 0.9 }),
    };
    const bare = async () => {
      const a = createSimAgents({ task, groundTruth: desk.env, seed: 1 });
      const policy = slow(neverDone(a.policy));
      const t0 = performance.now();
      let obs = await desk.env.reset(task);
      const history: HistoryEntry[] = [];
      for (let t = 0; t < STEPS; t++) {
        const d = await policy.propose({ task, history, observation: obs, step: t, tick: t, blobs: desk.blobs });
        const before = obs;
        for (const act of d.actions) obs = (await desk.env.step(act)).observation;
        history.push({ step: t, observation: before, actions: d.actions });
      }
      return performance.now() - t0;
    };
    const wrapped = async (detection: "auto" | "sequential") => {
      const a = createSimAgents({ task, groundTruth: desk.env, seed: 1 });
      const t0 = performance.now();
      const r = await runEpisode({
        task,
        components: {
          policy: slow(neverDone(a.policy)),
          env: desk.env,
          blobs: desk.blobs,
          detector: quiet,
          recoverer: a.recoverer,
        },
        options: { seed: 1, maxForwardSteps: STEPS, detection },
      });
      if (r.accounting.forwardSteps !== STEPS) throw new InternalError("overlap bench episode ended early");
      return performance.now() - t0;
    };
    await bare();
    const b: number[] = [],
      o: number[] = [],
      s: number[] = [];
    for (let i = 0; i < 3; i++) {
      b.push(await bare());
      o.push(await wrapped("auto"));
      s.push(await wrapped("sequential"));
    }
    const ratio = median(o) / median(b);
    return [
      {
        name: "overlap",
        ratioOf: "wrapped / bare wall time, policy and detector 100 ms",
        ratio,
        value: ratio,
        unit: "x",
        target: "<= 1.10",
        pass: ratio <= 1.1,
        details: { sequentialRatio: median(s) / median(b), bareMsPerStep: median(b) / STEPS, loadAvg1m: loadavg()[0] },
      },
    ];
  } finally {
    await desk.close();
  }
}

/** cascade: calls per step and recall retained against the every-step detector, same episodes. */
async function cascadeLine(): Promise<BenchResult[]> {
  const desk = benchDesk("cascade");
  try {
    let flagged = 0,
      retained = 0,
      delaySum = 0,
      asked = 0,
      consulted = 0,
      everyCalls = 0;
    for (const task of SIMDESK_TASKS) {
      for (const seed of [1, 2, 3]) {
        const run = async (wrap: (d: ErrorDetector) => ErrorDetector): Promise<EpisodeResult> => {
          const a = createSimAgents({ task, groundTruth: desk.env, seed, forward: "sloppy" });
          // restoration "none": detections are recorded and change nothing, so both runs see the same episode
          return runEpisode({
            task,
            components: { policy: a.policy, env: desk.env, blobs: desk.blobs, detector: wrap(a.detector) },
            options: { seed, restoration: "none", maxForwardSteps: 30 },
            checkpointer: false,
          });
        };
        const every = await run((d) => d);
        const casc = await run((d) => createCascadeDetector({ gates: DEFAULT_CASCADE_GATES, detector: d }));
        // true detections only: the simulated detector labels its false alarms
        const firstError = (r: EpisodeResult) =>
          r.trajectory.steps.find(
            (st) => st.detection?.isError && !st.detection.reason.startsWith("simulated: false alarm"),
          )?.step;
        everyCalls += every.accounting.detectorCalls;
        consulted += every.accounting.detectorCalls;
        asked += casc.accounting.detectorGates?.asked ?? 0;
        const onset = firstError(every);
        if (onset === undefined) continue;
        flagged++;
        const caught = firstError(casc);
        if (caught !== undefined) {
          retained++;
          delaySum += Math.max(0, caught - onset);
        }
      }
    }
    const callsPerStep = asked / consulted;
    const recall = retained / flagged;
    return [
      {
        name: "cascade",
        ratioOf: "expensive detector calls per step",
        ratio: callsPerStep,
        value: callsPerStep,
        unit: "calls/step",
        target: "<= 0.3",
        pass: callsPerStep <= 0.3,
        details: {
          everyStepCalls: everyCalls,
          cascadeCalls: asked,
          episodes: SIMDESK_TASKS.length * 3,
          simulated: "yes",
        },
      },
      {
        name: "cascade-recall",
        ratioOf: "every-step detector's error episodes the cascade also flags",
        ratio: recall,
        value: recall,
        unit: "share",
        target: ">= 0.95",
        pass: recall >= 0.95,
        details: { flaggedEpisodes: flagged, retained, meanExtraDelaySteps: retained ? delaySum / retained : 0 },
      },
    ];
  } finally {
    await desk.close();
  }
}

/**
 * e2e-throughput: steady-state episodes/min of the experiment runner at 1 and 2 process workers
 * (the worker processes are started and warmed on a small run first: their start-up, a few
 * seconds of module loading, is paid once per `retrace run`, not per episode).
 */
function throughputConfigs() {
  const warm = parseExperimentConfig(
    {
      kind: "end-to-end",
      name: "bench-warm-up",
      env: { kind: "simdesk", limit: 2 },
      seeds: { count: 1 },
      pairs: [
        {
          name: "skilled",
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: { kind: "sim", profile: "decent" },
          selector: { kind: "sim", profile: "accurate" },
        },
      ],
      maxRecoveryIterations: [3],
      options: { maxForwardSteps: 30 },
    },
    "bench.warm",
  );
  const config = parseExperimentConfig(
    {
      kind: "end-to-end",
      name: "bench-throughput",
      env: { kind: "simdesk", limit: 24 },
      seeds: { count: 5 },
      pairs: [
        {
          name: "skilled",
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: { kind: "sim", profile: "decent" },
          selector: { kind: "sim", profile: "accurate" },
        },
      ],
      maxRecoveryIterations: [3],
      options: { maxForwardSteps: 30 },
    },
    "bench.e2e",
  );
  return { warm, config };
}

async function throughputLine(): Promise<BenchResult[]> {
  const { warm, config } = throughputConfigs();
  const ROUNDS = 3;
  const rates: Record<1 | 2, number[]> = { 1: [], 2: [] };
  const cores1: number[] = [];
  let episodes = 0;
  const out = mkdtempSync(join(tmpdir(), "retrace-bench-e2e-"));
  const pool = processWorkers(2)!;
  const stopPool = onBenchExit(() => pool.close());
  const dropOut = onBenchExit(() => rmSync(out, { recursive: true, force: true }));
  try {
    // Both set-ups warmed, then measured in alternation (1, 2, 1, 2, ...): load that comes and goes
    // on a shared machine hits both sides, and the medians are compared.
    await runExperiment(warm, createSimDeskRuntime(), { out: join(out, "warm-1"), workers: 1 });
    await runExperiment(warm, createSimDeskRuntime(), { out: join(out, "warm-2"), workers: 2, processes: pool });
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of [1, 2] as const) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        const dir = join(out, `run-${workers}-${round}`);
        const result = await runExperiment(config, createSimDeskRuntime(), {
          out: dir,
          workers,
          ...(workers === 2 ? { processes: pool } : {}),
        });
        const ms = performance.now() - t0;
        if (workers === 1) {
          const c = process.cpuUsage(c0);
          cores1.push((c.user + c.system) / 1000 / ms);
        }
        episodes = result.summary.conditions.reduce((a, c) => a + c.episodes, 0);
        rates[workers].push(episodes / (ms / 60_000));
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    stopPool();
    dropOut();
  }
  const perMin1 = median(rates[1]);
  const perMin2 = median(rates[2]);
  const ratio = perMin2 / perMin1;
  // What this machine gives two busy processes, measured now (other load included).
  const machine = await machineScaling(2);
  return [
    {
      name: "e2e-throughput",
      ratioOf: `median episodes/min at 2 workers / 1 worker (${ROUNDS} alternating rounds)`,
      ratio,
      value: ratio,
      unit: "x",
      target: ">= 1.5",
      pass: ratio >= 1.5,
      details: {
        perMin1,
        perMin2,
        min1: Math.min(...rates[1]),
        max1: Math.max(...rates[1]),
        min2: Math.min(...rates[2]),
        max2: Math.max(...rates[2]),
        episodes,
        coresBusyAt1Worker: median(cores1),
        machineScaling2: machine,
        loadAvg1m: loadavg()[0],
      },
    },
  ];
}

/**
 * runtime-overhead: share of the main thread's busy CPU samples spent in LangGraph, LangChain core,
 * langsmith, the checkpoint packages and uuid during a batch run of the experiment runner (one
 * worker in this process; see profile-share.ts). Target < 10% (issue 11). Measured in steady
 * state, as a long run spends its time: the same 240-episode run goes once unprofiled first, so
 * that V8 has compiled the runtime's code paths (on a cold process the share reads a few points
 * higher: LangGraph's per-episode code runs once per episode and is still interpreted).
 */
async function overheadLine(): Promise<BenchResult[]> {
  const { config } = throughputConfigs();
  const out = mkdtempSync(join(tmpdir(), "retrace-bench-overhead-"));
  try {
    await runExperiment(config, createSimDeskRuntime(), { out: join(out, "warm"), workers: 1 });
    const { profile } = await profiled(() =>
      runExperiment(config, createSimDeskRuntime(), { out: join(out, "run"), workers: 1 }),
    );
    const share = machineryShare(profile);
    const pkgs = Object.fromEntries(Object.entries(share.byPackage).map(([k, v]) => [`${k}Ms`, Math.round(v)]));
    return [
      {
        name: "runtime-overhead",
        ratioOf: "share of busy main-thread CPU in LangGraph/LangChain/langsmith/checkpoint/uuid code, batch run",
        ratio: share.machinery,
        value: share.machinery,
        unit: "share",
        target: "< 0.10",
        pass: share.machinery < 0.1,
        details: { busyMs: Math.round(share.busyMs), idleMs: Math.round(share.idleMs), ...pkgs },
      },
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult[]> {
  return [
    ...(await checkpointLines()),
    ...(await overlapLine()),
    ...(await cascadeLine()),
    ...(await throughputLine()),
    ...(await overheadLine()),
  ];
}

/** The individual lines, so `npm run bench <id>` can run one. */
export const LINES = {
  "checkpoint-bytes-per-step": checkpointLines,
  "step-cost-growth": checkpointLines,
  overlap: overlapLine,
  cascade: cascadeLine,
  "e2e-throughput": throughputLine,
  "runtime-overhead": overheadLine,
};
