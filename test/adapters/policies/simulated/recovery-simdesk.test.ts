import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import {
  createSimDesk,
  SIMDESK_TASKS,
  getSimDeskTask,
  type MistakeSpec,
  type SimDesk,
  type SimDeskTask,
} from "../../../../packages/simdesk/src/simdesk.ts";
import {
  SIM_RECOVERER_SKILLED,
  SIM_RECOVERER_WEAK,
  createSimPerturbationPolicy,
  createSimRecoveryPolicy,
  SIM_CONTEXT_NEUTRAL,
  isOnTrack,
} from "../../../../packages/simdesk/src/agents/index.ts";
import { act, fastObservation, playPlan, recoveryAttempt } from "./harness.ts";

let env: SimDesk;
let blobs: BlobStore;
beforeAll(() => {
  blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "sim-rec-desk-")), "blobs") });
  env = createSimDesk({ blobs });
});

/** The task's mistakes that take the state off track and that SimDesk's ground truth can undo. */
async function undoableMistakes(): Promise<Array<{ task: SimDeskTask; m: MistakeSpec }>> {
  const out: Array<{ task: SimDeskTask; m: MistakeSpec }> = [];
  for (const task of SIMDESK_TASKS) {
    for (const m of task.mistakes) {
      const { observation: target } = await playPlan(env, task, m.atStep, false);
      for (const a of m.actions) await act(env, a, false);
      if (isOnTrack(env, task, env.currentStateId())) continue;
      if (env.nextRestorativeAction(target.stateId!) === "unreachable") continue;
      out.push({ task, m });
    }
  }
  return out;
}

/** Restore rate of a recoverer over every undoable mistake, `seeds` seeded trials each. */
async function restoreRate(skill: number, seeds: number[], cases: Array<{ task: SimDeskTask; m: MistakeSpec }>) {
  let restored = 0;
  let trials = 0;
  let restorative = 0;
  let steps = 0;
  for (const seed of seeds) {
    const recoverer = createSimRecoveryPolicy({ groundTruth: env, contextEffects: SIM_CONTEXT_NEUTRAL, skill, seed });
    for (const { task, m } of cases) {
      const { observation: target } = await playPlan(env, task, m.atStep, false);
      for (const a of m.actions) await act(env, a, false);
      const r = await recoveryAttempt(
        env,
        blobs,
        task,
        recoverer,
        { step: m.atStep, observation: target },
        fastObservation(env),
        { budget: 10, tick0: 1000 },
      );
      trials++;
      if (r.restored) restored++;
      restorative += r.responses.filter((x) => x.startsWith("restore:")).length;
      steps += r.responses.length;
    }
  }
  return { rate: restored / trials, trials, restorativeShare: restorative / steps };
}

describe("simulated recovery policy on SimDesk", () => {
  it("a skilled recoverer restores undoable mistakes far more often than a weak one", async () => {
    const all = await undoableMistakes();
    expect(all.length).toBeGreaterThan(80);
    // Every other case keeps the test to a few seconds; the gap is wide (about 0.88 vs 0.13 over all).
    const cases = all.filter((_, i) => i % 2 === 0);
    const skilled = await restoreRate(SIM_RECOVERER_SKILLED, [1], cases);
    const weak = await restoreRate(SIM_RECOVERER_WEAK, [1], cases);
    console.info(
      `simulated recoverer restore rate over ${skilled.trials} trials: skilled ${skilled.rate.toFixed(3)}, weak ${weak.rate.toFixed(3)}; restorative steps: ${skilled.restorativeShare.toFixed(2)} vs ${weak.restorativeShare.toFixed(2)}`,
    );
    expect(skilled.rate).toBeGreaterThan(0.8);
    expect(skilled.rate).toBeGreaterThan(weak.rate + 0.3);
    expect(skilled.restorativeShare).toBeGreaterThan(weak.restorativeShare + 0.3);
  });

  it("declares the target restored, with no action, when the state already matches it", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { observation } = await playPlan(env, task, 3, false);
    const d = await createSimRecoveryPolicy({
      groundTruth: env,
      contextEffects: SIM_CONTEXT_NEUTRAL,
      skill: 0.3,
      seed: 1,
    }).propose({
      task,
      target: { step: 3, observation },
      errorStep: 3,
      context: { kind: "none", history: [] },
      recoveryHistory: [],
      observation,
      budget: { used: 0, max: 10 },
      tick: 0,
      blobs,
    });
    expect(d).toMatchObject({ actions: [], restored: true });
    expect(d.response).toMatch(/^restored:/);
  });

  it("gives up on a target the UI cannot bring back when skilled, and flails when weak", async () => {
    // Emptying the Trash is irreversible: a deleted file's target state is then unreachable.
    const cases: Array<{ task: SimDeskTask; target: ReturnType<typeof fastObservation> }> = [];
    for (const task of SIMDESK_TASKS) {
      for (const m of task.mistakes) {
        const { observation: target } = await playPlan(env, task, m.atStep, false);
        for (const a of m.actions) await act(env, a, false);
        if (env.nextRestorativeAction(target.stateId!) === "unreachable") cases.push({ task, target });
      }
    }
    expect(cases.length).toBeGreaterThan(0);
    const { task, target } = cases[0];
    const current = fastObservation(env);
    const ask = (skill: number, tick: number) =>
      createSimRecoveryPolicy({ groundTruth: env, contextEffects: SIM_CONTEXT_NEUTRAL, skill, seed: 2 }).propose({
        task,
        target: { step: 0, observation: target },
        errorStep: 0,
        context: { kind: "none", history: [] },
        recoveryHistory: [],
        observation: current,
        budget: { used: 0, max: 10 },
        tick,
        blobs,
      });
    const skilled = await Promise.all(Array.from({ length: 40 }, (_, t) => ask(1, t)));
    const weak = await Promise.all(Array.from({ length: 40 }, (_, t) => ask(0, t)));
    expect(skilled.every((d) => d.restored && d.response?.startsWith("give up:"))).toBe(true);
    expect(weak.every((d) => !d.restored && d.actions.length === 1)).toBe(true);
  });

  it("with the task and forwardBias 1, a wrong step continues the task (no restorative intent)", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { observation: target } = await playPlan(env, task, 2, false);
    for (const a of task.plan.slice(2, 4)) await act(env, a, false);
    const current = fastObservation(env);
    const k = env.planIndexOf(task, current.stateId!);
    expect(k).toBe(4);
    const recoverer = createSimRecoveryPolicy({
      groundTruth: env,
      contextEffects: SIM_CONTEXT_NEUTRAL,
      task,
      skill: 0,
      falseDoneRate: 0,
      forwardBias: 1,
      seed: 1,
    });
    const d = await recoverer.propose({
      task,
      target: { step: 2, observation: target },
      errorStep: 3,
      context: { kind: "none", history: [] },
      recoveryHistory: [],
      observation: current,
      budget: { used: 0, max: 10 },
      tick: 0,
      blobs,
    });
    expect(d.actions).toEqual([task.plan[4]]);
    expect(d.response).toMatch(/^continue: task step 4: /);
    expect(recoverer.label).toContain("forwardBias=1");
    expect(
      createSimRecoveryPolicy({ groundTruth: env, contextEffects: SIM_CONTEXT_NEUTRAL, skill: 0.3 }).label,
    ).not.toContain("forwardBias");
  });

  it("repeats its decisions for the same seed and tick", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const m = task.mistakes[0];
    const run = async () => {
      const { observation: target } = await playPlan(env, task, m.atStep, false);
      for (const a of m.actions) await act(env, a, false);
      return recoveryAttempt(
        env,
        blobs,
        task,
        createSimRecoveryPolicy({ groundTruth: env, contextEffects: SIM_CONTEXT_NEUTRAL, skill: 0.5, seed: 9 }),
        { step: m.atStep, observation: target },
        fastObservation(env),
      );
    };
    expect(await run()).toEqual(await run());
  });

  it("rejects a missing ground truth or an out-of-range skill, naming the field", () => {
    expect(() => createSimRecoveryPolicy({ groundTruth: env, skill: 2 })).toThrow(/"skill"/);
    expect(() => createSimRecoveryPolicy({ groundTruth: undefined as never, skill: 0.5 })).toThrow(ConfigError);
  });
});

describe("simulated perturbation policy on SimDesk", () => {
  it("drifts on-track states off the reference path within d = 2 steps in most trials", async () => {
    let off = 0;
    let trials = 0;
    for (const task of SIMDESK_TASKS) {
      for (const seed of [1, 2]) {
        const k = Math.floor(task.plan.length / 2);
        const start = await playPlan(env, task, k, false);
        const perturber = createSimPerturbationPolicy({ groundTruth: env, seed });
        let obs = start.observation;
        for (let d = 0; d < 2; d++) {
          const dec = await perturber.propose({
            task,
            history: start.history,
            observation: obs,
            step: k + d,
            tick: k + d,
            blobs,
          });
          expect(dec.actions.every((a) => a.type !== "DONE")).toBe(true);
          for (const a of dec.actions) obs = await act(env, a, false);
        }
        trials++;
        if (!isOnTrack(env, task, obs.stateId)) off++;
      }
    }
    console.info(`simulated perturber: ${off}/${trials} drifted off track in 2 steps`);
    expect(off / trials).toBeGreaterThan(0.6);
  });
});
