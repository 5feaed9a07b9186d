import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import type { Observation } from "../../../../packages/core/src/observation.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import {
  createSimDesk,
  SIMDESK_TASKS,
  getSimDeskTask,
  type SimDesk,
  type SimDeskTask,
} from "../../../../packages/simdesk/src/simdesk.ts";
import {
  createSimDetector,
  createSimStepSelector,
  isOnTrack,
  trajectoryTruth,
} from "../../../../packages/simdesk/src/agents/index.ts";
import { act, playPlan } from "./harness.ts";

interface Query {
  task: SimDeskTask;
  history: HistoryEntry[];
  observation: Observation;
  /** The true first wrong step, known from how the query was built (null = on track). */
  trueE: number | null;
}

let env: SimDesk;
let blobs: BlobStore;
const offTrack: Query[] = [];
const onTrack: Query[] = [];

beforeAll(async () => {
  blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "sim-det-desk-")), "blobs") });
  env = createSimDesk({ blobs });
  for (const task of SIMDESK_TASKS) {
    // On track: every clean plan prefix of length >= 1.
    const full = await playPlan(env, task, task.plan.length, false);
    for (let k = 1; k <= task.plan.length; k++) {
      const observation = k < task.plan.length ? full.history[k].observation : full.observation;
      onTrack.push({ task, history: full.history.slice(0, k), observation, trueE: null });
    }
    // Off track: the task's mistake at step E, then the plan carried on for one step as if nothing happened.
    for (const m of task.mistakes) {
      const { history, observation: atE } = await playPlan(env, task, m.atStep, false);
      let obs = atE;
      for (const a of m.actions) obs = await act(env, a, false);
      if (isOnTrack(env, task, obs.stateId)) continue;
      offTrack.push({
        task,
        history: [...history, { step: m.atStep, observation: atE, actions: m.actions }],
        observation: obs,
        trueE: m.atStep,
      });
      const next = task.plan[m.atStep + 1];
      if (next) {
        const after = await act(env, next, false);
        if (!isOnTrack(env, task, after.stateId)) {
          offTrack.push({
            task,
            history: [
              ...history,
              { step: m.atStep, observation: atE, actions: m.actions },
              { step: m.atStep + 1, observation: obs, actions: [next] },
            ],
            observation: after,
            trueE: m.atStep,
          });
        }
      }
    }
  }
});

async function detectAll(
  queries: Query[],
  opts: { recall?: number; falsePositiveRate?: number; localisationNoise?: number },
  ticks: number,
) {
  const out: Array<{ q: Query; isError: boolean; errorStep: number | null; confidence: number }> = [];
  const detectors = new Map<string, ReturnType<typeof createSimDetector>>();
  for (const q of queries) {
    let d = detectors.get(q.task.id);
    if (!d) detectors.set(q.task.id, (d = createSimDetector({ groundTruth: env, task: q.task, seed: 7, ...opts })));
    for (let tick = 0; tick < ticks; tick++) {
      const r = await d.detect({
        task: q.task,
        history: q.history,
        observation: q.observation,
        step: q.history.length,
        tick: tick * 1000 + q.history.length,
        blobs,
      });
      out.push({ q, isError: r.isError, errorStep: r.errorStep, confidence: r.confidence });
    }
  }
  return out;
}

describe("simulated detector on SimDesk", () => {
  it("knows the true error step: the first wrong action, even after the policy carried on", () => {
    expect(offTrack.length).toBeGreaterThan(150);
    for (const q of offTrack)
      expect(trajectoryTruth(env, q.task, q.history, q.observation)).toMatchObject({
        offTrack: true,
        errorStep: q.trueE,
      });
    for (const q of onTrack) expect(trajectoryTruth(env, q.task, q.history, q.observation).offTrack).toBe(false);
  });

  it("reports off-track states at the configured recall with the exact E when localisation noise is 0", async () => {
    const res = await detectAll(offTrack, { recall: 0.9, localisationNoise: 0 }, 12);
    const hits = res.filter((r) => r.isError);
    const recall = hits.length / res.length;
    console.info(
      `simulated detector: measured recall ${recall.toFixed(3)} over ${res.length} off-track queries (configured 0.9)`,
    );
    expect(Math.abs(recall - 0.9)).toBeLessThan(0.03);
    for (const h of hits) {
      expect(h.errorStep).toBe(h.q.trueE);
      expect(h.confidence).toBeGreaterThanOrEqual(0.8);
    }
  });

  it("raises false alarms on on-track states at the configured rate", async () => {
    const res = await detectAll(onTrack, { falsePositiveRate: 0.05 }, 12);
    const fpr = res.filter((r) => r.isError).length / res.length;
    console.info(
      `simulated detector: measured false-positive rate ${fpr.toFixed(4)} over ${res.length} on-track queries (configured 0.05)`,
    );
    expect(Math.abs(fpr - 0.05)).toBeLessThan(0.015);
    for (const r of res.filter((x) => x.isError)) expect(r.errorStep).toBeLessThan(r.q.history.length);
  });

  it("shifts E by 1-2 steps at the configured localisation noise", async () => {
    const res = (await detectAll(offTrack, { recall: 1, localisationNoise: 0.3 }, 8)).filter((r) => r.isError);
    const shifted = res.filter((r) => r.errorStep !== r.q.trueE);
    const rate = shifted.length / res.length;
    console.info(`simulated detector: measured localisation noise ${rate.toFixed(3)} (configured 0.3)`);
    expect(Math.abs(rate - 0.3)).toBeLessThan(0.04);
    for (const r of shifted) {
      expect(Math.abs(r.errorStep! - r.q.trueE!)).toBeLessThanOrEqual(2);
      expect(r.errorStep!).toBeGreaterThanOrEqual(0);
      expect(r.errorStep!).toBeLessThan(r.q.history.length);
    }
  });

  it("flags a premature DONE as an error at the DONE step", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { history, observation } = await playPlan(env, task, 3, false);
    const h = [...history, { step: 3, observation, actions: [{ type: "DONE" as const }] }];
    expect(trajectoryTruth(env, task, h, observation)).toMatchObject({ offTrack: true, errorStep: 3 });
    const solved = await playPlan(env, task, task.plan.length, false);
    const hs = [
      ...solved.history,
      { step: task.plan.length, observation: solved.observation, actions: [{ type: "DONE" as const }] },
    ];
    expect(trajectoryTruth(env, task, hs, solved.observation).offTrack).toBe(false);
  });

  it("gives the same verdicts for the same seed and tick, and fails safe without a stateId", async () => {
    const q = offTrack[0];
    const mk = () => createSimDetector({ groundTruth: env, task: q.task, seed: 3, recall: 0.5 });
    const verdicts = async (d: ReturnType<typeof mk>) =>
      Promise.all(
        Array.from({ length: 20 }, (_, t) =>
          d.detect({
            task: q.task,
            history: q.history,
            observation: q.observation,
            step: q.history.length,
            tick: t,
            blobs,
          }),
        ),
      );
    const a = await verdicts(mk());
    expect(await verdicts(mk())).toEqual(a);
    expect(new Set(a.map((v) => v.isError)).size).toBe(2);
    const blind = await mk().detect({
      task: q.task,
      history: q.history,
      observation: { ...q.observation, stateId: undefined },
      step: 1,
      tick: 0,
      blobs,
    });
    expect(blind.isError).toBe(false);
    expect(blind.failure).toMatch(/stateId/);
  });
});

describe("simulated step selector on SimDesk", () => {
  it("picks the last on-track step before E at the configured accuracy, and always 0 <= R <= E", async () => {
    let right = 0;
    let total = 0;
    for (const q of offTrack) {
      const selector = createSimStepSelector({ groundTruth: env, task: q.task, seed: 5, accuracy: 0.8 });
      // Blame the step after the true one too (a late detector): the right R stays the true E.
      for (const e of [q.trueE!, Math.min(q.trueE! + 1, q.history.length - 1)]) {
        for (let i = 0; i < 10; i++) {
          const s = await selector.select({
            task: q.task,
            history: q.history,
            errorStep: e,
            detection: { isError: true, errorStep: e, reason: "", confidence: 1 },
            instanceKey: `${q.task.id}/${i}`,
            seed: 0,
            blobs,
          });
          expect(s.step).toBeGreaterThanOrEqual(0);
          expect(s.step).toBeLessThanOrEqual(e);
          total++;
          if (s.step === q.trueE) right++;
          else if (e === 0) throw new Error("with E = 0 the only answer is 0");
        }
      }
    }
    const accuracy = right / total;
    console.info(
      `simulated selector: measured accuracy ${accuracy.toFixed(3)} over ${total} selections (configured 0.8)`,
    );
    expect(Math.abs(accuracy - 0.8)).toBeLessThan(0.04);
  });
});

describe("ground truth: progress along the plan", () => {
  it("blames a click that hit nothing, not the later DONE, when the agent carried on as if it had worked", async () => {
    const blobs2 = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "sim-truth-")), "blobs") });
    const desk = createSimDesk({ blobs: blobs2 });
    const task = getSimDeskTask("editor-append-notes");
    const { history, observation } = await playPlan(desk, task, 2, false);
    // step 2: a click on an empty part of the desktop (no-op), then the agent goes on with plan[3] and says DONE
    const h: HistoryEntry[] = [
      ...history,
      { step: 2, observation, actions: [{ type: "CLICK", x: 1200, y: 600, button: "left", numClicks: 1 }] },
    ];
    const afterNoop = await act(desk, h[2].actions[0], false);
    expect(afterNoop.stateId && desk.semanticHash(afterNoop.stateId)).toBe(
      observation.stateId && desk.semanticHash(observation.stateId),
    );
    expect(trajectoryTruth(desk, task, h, afterNoop)).toMatchObject({ offTrack: true, errorStep: 2 });
    h.push({ step: 3, observation: afterNoop, actions: [{ type: "DONE" }] });
    // the old rule ("last state on the reference path") would have blamed the DONE at step 3
    expect(trajectoryTruth(desk, task, h, afterNoop)).toMatchObject({ offTrack: true, errorStep: 2 });
    // every clean prefix is on track
    expect(trajectoryTruth(desk, task, history, observation).offTrack).toBe(false);
  });
});
