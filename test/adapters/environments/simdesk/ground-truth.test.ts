import { describe, expect, it } from "vitest";
import { createRng } from "../../../../packages/core/src/rng.ts";
import {
  applyAction,
  getSimDeskTask,
  initialState,
  SIMDESK_TASKS,
  type SimDesk,
} from "../../../../packages/simdesk/src/simdesk.ts";
import { makeDesk } from "./helpers.ts";

/** Follow nextRestorativeAction until it says null/unreachable or the budget runs out. */
async function restoreTo(
  desk: SimDesk,
  target: string,
  budget = 30,
): Promise<{ result: null | "unreachable" | "budget"; steps: string[] }> {
  const steps: string[] = [];
  for (let i = 0; i < budget; i++) {
    const next = desk.nextRestorativeAction(target);
    if (next === null || next === "unreachable") return { result: next, steps };
    steps.push(next.rationale);
    await desk.step(next.action);
  }
  return { result: "budget", steps };
}

describe("SimDesk ground truth", () => {
  it("reference states follow the plan and planIndexOf finds each of them", async () => {
    const { desk } = makeDesk();
    const task = getSimDeskTask("files-rename-draft");
    const refs = desk.referenceStates(task);
    expect(refs).toHaveLength(task.plan.length + 1);
    let obs = await desk.reset(task);
    expect(desk.planIndexOf(task, obs.stateId!)).toBe(0);
    for (let k = 0; k < task.plan.length; k++) {
      obs = (await desk.step(task.plan[k])).observation;
      expect(desk.planIndexOf(task, obs.stateId!)).toBe(k + 1);
    }
    expect(desk.semanticHash(obs.stateId!)).toBe(desk.semanticHash(refs.at(-1)!));
  });

  it("drives an undoable editor mistake back to the target state with undo", async () => {
    const { desk } = makeDesk();
    const task = getSimDeskTask("editor-append-notes");
    const m = task.mistakes.find((x) => x.note.includes("Ctrl+End"))!;
    await desk.reset(task);
    for (const a of task.plan.slice(0, m.atStep)) await desk.step(a);
    const target = (await desk.observe()).stateId!;
    for (const a of m.actions) await desk.step(a);
    await desk.step(task.plan[m.atStep + 1]); // typed over the whole document
    expect(desk.planIndexOf(task, (await desk.observe()).stateId!)).toBe(-1);
    const r = await restoreTo(desk, target);
    expect(r.result).toBeNull();
    expect(
      r.steps.some((s) => s.includes("undo")),
      r.steps.join(" | "),
    ).toBe(true);
    expect(desk.planIndexOf(task, (await desk.observe()).stateId!)).toBe(m.atStep);
  });

  it("restores a file trashed by mistake through the Trash and reverts a latent setting", async () => {
    const { desk } = makeDesk();
    const task = getSimDeskTask("files-rename-context-menu");
    const m = task.mistakes.find((x) => x.kind === "wrong-item")!;
    await desk.reset(task);
    for (const a of task.plan.slice(0, m.atStep)) await desk.step(a);
    const target = (await desk.observe()).stateId!;
    for (const a of m.actions) await desk.step(a);
    await desk.step({ type: "HOTKEY", keys: ["ctrl", "alt", "d"] });
    const r = await restoreTo(desk, target);
    expect(r.result).toBeNull();
    expect(r.steps.join(" | ")).toMatch(/restore .*todo\.txt from the Trash/);
    expect(r.steps.join(" | ")).toMatch(/Do not disturb/);
  });

  it("says unreachable once the Trash was emptied", async () => {
    const { desk } = makeDesk();
    const task = getSimDeskTask("files-restore-report");
    const m = task.mistakes.find((x) => x.note.includes("Empty Trash"))!;
    await desk.reset(task);
    for (const a of task.plan.slice(0, m.atStep)) await desk.step(a);
    const target = (await desk.observe()).stateId!;
    expect(desk.nextRestorativeAction(target)).toBeNull();
    for (const a of m.actions) await desk.step(a);
    expect(desk.nextRestorativeAction(target)).toBe("unreachable");
  });

  it("offers seeded plausible wrong actions that differ from the next plan step", async () => {
    const { desk } = makeDesk();
    const task = getSimDeskTask("files-trash-two");
    await desk.reset(task);
    for (const a of task.plan.slice(0, 2)) await desk.step(a);
    const a = desk.plausibleWrongActions(createRng(3, "wrong"));
    const b = desk.plausibleWrongActions(createRng(3, "wrong"));
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThanOrEqual(3);
    for (const x of a) expect(x).not.toEqual(task.plan[2]);
  });

  it("never loops: every listed mistake is either restored within budget or declared unreachable", () => {
    const { desk } = makeDesk();
    const outcome = { restored: 0, unreachable: 0 };
    for (const t of SIMDESK_TASKS) {
      for (const m of t.mistakes) {
        let s = initialState(t.setup, null);
        for (const a of t.plan.slice(0, m.atStep)) s = applyAction(s, a, 1280, 800).state;
        const target = desk.saveState(s);
        for (const a of [...m.actions, ...t.plan.slice(m.atStep + 1, m.atStep + 3)])
          s = applyAction(s, a, 1280, 800).state;
        desk.setState(s);
        let result: "restored" | "unreachable" | undefined;
        for (let i = 0; i < 40 && !result; i++) {
          const next = desk.nextRestorativeAction(target);
          if (next === null) result = "restored";
          else if (next === "unreachable") result = "unreachable";
          else desk.apply(next.action);
        }
        expect(result, `${t.id}: ${m.note}`).toBeDefined();
        if (m.note.includes("irreversible")) expect(result, `${t.id}: ${m.note}`).toBe("unreachable");
        outcome[result!]++;
      }
    }
    expect(outcome.restored / (outcome.restored + outcome.unreachable)).toBeGreaterThan(0.8);
  });
});
