import { describe, expect, it } from "vitest";
import { createStepSelector, guardedSelect } from "../../../packages/core/src/selectors/index.ts";
import { errorRandomStep } from "../../../packages/core/src/selectors/error-random.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { RecoveryStepSelector, SelectorInput } from "../../../packages/core/src/selector.ts";

const input = (errorStep: number, instanceKey = "task-1/0", seed = 0): SelectorInput => ({
  task: { id: "task-1", instruction: "" },
  history: [],
  errorStep,
  detection: { isError: true, errorStep, reason: "", confidence: 1 },
  instanceKey,
  seed,
  blobs: { get: async () => Buffer.alloc(0), has: async () => false },
});

describe("recovery-step selectors", () => {
  it("zero picks R = 0", async () => {
    expect((await createStepSelector("zero").select(input(7))).step).toBe(0);
  });
  it("error-minus-1 picks R = E-1, and 0 at E = 0", async () => {
    const s = createStepSelector("error-minus-1");
    expect((await s.select(input(7))).step).toBe(6);
    expect((await s.select(input(0))).step).toBe(0);
  });
  it("error-random picks a uniform past step before E, the same one on every run of the instance", async () => {
    const s = createStepSelector("error-random");
    const counts = new Array(10).fill(0);
    for (let k = 0; k < 2000; k++) {
      const r = (await s.select(input(10, `task-${k}/0`))).step;
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThan(10);
      counts[r]++;
    }
    for (const c of counts) expect(c).toBeGreaterThan(130); // ~200 each if uniform
    const a = await s.select(input(10, "task-1/0", 3));
    const b = await createStepSelector("error-random").select(input(10, "task-1/0", 3));
    expect(a.step).toBe(b.step);
    expect(errorRandomStep(3, "task-1/0", 10)).toBe(a.step);
    expect((await s.select(input(0))).step).toBe(0);
    const other = new Set(
      await Promise.all([1, 2, 3, 4, 5, 6].map(async (seed) => (await s.select(input(10, "task-1/0", seed))).step)),
    );
    expect(other.size).toBeGreaterThan(1);
  });
  it("llm uses the injected selector and needs one", async () => {
    expect(() => createStepSelector("llm")).toThrow(ConfigError);
    const llm: RecoveryStepSelector = { name: "llm", select: async () => ({ step: 2, reason: "model said so" }) };
    expect((await createStepSelector("llm", llm).select(input(5))).step).toBe(2);
  });
  it.each([
    [
      "throws",
      async () => {
        throw new Error("http 500");
      },
    ],
    ["picks a step after E", async () => ({ step: 9, reason: "" })],
    ["returns a fraction", async () => ({ step: 1.5, reason: "" })],
    ["reports a failure", async () => ({ step: 0, reason: "", failure: "unparseable" })],
  ])("a selector that %s falls back to E-1 with the failure recorded", async (_n, select) => {
    const r = await guardedSelect({ name: "bad", select: select as RecoveryStepSelector["select"] }, input(5));
    expect(r.step).toBe(4);
    expect(r.fallback).toBe(true);
    expect(r.failure).toBeTruthy();
  });
});
