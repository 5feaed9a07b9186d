import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../../packages/core/src/action.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Environment, StepOutcome } from "../../../packages/core/src/environment.ts";
import { EnvironmentError } from "../../../packages/core/src/errors.ts";
import { createRng, type Rng } from "../../../packages/core/src/rng.ts";
import type { Task } from "../../../packages/core/src/task.ts";
import { replayFromReset } from "../../../packages/evaluation/src/replay/replay.ts";
import { createStateCheck } from "../../../packages/core/src/replay/state-check.ts";
import {
  checkTransitionConsistency,
  retention,
} from "../../../packages/evaluation/src/replay/transition-consistency.ts";
import { createSimDesk, getSimDeskTask, type SimDesk } from "../../../packages/simdesk/src/simdesk.ts";

/**
 * A SimDesk whose TYPING steps are lost with probability `dropRate` (a flaky input channel), or
 * that throws on its n-th step: the environment stochasticity N-replay filtering must catch.
 */
class FlakyDesk implements Environment {
  readonly kind = "flaky-simdesk";
  private rng: Rng;
  private steps = 0;
  constructor(
    readonly inner: SimDesk,
    private readonly opts: { dropRate?: number; crashAtStep?: number; seed: number },
  ) {
    this.rng = createRng(opts.seed, "flaky");
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  reset(task: Task) {
    this.steps = 0;
    return this.inner.reset(task);
  }
  async step(action: Action): Promise<StepOutcome> {
    this.steps++;
    if (this.opts.crashAtStep === this.steps) throw new EnvironmentError("desktop froze");
    if (action.type === "TYPING" && this.rng.chance(this.opts.dropRate ?? 0))
      return { observation: await this.inner.observe(), info: { dropped: true } };
    return this.inner.step(action);
  }
  observe() {
    return this.inner.observe();
  }
  evaluate() {
    return this.inner.evaluate();
  }
  close() {
    return this.inner.close();
  }
  stateHash() {
    return this.inner.stateHash();
  }
}

const task = getSimDeskTask("files-rename-draft");
const steps = task.plan.map((a) => [a]);
let blobs: BlobStore;
let desk: SimDesk;

beforeAll(() => {
  blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-replay-")), "blobs") });
  desk = createSimDesk({ blobs });
});

describe("transition-consistent filtering", () => {
  it("keeps a trajectory whose N replays all succeed", async () => {
    const r = await checkTransitionConsistency({ env: desk, task, steps, blobs, replays: 3 });
    expect(r.consistent).toBe(true);
    expect(r.replays).toHaveLength(3);
    expect(r.replays.every((x) => x.success && x.score === 1)).toBe(true);
  });

  it("removes a trajectory with a flaky step (a typed name is sometimes lost)", async () => {
    const flaky = new FlakyDesk(desk, { dropRate: 0.5, seed: 3 });
    const r = await checkTransitionConsistency({ env: flaky, task, steps, blobs, replays: 3 });
    expect(r.consistent).toBe(false);
    const failed = r.replays[r.replays.length - 1];
    expect(failed.success).toBe(false);
    expect(failed.reason).toMatch(/task evaluator failed/);
    // The same trajectory on the same flaky desktop passes a single replay at times: only N > 1 catches it.
    const singles: boolean[] = [];
    for (const seed of [0, 1, 2, 3, 4, 5])
      singles.push(
        (
          await checkTransitionConsistency({
            env: new FlakyDesk(desk, { dropRate: 0.5, seed }),
            task,
            steps,
            blobs,
            replays: 1,
          })
        ).consistent,
      );
    expect(singles).toContain(true);
  });

  it("removes a trajectory whose replay crashes the environment, and reports retention", async () => {
    const r = await checkTransitionConsistency({
      env: new FlakyDesk(desk, { crashAtStep: 2, seed: 0 }),
      task,
      steps,
      blobs,
    });
    expect(r.consistent).toBe(false);
    expect(r.replays[0].envError).toMatch(/desktop froze/);
    expect(retention(1, 2)).toEqual({ kept: 1, total: 2, rate: 0.5 });
  });

  it("with recorded checkpoints, reports the step whose state was not reproduced", async () => {
    // Record the states of a clean run, then replay on a desktop that loses the typing.
    const expected = [];
    let obs = await desk.reset(task);
    for (const a of task.plan) {
      obs = (await desk.step(a)).observation;
      expected.push({ observation: obs, stateHash: desk.stateHash() });
    }
    const r = await checkTransitionConsistency({
      env: new FlakyDesk(desk, { dropRate: 1, seed: 0 }),
      task,
      steps,
      blobs,
      expected,
      replays: 2,
    });
    expect(r.consistent).toBe(false);
    expect(r.replays[0].mismatchAfter).toBe(task.plan.findIndex((a) => a.type === "TYPING") + 1);
  });
});

describe("replayFromReset", () => {
  it("reproduces a verified target state, retrying after a lost step", async () => {
    const k = task.plan.findIndex((a) => a.type === "TYPING") + 1;
    await desk.reset(task);
    let obs;
    for (const a of task.plan.slice(0, k)) obs = (await desk.step(a)).observation;
    const target = { observation: obs!, stateHash: desk.stateHash() };
    const flaky = new FlakyDesk(desk, { dropRate: 0.5, seed: 11 });
    const r = await replayFromReset({
      env: flaky,
      task,
      blobs,
      attempts: 8,
      steps: steps.slice(0, k).map((actions, i) => ({ actions, expect: i === k - 1 ? target : undefined })),
    });
    expect(r.ok).toBe(true);
    expect(r.checkpoints[r.checkpoints.length - 1]).toMatchObject({ verdict: "match", method: "state-hash" });
    const once = await replayFromReset({
      env: new FlakyDesk(desk, { dropRate: 1, seed: 0 }),
      task,
      blobs,
      attempts: 2,
      steps: steps.slice(0, k).map((actions, i) => ({ actions, expect: i === k - 1 ? target : undefined })),
    });
    expect(once.ok).toBe(false);
    expect(once.attempts).toBe(2);
    expect(once.failedAt?.verdict).toBe("mismatch");
  });

  it("verifies by screenshot SSIM when the environment has no ground truth", async () => {
    const check = createStateCheck({ method: "ssim" });
    await desk.reset(task);
    const o1 = (await desk.step(task.plan[0])).observation;
    const r = await check({ env: desk, current: o1, expected: { observation: o1 }, blobs });
    expect(r).toMatchObject({ verdict: "match", method: "ssim", ssim: 1 });
    const o0 = await desk.reset(task);
    const r2 = await check({ env: desk, current: o0, expected: { observation: o1 }, blobs });
    expect(r2.verdict).toBe("mismatch");
    expect(r2.ssim).toBeLessThan(0.99);
  });

  it("does not confirm a state when the verifier abstains", async () => {
    const abstainer = {
      name: "abstainer",
      async verify() {
        return { verdict: "abstain" as const, reason: "screen is ambiguous" };
      },
    };
    const check = createStateCheck({ method: "verifier", verifier: abstainer });
    const o = await desk.reset(task);
    const r = await replayFromReset({
      env: desk,
      task,
      blobs,
      check,
      attempts: 1,
      steps: [{ actions: [task.plan[0]], expect: { observation: o } }],
    });
    expect(r.ok).toBe(false);
    expect(r.failedAt).toMatchObject({ verdict: "abstain", method: "verifier" });
  });

  it("a verifier that throws abstains instead of crashing the replay", async () => {
    const broken = {
      name: "broken",
      async verify(): Promise<never> {
        throw new Error("verifier server down");
      },
    };
    const check = createStateCheck({ method: "verifier", verifier: broken });
    const o = await desk.reset(task);
    const r = await replayFromReset({
      env: desk,
      task,
      blobs,
      check,
      attempts: 1,
      steps: [{ actions: [task.plan[0]], expect: { observation: o } }],
    });
    expect(r.ok).toBe(false);
    expect(r.failedAt).toMatchObject({
      verdict: "abstain",
      method: "verifier",
      reason: expect.stringContaining("verifier server down"),
    });
  });
});
