/**
 * The "Tasks recovery fixed or broke" rows and the baseline each recovery condition is paired
 * with: its own pair's `<pair>.no-recovery`, else plain `no-recovery`, else the run's only
 * baseline; none when the run has several and none is the condition's own.
 */
import { describe, expect, it } from "vitest";
import { baselineOf, pairedRows } from "../../../experiments/report/paired.ts";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";

const line = (condition: string, task: string, seed: number, success: boolean) =>
  ({ key: `${condition}/${task}/${seed}`, condition, task, seed, success, status: "ok" }) as ResultLine;

describe("fixed / broke rows with paired condition ids", () => {
  it("pairs <pair>.max-rec-N with <pair>.no-recovery, a pair without its own baseline with the shared one, and plain no-recovery as before", () => {
    const lines = [
      line("skilled.no-recovery", "a", 0, false),
      line("skilled.no-recovery", "b", 0, true),
      line("skilled.max-rec-3", "a", 0, true),
      line("skilled.max-rec-3", "b", 0, false),
      line("weak.max-rec-3", "a", 0, false),
      line("weak.max-rec-3", "b", 0, false),
    ];
    const rows = pairedRows(lines);
    expect(rows.map((r) => [r.condition, r.baseline, r.fixed, r.broken, r.pairs])).toEqual([
      ["skilled.max-rec-3", "skilled.no-recovery", 1, 1, 2],
      ["weak.max-rec-3", "skilled.no-recovery", 0, 1, 2],
    ]);
    // two pairs with their own baselines: each against its own
    const own = pairedRows([...lines, line("weak.no-recovery", "a", 0, true), line("weak.no-recovery", "b", 0, false)]);
    expect(own.find((r) => r.condition === "weak.max-rec-3")).toMatchObject({
      baseline: "weak.no-recovery",
      fixed: 0,
      broken: 1,
    });
    expect(pairedRows([line("no-recovery", "a", 0, false), line("max-rec-1", "a", 0, true)])).toMatchObject([
      { condition: "max-rec-1", baseline: "no-recovery", fixed: 1, broken: 0 },
    ]);
    expect(pairedRows([line("skilled.max-rec-3", "a", 0, true)])).toEqual([]);
  });
});

describe("baselineOf", () => {
  it("takes the pair's own baseline, else plain no-recovery, else the only one, else none", () => {
    expect(baselineOf("weak.max-rec-3", ["skilled.no-recovery", "weak.no-recovery"])).toBe("weak.no-recovery");
    expect(baselineOf("weak.max-rec-3", ["skilled.no-recovery", "no-recovery"])).toBe("no-recovery");
    expect(baselineOf("weak.max-rec-3", ["skilled.no-recovery"])).toBe("skilled.no-recovery");
    expect(baselineOf("weak.max-rec-3", ["skilled.no-recovery", "strong.no-recovery"])).toBeUndefined();
    expect(baselineOf("max-rec-1", [])).toBeUndefined();
  });

  it("leaves a pair out of the fixed/broke rows when several baselines exist and none is its own", () => {
    const rows = pairedRows([
      line("a.no-recovery", "t", 0, false),
      line("b.no-recovery", "t", 0, false),
      line("c.max-rec-1", "t", 0, true),
    ]);
    expect(rows).toEqual([]);
  });
});
