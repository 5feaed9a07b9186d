import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Action } from "../../../../packages/core/src/action.ts";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import type { Observation } from "../../../../packages/core/src/observation.ts";
import type { HistoryEntry, PolicyInput } from "../../../../packages/core/src/policy.ts";
import type { SimDeskTask } from "../../../../packages/core/src/ground-truth.ts";
import {
  createSimForwardPolicy,
  describeSimulated,
  planPositionOf,
  readForwardMemo,
} from "../../../../packages/simdesk/src/agents/index.ts";

const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "sim-fwd-")) });

// A task literal: the forward policy only reads the plan and the task's mistakes.
const task: SimDeskTask = {
  id: "unit-editor",
  instruction: "type hello and save",
  env: "simdesk",
  setup: {},
  evaluator: {},
  horizon: "short",
  plan: [
    { type: "CLICK", x: 100, y: 100, button: "left", numClicks: 1 },
    { type: "TYPING", text: "hello" },
    { type: "HOTKEY", keys: ["ctrl", "s"] },
    { type: "CLICK", x: 600, y: 400, button: "left", numClicks: 1 },
    { type: "TYPING", text: "notes.txt" },
    { type: "PRESS", key: "enter" },
  ],
  mistakes: [
    {
      atStep: 2,
      kind: "latent",
      actions: [{ type: "HOTKEY", keys: ["ctrl", "shift", "s"] }],
      note: "toggle a hidden setting",
    },
  ],
};

function obs(i: number): Observation {
  return { screenshot: String(i).padStart(64, "0"), width: 1280, height: 800, stateId: `s${i}` };
}

function input(history: HistoryEntry[], tick: number): PolicyInput {
  return {
    task: { id: task.id, instruction: task.instruction },
    history,
    observation: obs(history.length),
    step: history.length,
    tick,
    blobs,
  };
}

/** Run the policy against a frozen screen for n steps (no environment: only the policy's own bookkeeping). */
async function roll(policy: ReturnType<typeof createSimForwardPolicy>, n: number, tick0 = 0): Promise<HistoryEntry[]> {
  const history: HistoryEntry[] = [];
  for (let t = 0; t < n; t++) {
    const d = await policy.propose(input(history, tick0 + t));
    history.push({ step: t, observation: obs(t), actions: d.actions, response: d.response, memo: d.memo });
    if (d.actions.some((a) => a.type === "DONE")) break;
  }
  return history;
}

describe("simulated forward policy", () => {
  it("follows the plan exactly and then declares DONE when it never slips", async () => {
    const h = await roll(createSimForwardPolicy({ task, seed: 3, slipRate: 0 }), 20);
    expect(h.map((e) => e.actions[0])).toEqual([...task.plan, { type: "DONE" }]);
    expect(h[3].response).toBe("plan step 3: CLICK(600,400)");
  });

  it("gives identical decisions for the same seed and different slips for different seeds", async () => {
    const run = async (seed: number) =>
      (await roll(createSimForwardPolicy({ task, seed, slipRate: 0.5, noticeRate: 0.2 }), 20)).map((e) => e.response);
    expect(await run(11)).toEqual(await run(11));
    const distinct = new Set(await Promise.all([1, 2, 3, 4, 5, 6].map(async (s) => JSON.stringify(await run(s)))));
    expect(distinct.size).toBeGreaterThan(3);
  });

  it("continues from plan step k when its history is truncated to k entries", async () => {
    const policy = createSimForwardPolicy({ task, seed: 5, slipRate: 0.3 });
    const clean = await roll(createSimForwardPolicy({ task, seed: 5, slipRate: 0 }), 20);
    for (let k = 0; k < task.plan.length; k++) {
      let checked = 0;
      for (let tick = 100; tick < 140; tick++) {
        const d = await policy.propose(input(clean.slice(0, k), tick));
        const memo = d.memo as { kind: string; plan: number };
        expect(memo.plan).toBe(k);
        if (memo.kind === "plan") {
          expect(d.actions).toEqual([task.plan[k]]);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(10);
    }
  });

  it("reads its plan position from the last memo, so after a slip it carries on as if nothing happened", async () => {
    const h = await roll(createSimForwardPolicy({ task, seed: 9, slipRate: 0 }), 3);
    h[1] = {
      ...h[1],
      actions: [{ type: "TYPING", text: "hxllo" }],
      memo: { plan: 1, next: 2, kind: "slip", slip: "typo" },
    };
    expect(planPositionOf(h)).toBe(3);
    expect(planPositionOf(h.slice(0, 2))).toBe(2);
    expect(planPositionOf([{ step: 0, observation: obs(0), actions: [] }])).toBe(1);
    expect(readForwardMemo(h[1])?.slip).toBe("typo");
  });

  it("a retry from the same truncated history at later ticks is a fresh draw", async () => {
    const policy = createSimForwardPolicy({ task, seed: 1, slipRate: 0.5 });
    const kinds = new Set<string>();
    for (let tick = 0; tick < 30; tick++) kinds.add(JSON.stringify((await policy.propose(input([], tick))).memo));
    expect(kinds.size).toBeGreaterThan(1);
  });

  it("uses the task's latent mistake when it draws a latent slip at that step", async () => {
    const policy = createSimForwardPolicy({ task, seed: 2, slipRate: 1, slipMix: { latent: 1 } });
    const h = await roll(createSimForwardPolicy({ task, seed: 2, slipRate: 0 }), 2);
    const d = await policy.propose(input(h, 7));
    expect(d.actions).toEqual(task.mistakes[0].actions);
    expect(d.memo).toEqual({ plan: 2, next: 3, kind: "slip", slip: "latent" });
    // No latent mistake is defined at step 0, and latent is the only kind allowed: no slip.
    expect((await policy.propose(input([], 7))).actions).toEqual([task.plan[0]]);
  });

  it("notices a visible slip on the next step and undoes it when noticeRate is 1", async () => {
    const policy = createSimForwardPolicy({ task, seed: 4, slipRate: 0, noticeRate: 1 });
    const h: HistoryEntry[] = [
      { step: 0, observation: obs(0), actions: [task.plan[0]], memo: { plan: 0, next: 1, kind: "plan" } },
      {
        step: 1,
        observation: obs(1),
        actions: [{ type: "TYPING", text: "hxllo" }],
        memo: { plan: 1, next: 2, kind: "slip", slip: "typo" },
      },
    ];
    const d = await policy.propose(input(h, 2));
    expect(d.actions).toEqual([{ type: "HOTKEY", keys: ["ctrl", "z"] }]);
    expect(d.memo).toEqual({ plan: 1, next: 1, kind: "notice" });
    const skip: HistoryEntry[] = [
      { step: 0, observation: obs(0), actions: [task.plan[1]], memo: { plan: 0, next: 2, kind: "slip", slip: "skip" } },
    ];
    expect((await policy.propose(input(skip, 1))).actions).toEqual([task.plan[0]]);
  });

  it("rejects bad options with a ConfigError naming the field", () => {
    expect(() => createSimForwardPolicy({ task, slipRate: 1.5 })).toThrow(ConfigError);
    expect(() => createSimForwardPolicy({ task, slipRate: 1.5 })).toThrow(/"slipRate"/);
    expect(() => createSimForwardPolicy({ task, slipMix: { typo: 0 } })).toThrow(/"slipMix"/);
    expect(() => createSimForwardPolicy({ task: undefined as never })).toThrow(/"task"/);
  });

  it("labels itself simulated", () => {
    const p = createSimForwardPolicy({ task, seed: 1 });
    expect(p.name).toBe("sim-forward");
    expect(p.simulated).toBe(true);
    expect(describeSimulated(p, undefined, { name: "real-model" })).toBe(
      "simulated: sim-forward(seed=1, slipRate=0.1, noticeRate=0.05)",
    );
  });
});
