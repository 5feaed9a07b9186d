/**
 * Choosing R_Om's local floor on half of the tasks: the split, the rule (best tuning agreement,
 * lowest tau among ties) and the two-fold cross-validation.
 */
import { describe, expect, it } from "vitest";
import {
  chooseFloor,
  crossValidate,
  floorRow,
  jointWithFloor,
  splitTasks,
  type FloorRecord,
} from "../../../experiments/recovery-eval/local-floor.ts";

const rec = (taskId: string, truth: boolean, local: number, extra: Partial<FloorRecord> = {}): FloorRecord => ({
  run: `${taskId} ${local}`,
  taskId,
  noise: "off",
  truth,
  rtc: true,
  ro: true,
  meanPass: true,
  local: { 1: local, 4: local },
  ...extra,
});

describe("local floor choice", () => {
  it("splits tasks sorted by id into even (tuning) and odd (held-out) positions", () => {
    const { tune, heldOut } = splitTasks(["c", "a", "b", "a", "d"]);
    expect([...tune]).toEqual(["a", "c"]);
    expect([...heldOut]).toEqual(["b", "d"]);
  });

  it("picks the tau with the best tuning agreement, the lowest among ties, and counts like the agreement rows", () => {
    // Truly recovered runs score >= 0.3 locally, leftovers <= 0.1: every tau in (0.1, 0.3] is best.
    const tune = [rec("a", true, 0.35), rec("a", true, 0.3), rec("a", false, 0.1), rec("a", false, 0.05)];
    expect(chooseFloor(tune, 4, [-Infinity, 0, 0.2, 0.3, 0.5]).tau).toBe(0.2);
    const row = floorRow(tune, jointWithFloor(-Infinity, 4));
    expect({ tp: row.tp, fp: row.fp, tn: row.tn, fn: row.fn }).toEqual({ tp: 2, fp: 2, tn: 0, fn: 0 });
    // R_TC still gates: a run R_TC rejects is negative whatever the floor.
    expect(floorRow([rec("a", true, 1, { rtc: false })], jointWithFloor(0.2, 4)).fn).toBe(1);
  });

  it("cross-validates: tau from one half judged on the other, both ways", () => {
    const records = [rec("a", true, 0.4), rec("a", false, 0.1), rec("b", true, 0.15), rec("b", false, 0.05)];
    const cv = crossValidate(records, 4);
    // Tuned on a: tau 0.2, which rejects b's truly recovered 0.15 (one FN). On b no grid tau
    // separates 0.05 from 0.15, so the tie goes to no floor, which lets a's leftover pass (one FP).
    expect(cv.folds.map((f) => f.tau)).toEqual([0.2, -Infinity]);
    expect(cv.folds[0].heldOut.fn).toBe(1);
    expect(cv.folds[1].heldOut.fp).toBe(1);
    expect(cv.n).toBe(4);
    expect(cv.agree).toBe(2);
  });
});
