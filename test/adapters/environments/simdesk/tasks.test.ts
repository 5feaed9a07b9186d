import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { getSimDeskTask, SIMDESK_TASKS, SLIP_KINDS } from "../../../../packages/simdesk/src/simdesk.ts";
import { makeDesk, perturbedPlan } from "./helpers.ts";

describe("SimDesk task suite", () => {
  it("has at least 40 tasks over all four apps with 5 to 30 step plans and unique ids", () => {
    expect(SIMDESK_TASKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SIMDESK_TASKS.map((t) => t.id)).size).toBe(SIMDESK_TASKS.length);
    const apps = new Set(SIMDESK_TASKS.flatMap((t) => t.apps ?? []));
    expect([...apps].sort()).toEqual(["editor", "files", "settings", "sheet"]);
    for (const t of SIMDESK_TASKS) {
      expect(t.plan.length, t.id).toBeGreaterThanOrEqual(5);
      expect(t.plan.length, t.id).toBeLessThanOrEqual(30);
      expect(
        t.mistakes.some((m) => m.kind === "latent"),
        t.id,
      ).toBe(true);
      expect(
        t.mistakes.some((m) => m.kind === "wrong-item"),
        t.id,
      ).toBe(true);
      for (const m of t.mistakes) {
        expect(SLIP_KINDS).toContain(m.kind);
        expect(m.atStep).toBeLessThan(t.plan.length);
      }
    }
    expect(SIMDESK_TASKS.filter((t) => t.tags?.includes("irreversible")).length).toBeGreaterThanOrEqual(3);
    expect(SIMDESK_TASKS.filter((t) => t.tags?.includes("cross-app")).length).toBeGreaterThanOrEqual(5);
    expect(new Set(SIMDESK_TASKS.map((t) => t.horizon))).toEqual(new Set(["short", "medium", "long"]));
  });

  it("solves every task with its reference plan on a fresh SimDesk (score 1)", async () => {
    const { desk } = makeDesk({ accessibility: false });
    for (const t of SIMDESK_TASKS) {
      await desk.reset(t);
      for (const a of t.plan) expect(desk.apply(a).noop, `${t.id}: ${JSON.stringify(a)}`).toBe(false);
      const r = await desk.evaluate();
      expect(r, t.id).toMatchObject({ score: 1 });
    }
  });

  it("fails every task when any of its listed mistakes replaces the plan step", async () => {
    const { desk } = makeDesk({ accessibility: false });
    for (const t of SIMDESK_TASKS) {
      for (const m of t.mistakes) {
        await desk.reset(t);
        for (const a of perturbedPlan(t, m)) desk.apply(a);
        expect((await desk.evaluate()).score, `${t.id}: ${m.note}`).toBe(0);
      }
    }
  });

  it("looks tasks up by id and names close ids for an unknown one", () => {
    expect(getSimDeskTask("files-rename-draft").id).toBe("files-rename-draft");
    expect(() => getSimDeskTask("files-rename-drafts")).toThrow(ConfigError);
    expect(() => getSimDeskTask("files-rename-drafts")).toThrow(/files-rename-draft/);
  });
});
