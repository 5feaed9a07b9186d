/**
 * `retrace simdesk --task ID --out DIR`: run one SimDesk task with its reference plan (or the
 * seeded simulated forward policy, `--policy sim`) and write an OSWorld-style folder.
 */
import { join } from "node:path";
import type { Command } from "commander";
import type { Action } from "@retrace-cua/core/action";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { StepRecord, Trajectory } from "@retrace-cua/core/trajectory";
import type { Evaluation } from "@retrace-cua/core/task";
import { writeEpisodeOutput } from "@retrace-cua/core/store/episode-output";
import { createSimDesk, getSimDeskTask } from "@retrace-cua/simdesk/simdesk";
import { createSimForwardPolicy } from "@retrace-cua/simdesk/agents/index";
import { seedFlag } from "./common-flags.ts";
import { parseIntFlag } from "./numeric-flags.ts";

/** Options of {@link runSimDeskTask}. */
export interface SimDeskRunOptions {
  taskId: string;
  out: string;
  /** "plan" replays the reference plan; "sim" runs the seeded simulated forward policy. @default "plan" */
  policy?: "plan" | "sim";
  /** @default 0 */
  seed?: number;
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /** Turn on seeded pop-ups and the ticking clock. @default false */
  noise?: boolean;
}

/** What a run produced. */
export interface SimDeskRunResult {
  taskId: string;
  steps: number;
  evaluation: Evaluation;
  simulated: boolean;
  out: string;
}

/** Parse "1280x800". */
export function parseSize(text: string): { width: number; height: number } {
  const m = /^(\d{3,4})x(\d{3,4})$/.exec(text.trim());
  if (!m) throw new ConfigError(`--size: expected WIDTHxHEIGHT such as 1280x800, got "${text}"`, { field: "size" });
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** A forward policy that replays a fixed action list, then says DONE. */
function planPolicy(plan: readonly Action[]): ForwardPolicy {
  return {
    name: "reference-plan",
    simulated: false,
    async propose({ step }) {
      return step < plan.length
        ? { actions: [plan[step]], response: `reference plan step ${step}` }
        : { actions: [{ type: "DONE" }], response: "reference plan complete" };
    },
  };
}

/** Run one task and write its episode folder. */
export async function runSimDeskTask(options: SimDeskRunOptions): Promise<SimDeskRunResult> {
  const task = getSimDeskTask(options.taskId);
  const seed = options.seed ?? 0;
  const simulated = options.policy === "sim";
  const blobs = new BlobStore({ dir: join(options.out, ".simdesk", "blobs") });
  const env = createSimDesk({
    blobs,
    width: options.width,
    height: options.height,
    noise: options.noise ? { seed, popups: true, clock: true } : undefined,
  });
  const policy: ForwardPolicy = simulated ? createSimForwardPolicy({ task, seed }) : planPolicy(task.plan);
  const maxSteps = task.plan.length * 2 + 5;
  const history: HistoryEntry[] = [];
  const steps: StepRecord[] = [];
  let observation = await env.reset(task);
  try {
    for (let t = 0; t < maxSteps; t++) {
      const d = await policy.propose({
        task: { id: task.id, instruction: task.instruction },
        history,
        observation,
        step: t,
        tick: t,
        blobs,
      });
      const acted = observation;
      const before = observation.screenshot;
      const started = performance.now();
      const infos: Record<string, unknown>[] = [];
      const done = d.actions.some((a) => a.type === "DONE" || a.type === "FAIL");
      for (const a of d.actions) {
        const out = await env.step(a);
        observation = out.observation;
        infos.push(out.info);
      }
      history.push({ step: t, observation: acted, actions: d.actions, response: d.response, memo: d.memo });
      steps.push({
        seq: t,
        role: "forward",
        step: t,
        actions: d.actions,
        response: d.response,
        failure: d.failure,
        before,
        after: observation.screenshot,
        info: { ...(infos.length === 1 ? infos[0] : { actions: infos }), stateId: observation.stateId },
        envMs: Math.round(performance.now() - started),
      });
      if (done) break;
    }
    const evaluation = await env.evaluate();
    const trajectory: Trajectory = { taskId: task.id, steps, events: [], result: evaluation };
    await writeEpisodeOutput({ dir: options.out, trajectory, blobs, simulated });
    return { taskId: task.id, steps: steps.length, evaluation, simulated, out: options.out };
  } finally {
    await env.close();
  }
}

export function register(program: Command): void {
  program
    .command("simdesk")
    .description("run one SimDesk task (reference plan or simulated policy) and write OSWorld-style output")
    .requiredOption("-t, --task <id>", "task id (see `retrace tasks`)")
    .requiredOption("-o, --out <dir>", "output folder (traj.jsonl, step_N.png, result.txt)")
    .option("-p, --policy <kind>", "plan (reference plan) or sim (seeded simulated forward policy)", "plan")
    .addOption(seedFlag("seed for the simulated policy and the noise"))
    .option("--size <WxH>", "screen size", "1280x800")
    .option("--noise", "seeded notification pop-ups and a ticking taskbar clock")
    .action(
      async (flags: { task: string; out: string; policy: string; seed: string; size: string; noise?: boolean }) => {
        if (flags.policy !== "plan" && flags.policy !== "sim")
          throw new ConfigError(`--policy: expected "plan" or "sim", got "${flags.policy}"`, { field: "policy" });
        const seed = parseIntFlag("--seed", flags.seed, { expect: "expected an integer" });
        const size = parseSize(flags.size);
        const r = await runSimDeskTask({
          taskId: flags.task,
          out: flags.out,
          policy: flags.policy,
          seed,
          ...size,
          noise: flags.noise === true,
        });
        const label = r.simulated ? " (simulated)" : " (reference plan)";
        process.stdout.write(
          `${r.taskId}: score ${r.evaluation.score} after ${r.steps} steps${label} - ${r.evaluation.detail ?? ""}\n`,
        );
        if (r.simulated) process.stdout.write("simulated: results come from a seeded simulated policy, not a model\n");
        process.stdout.write(`wrote ${r.out}/traj.jsonl, step_N.png, result.txt\n`);
      },
    );
}
