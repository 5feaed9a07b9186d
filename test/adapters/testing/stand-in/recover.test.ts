/** The stand-in recoverer's visible fixes on a spreadsheet, where the formula bar mirrors the selected cell. */
import { describe, expect, it } from "vitest";
import { visibleFix } from "../../../../packages/testing/src/stand-in/recover.ts";
import type { TreeLine } from "../../../../packages/testing/src/stand-in/request.ts";

const line = (role: string, name: string, value: string, states: string[] = [], x = 0): TreeLine => ({
  role,
  name,
  value,
  states,
  x,
  y: 100,
  w: 80,
  h: 20,
  raw: "",
});
/** A sheet with A1 = "3", A2 = a2, the given cell selected, and the formula bar showing it. */
function sheet(a2: string, selected: "A1" | "A2"): TreeLine[] {
  const cells = { A1: "3", A2: a2 };
  return [
    line("window", "prices.csv - Sheet", ""),
    line("text", "Formula bar", cells[selected]),
    line("cell", "A1", "3", selected === "A1" ? ["selected"] : [], 100),
    line("cell", "A2", a2, selected === "A2" ? ["selected"] : [], 200),
  ];
}

describe("stand-in recoverer on a sheet", () => {
  it("undoes a cell whose value differs from the TARGET", () => {
    const fix = visibleFix(sheet("4", "A1"), sheet("9", "A2"));
    expect(fix?.action).toEqual({ type: "HOTKEY", keys: ["ctrl", "z"] });
    expect(fix?.why).toMatch(/Cell A2 differs/);
  });

  it("selects the TARGET's cell when only the selection moved, instead of undoing for the formula bar", () => {
    const fix = visibleFix(sheet("4", "A1"), sheet("4", "A2"));
    expect(fix?.action).toEqual({ type: "CLICK", x: 140, y: 110, button: "left", numClicks: 1 });
    expect(visibleFix(sheet("4", "A1"), sheet("4", "A1"))).toBeUndefined();
  });
});
