/**
 * The weak simulated recoverer's derailing failure modes on the real SimDesk: over-undo past the
 * target followed by a false "restored" claim, destructive moves picked from the observation
 * (close without saving, select-all + delete, flipping a setting), and the skilled preset staying
 * free of them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import type { AxNode, Observation } from "../../../../packages/core/src/observation.ts";
import { createRng } from "../../../../packages/core/src/rng.ts";
import { createSimDesk, getSimDeskTask, type SimDesk } from "../../../../packages/simdesk/src/simdesk.ts";
import {
  SIM_PROFILES,
  createSimAgents,
  createSimRecoveryPolicy,
  SIM_CONTEXT_NEUTRAL,
  pickHarmfulMove,
} from "../../../../packages/simdesk/src/agents/index.ts";
import { act, fastObservation, playPlan, recoveryAttempt } from "./harness.ts";

let env: SimDesk;
let blobs: BlobStore;
beforeAll(() => {
  blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "sim-derail-")), "blobs") });
  env = createSimDesk({ blobs });
});

const obsWith = (axTree: AxNode): Observation => ({ screenshot: "x", width: 1024, height: 768, axTree });

describe("weak simulated recoverer: derailing", () => {
  it("over-undoing, it restores past the target (undoing good progress) and then claims the target restored", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const targetK = 4;
    const { observation: target } = await playPlan(env, task, targetK, false);
    for (const a of task.plan.slice(targetK, targetK + 2)) await act(env, a, false);
    const recoverer = createSimRecoveryPolicy({
      groundTruth: env,
      contextEffects: SIM_CONTEXT_NEUTRAL,
      skill: 1,
      falseDoneRate: 0,
      overUndoRate: 1,
      seed: 4,
    });
    const r = await recoveryAttempt(
      env,
      blobs,
      task,
      recoverer,
      { step: targetK, observation: target },
      fastObservation(env),
      { budget: 20 },
    );
    expect(r.declared).toBe(true);
    expect(r.restored).toBe(false);
    const k = env.planIndexOf(task, env.currentStateId());
    expect(k).toBeGreaterThanOrEqual(targetK - 3);
    expect(k).toBeLessThan(targetK);
    expect(r.responses.at(-1)).toMatch(
      /^restored: believes target step 4 is reached \(it over-undid to plan step \d\)/,
    );
    expect(recoverer.label).toContain("overUndoRate=1");
  });

  it("without over-undo the same recoverer restores the target exactly", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { observation: target } = await playPlan(env, task, 4, false);
    for (const a of task.plan.slice(4, 6)) await act(env, a, false);
    const r = await recoveryAttempt(
      env,
      blobs,
      task,
      createSimRecoveryPolicy({
        groundTruth: env,
        contextEffects: SIM_CONTEXT_NEUTRAL,
        skill: 1,
        falseDoneRate: 0,
        seed: 4,
      }),
      { step: 4, observation: target },
      fastObservation(env),
      { budget: 20 },
    );
    expect(r).toMatchObject({ declared: true, restored: true });
  });

  it("with harmRate 1 every wrong step is destructive, and with assumeRestoredRate 1 it claims the target at once", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { observation: target } = await playPlan(env, task, 4, false);
    await act(env, { type: "TYPING", text: "oops" }, false);
    const recoverer = createSimRecoveryPolicy({
      groundTruth: env,
      contextEffects: SIM_CONTEXT_NEUTRAL,
      skill: 0,
      falseDoneRate: 0,
      harmRate: 1,
      assumeRestoredRate: 1,
      seed: 2,
    });
    for (let tick = 0; tick < 12; tick++) {
      const d = await recoverer.propose({
        task,
        target: { step: 4, observation: target },
        errorStep: 4,
        context: { kind: "none", history: [] },
        recoveryHistory: [],
        observation: fastObservation(env),
        budget: { used: 0, max: 10 },
        tick,
        blobs,
      });
      expect(d.restored).toBe(true);
      expect(d.actions.length).toBeGreaterThan(0);
      expect(d.memo).toMatchObject({ kind: "harm" });
      expect(d.response).toMatch(/^restored: .*believes target step 4 is reached$/);
    }
  });

  it("with spurious perception it acts destructively in a state that already matches the target", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { observation } = await playPlan(env, task, 4, false);
    const ask = (harmRate: number, tick: number) =>
      createSimRecoveryPolicy({
        groundTruth: env,
        contextEffects: SIM_CONTEXT_NEUTRAL,
        skill: 0,
        harmRate,
        seed: 5,
      }).propose({
        task,
        target: { step: 4, observation },
        errorStep: 4,
        context: { kind: "none", history: [] },
        recoveryHistory: [],
        observation,
        budget: { used: 0, max: 10 },
        tick,
        blobs,
      });
    for (let tick = 0; tick < 8; tick++) {
      expect((await ask(1, tick)).memo).toMatchObject({ kind: "harm" });
      expect(await ask(0, tick)).toMatchObject({ actions: [], restored: true, memo: { kind: "restored" } });
    }
  });

  it("over-undo by the weak preset makes the claimed state differ from the target in a real attempt", async () => {
    // The weak preset (harm, over-undo, false claims) versus the skilled one on the same mistakes.
    const task = getSimDeskTask("editor-append-notes");
    let weakWrongClaims = 0;
    let skilledWrongClaims = 0;
    for (let seed = 0; seed < 12; seed++) {
      for (const preset of ["weak", "skilled"] as const) {
        const { observation: target } = await playPlan(env, task, 4, false);
        for (const a of task.plan.slice(4, 6)) await act(env, a, false);
        const recoverer = createSimRecoveryPolicy({
          groundTruth: env,
          contextEffects: SIM_CONTEXT_NEUTRAL,
          seed,
          ...SIM_PROFILES.recoverer[preset],
        });
        const r = await recoveryAttempt(
          env,
          blobs,
          task,
          recoverer,
          { step: 4, observation: target },
          fastObservation(env),
          { budget: 10, tick0: 100 },
        );
        if (r.declared && !r.restored) preset === "weak" ? weakWrongClaims++ : skilledWrongClaims++;
      }
    }
    expect(weakWrongClaims).toBeGreaterThanOrEqual(6);
    expect(skilledWrongClaims).toBeLessThanOrEqual(2);
  });
});

describe("destructive moves", () => {
  it("answers an unsaved-changes prompt with Don't Save, at the button's centre", () => {
    const tree: AxNode = {
      role: "desktop frame",
      name: "Desktop",
      children: [
        {
          role: "dialog",
          name: "Unsaved changes",
          bounds: [300, 300, 400, 150],
          children: [
            { role: "button", name: "Don't Save", bounds: [320, 400, 100, 30] },
            { role: "button", name: "Save", bounds: [560, 400, 100, 30] },
          ],
        },
      ],
    };
    const m = pickHarmfulMove(obsWith(tree), createRng(1));
    expect(m.kind).toBe("close-unsaved");
    expect(m.actions).toEqual([{ type: "CLICK", x: 370, y: 415, button: "left", numClicks: 1 }]);
  });

  it("flips a switch in view only when there is one, and repeats under the same seed", () => {
    const withSwitch: AxNode = {
      role: "window",
      name: "Settings",
      children: [{ role: "switch", name: "Do not disturb", bounds: [900, 300, 40, 20], states: ["checked"] }],
    };
    const kinds = new Set(
      Array.from({ length: 60 }, (_, i) => pickHarmfulMove(obsWith(withSwitch), createRng(i)).kind),
    );
    expect(kinds).toContain("flip-setting");
    expect(kinds).toContain("over-undo");
    const without = new Set(
      Array.from(
        { length: 60 },
        (_, i) => pickHarmfulMove(obsWith({ role: "window", name: "Files" }), createRng(i)).kind,
      ),
    );
    expect(without).not.toContain("flip-setting");
    expect(pickHarmfulMove(obsWith(withSwitch), createRng(7))).toEqual(
      pickHarmfulMove(obsWith(withSwitch), createRng(7)),
    );
  });

  it("the skilled preset has no destructive or over-undo behaviour; bad rates are rejected by name", () => {
    const task = getSimDeskTask("editor-append-notes");
    const agents = createSimAgents({ task, groundTruth: env, recoverer: "skilled" });
    expect(agents.recoverer.label).not.toMatch(/harmRate|overUndoRate|assumeRestoredRate/);
    expect(() => createSimRecoveryPolicy({ groundTruth: env, skill: 0.3, harmRate: 1.5 })).toThrow(/"harmRate"/);
    expect(() => createSimRecoveryPolicy({ groundTruth: env, skill: 0.3, overUndoRate: -1 })).toThrow(/"overUndoRate"/);
  });
});
