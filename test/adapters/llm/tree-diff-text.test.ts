/** treeDiffText: a step's accessibility-tree change as changed lines, under an optional cap shared by removed and added lines. */
import { describe, expect, it } from "vitest";
import { treeDiffText } from "../../../packages/models/src/llm/detector.ts";

describe("treeDiffText", () => {
  const tree = (lines: string[]) => ["header", ...lines].join("\n");
  it("keeps every changed line without a cap, and says so when nothing changed", () => {
    expect(treeDiffText(tree(["a", "b"]), tree(["a", "c"]))).toBe("- b\n+ c");
    expect(treeDiffText(tree(["a"]), tree(["a"]), 4)).toBe("(no change)");
    expect(treeDiffText(tree(["a", "b"]), tree(["a", "c"]), 2)).toBe("- b\n+ c");
  });
  it("with a cap, shares it between removed and added lines, giving a short side's share to the other", () => {
    const many = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    expect(treeDiffText(tree(many("x", 5)), tree(many("y", 5)), 4).split("\n")).toEqual([
      "- x0",
      "- x1",
      "+ y0",
      "+ y1",
      "(6 more changed lines not shown)",
    ]);
    expect(treeDiffText(tree(["k"]), tree(["k", ...many("y", 6)]), 4).split("\n")).toEqual([
      "+ y0",
      "+ y1",
      "+ y2",
      "+ y3",
      "(2 more changed lines not shown)",
    ]);
    expect(treeDiffText(tree(["x0", "k"]), tree(["k", ...many("y", 6)]), 4).split("\n")).toEqual([
      "- x0",
      "+ y0",
      "+ y1",
      "+ y2",
      "(3 more changed lines not shown)",
    ]);
  });
});
