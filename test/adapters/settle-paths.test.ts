/**
 * The settle window (packages/core/src/settle.ts) on the paths that had none: the built-in restore routine of
 * the LangChain middleware and the SDK wrappers (recoverWithPolicy), the loop they share after the
 * agent's own computer tool acted (StepRecovery.afterSteps), and the checkpoint-resume replay
 * (packages/graphs/src/resume.ts). Checked from the outside on a real SimDesk: after each executed step, an
 * observe at least settleMs later.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { createSimDesk, getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../packages/simdesk/src/agents/index.ts";
import { recoverWithPolicy } from "../../packages/core/src/runtime/recover-with-policy.ts";
import { resolveSdkOptions } from "../../packages/sdk-shared/src/options.ts";
import { StepRecovery } from "../../packages/core/src/runtime/step-recovery.ts";
import { ensureEnvironment } from "../../packages/graphs/src/resume.ts";
import { createRuntimeContext } from "../../packages/graphs/src/context.ts";
import { resolveRecoveryOptions } from "../../packages/core/src/runtime/options.ts";
import { recordEnvOps, settleTrace, type EnvOp } from "../helpers/env-ops.ts";
import type { GraphState } from "../../packages/graphs/src/state.ts";

const SETTLE = 30;
const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-settle-paths-")), "blobs") });
const task = getSimDeskTask("files-rename-draft");

describe("settleMs on the library's own paths", () => {
  it("the built-in restore routine waits after each recovery step", async () => {
    const desk = createSimDesk({ blobs });
    const agents = createSimAgents({ task, groundTruth: desk, seed: 1, recoverer: "skilled" });
    let obs = await desk.reset(task);
    const history = [];
    for (const a of task.plan.slice(0, 3)) {
      history.push({ step: history.length, observation: obs, actions: [a] });
      obs = (await desk.step(a)).observation;
    }
    const ops: EnvOp[] = [];
    const restore = recoverWithPolicy({
      recoverer: agents.recoverer,
      env: recordEnvOps(desk, ops),
      blobs,
      recoveryBudget: 3,
      settleMs: SETTLE,
    });
    const detection = { isError: true, errorStep: 2, reason: "r", confidence: 1 };
    const r = await restore({
      step: 1,
      errorStep: 2,
      target: { step: 1, observation: history[1].observation },
      history,
      detection,
      selection: { step: 1, reason: "" },
      attempt: 1,
      task,
    });
    const t = settleTrace(ops);
    expect(r.steps ?? 0).toBeGreaterThan(0);
    expect(t.stepRuns).toBeGreaterThan(0);
    expect(t.unsettled).toBe(0);
    expect(Math.min(...t.gaps)).toBeGreaterThanOrEqual(SETTLE - 2);
  });

  it("the loop of the SDK wrappers and the middleware waits once after the steps a turn executed, before the detector sees the screen", async () => {
    const desk = createSimDesk({ blobs });
    const agents = createSimAgents({ task, groundTruth: desk, seed: 1 });
    const ops: EnvOp[] = [];
    const env = recordEnvOps(desk, ops);
    const o = resolveSdkOptions("test", {
      env,
      blobs,
      detector: agents.detector,
      recoverer: agents.recoverer,
      settleMs: SETTLE,
      task,
    });
    const loop = new StepRecovery(o, task);
    loop.start(await env.reset(task));
    const actions = [task.plan[0]];
    let current = await env.observe();
    for (const a of actions) current = (await env.step(a)).observation;
    ops.length = 0;
    const t0 = performance.now();
    await loop.afterSteps([{ actions }], current);
    expect(ops[0]).toMatchObject({ op: "observe" });
    expect(ops[0].start - t0).toBeGreaterThanOrEqual(SETTLE - 2);
  });

  it("the checkpoint-resume replay waits after each replayed action", async () => {
    const desk = createSimDesk({ blobs });
    const agents = createSimAgents({ task, groundTruth: desk, seed: 1 });
    const actions = task.plan.slice(0, 3);
    let obs = await desk.reset(task);
    for (const a of actions) obs = (await desk.step(a)).observation;
    const ops: EnvOp[] = [];
    const ctx = createRuntimeContext({
      components: { policy: agents.policy, env: recordEnvOps(desk, ops), blobs },
      options: resolveRecoveryOptions({ settleMs: SETTLE }),
    });
    await ensureEnvironment(
      { task, observation: obs, envLog: { base: "reset", actions } } as unknown as GraphState,
      ctx,
    );
    const t = settleTrace(ops);
    expect(ops.filter((x) => x.op === "step")).toHaveLength(actions.length);
    expect(t.stepRuns).toBe(actions.length);
    expect(t.unsettled).toBe(0);
    expect(Math.min(...t.gaps)).toBeGreaterThanOrEqual(SETTLE - 2);
  });
});
