/**
 * The post-action settle window on the core's paths (packages/core/src/settle.ts): dataset rollouts, N-replay
 * filtering, target replays, perturbation and the genuine-error replay (buildRecoveryDataset);
 * error-state reconstruction, implicit and explicit recovery and R_TC (evaluateRecovery). Real
 * SimDesk, real timers: every executed step is followed by exactly one observation taken at least
 * `settleMs` later, and no step waits twice (the observations added are exactly one per step).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { buildRecoveryDataset, type DatasetBuildResult } from "../../packages/evaluation/src/dataset/build.ts";
import { evaluateRecovery, type RecoveryRun } from "../../packages/evaluation/src/eval/run.ts";
import { executeStep } from "../../packages/evaluation/src/replay/replay.ts";
import { settleAfterStep } from "../../packages/core/src/settle.ts";
import { getSimDeskTask, type SimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { createSimForwardPolicy } from "../../packages/simdesk/src/agents/index.ts";
import {
  createEvalSimDesk,
  simulatedDatasetPolicies,
  simulatedVariants,
  taskMap,
} from "../../experiments/recovery-eval/simdesk.ts";
import { recordEnvOps, settleTrace, type EnvOp } from "../helpers/env-ops.ts";

const SETTLE = 25;
const dir = mkdtempSync(join(tmpdir(), "retrace-settle-src-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TASKS = ["files-rename-draft", "files-trash-two"].map((id) => getSimDeskTask(id));

/** Build a small dataset and evaluate it, recording the environment's calls of each phase. */
async function buildAndEvaluate(
  settleMs: number | undefined,
  name: string,
): Promise<{ build: DatasetBuildResult; runs: RecoveryRun[]; buildOps: EnvOp[]; evalOps: EnvOp[] }> {
  const blobs = new BlobStore({ dir: join(dir, name, "blobs") });
  const desk = createEvalSimDesk(blobs, join(dir, name, "states"));
  const buildOps: EnvOp[] = [];
  const p = simulatedDatasetPolicies(desk, 2);
  const build = await buildRecoveryDataset({
    env: recordEnvOps(desk, buildOps),
    blobs,
    tasks: TASKS,
    settleMs,
    dynamicMasks: false,
    forwardPolicy: ({ task }) =>
      createSimForwardPolicy({ task: task as SimDeskTask, seed: 0, slipRate: 0, noticeRate: 0 }),
    perturbationPolicy: p.perturbationPolicy,
    distances: [1, 2],
    seedStepsPerTrajectory: 1,
    replays: 2,
    seed: 2,
  });
  const evalOps: EnvOp[] = [];
  const runs = await evaluateRecovery({
    env: recordEnvOps(desk, evalOps),
    blobs,
    tasks: taskMap(TASKS),
    samples: build.samples,
    variants: simulatedVariants(desk, 2, { contexts: false, weak: false }),
    recoveryBudget: [2],
    settleMs,
    reuseSnapshots: false,
    rationale: false,
  });
  await desk.close();
  return { build, runs, buildOps, evalOps };
}

describe("settleMs on the dataset and evaluation paths", () => {
  it("waits once after every executed step of the build and the evaluation, and changes no outcome on SimDesk", async () => {
    const plain = await buildAndEvaluate(undefined, "plain");
    const settled = await buildAndEvaluate(SETTLE, "settled");
    expect(settled.build.samples.length).toBeGreaterThan(0);
    expect(settled.build.settings.settleMs).toBe(SETTLE); // recorded in the dataset manifest's settings
    expect(plain.build.settings.settleMs).toBe(0);
    for (const [phase, a, b] of [
      ["build", plain.buildOps, settled.buildOps],
      ["evaluation", plain.evalOps, settled.evalOps],
    ] as const) {
      const t0 = settleTrace(a);
      const t1 = settleTrace(b);
      const calls = (ops: readonly EnvOp[]) => ops.filter((o) => o.op === "step").length;
      expect(calls(b), phase).toBe(calls(a)); // same work
      expect(t1.stepRuns, phase).toBeGreaterThan(10);
      expect(t1.stepRuns, phase).toBe(calls(b)); // one action per step here: every step is settled on its own
      expect(t1.unsettled, phase).toBe(0); // every executed step observed again after the wait...
      expect(Math.min(...t1.gaps), phase).toBeGreaterThanOrEqual(SETTLE - 2); // ...at least settleMs later
      expect(t1.observes - t0.observes, phase).toBe(t1.stepRuns); // exactly one wait per step: none doubled
      expect(t0.gaps, phase).toEqual([]); // without settleMs nothing waits
    }
    const verdicts = (runs: RecoveryRun[]) =>
      runs.map((r) => [r.sampleId, r.variant, r.status, r.verdict?.success, r.actions.join("|")]);
    expect(verdicts(settled.runs)).toEqual(verdicts(plain.runs));
    expect(
      settled.runs.some((r) => r.policyKind === "implicit") && settled.runs.some((r) => r.policyKind === "explicit"),
    ).toBe(true);
  }, 120_000);

  it("a step of only terminal actions executes nothing and does not wait; an aborted wait throws", async () => {
    const blobs = new BlobStore({ dir: join(dir, "unit", "blobs") });
    const desk = createEvalSimDesk(blobs, join(dir, "unit", "states"));
    const ops: EnvOp[] = [];
    const env = recordEnvOps(desk, ops);
    const o0 = await env.reset(TASKS[0]);
    const same = await executeStep(env, [{ type: "DONE" }], o0, { settleMs: 10_000 });
    expect(same).toBe(o0);
    expect(ops.map((o) => o.op)).toEqual(["reset"]);
    const ac = new AbortController();
    const waiting = settleAfterStep(env, 1, 10_000, o0, ac.signal);
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    await desk.close();
  });
});
