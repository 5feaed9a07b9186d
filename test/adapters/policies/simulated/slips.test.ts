import { describe, expect, it } from "vitest";
import type { Observation } from "../../../../packages/core/src/observation.ts";
import { createRng } from "../../../../packages/core/src/rng.ts";
import { clickableNodes, misclick, typo, wrongItem } from "../../../../packages/simdesk/src/agents/index.ts";

const screen: Observation = {
  screenshot: "0".repeat(64),
  width: 1280,
  height: 800,
  axTree: {
    role: "desktop",
    name: "",
    bounds: [0, 0, 1280, 800],
    children: [
      {
        role: "window",
        name: "Editor",
        bounds: [100, 50, 800, 600],
        children: [
          { role: "button", name: "Save", bounds: [110, 60, 60, 24] },
          { role: "button", name: "Open", bounds: [180, 60, 60, 24] },
          { role: "button", name: "Print", bounds: [250, 60, 60, 24], states: ["disabled"] },
        ],
      },
    ],
  },
};

describe("slip construction", () => {
  it("a typo always changes the text and keeps its length within one character", () => {
    for (let i = 0; i < 300; i++) {
      const out = typo({ type: "TYPING", text: i % 3 === 0 ? "a" : "report.csv" }, createRng(i));
      expect(out?.type).toBe("TYPING");
      const text = (out as { text: string }).text;
      expect(text).not.toBe(i % 3 === 0 ? "a" : "report.csv");
      expect(Math.abs(text.length - (i % 3 === 0 ? 1 : 10))).toBeLessThanOrEqual(1);
    }
    expect(typo({ type: "PRESS", key: "enter" }, createRng(1))).toBeNull();
  });

  it("a misclick lands 12-48 px from the target and stays on screen", () => {
    for (let i = 0; i < 200; i++) {
      const out = misclick({ type: "CLICK", x: 5, y: 400, button: "left", numClicks: 1 }, screen, createRng(i)) as {
        x: number;
        y: number;
      };
      const d = Math.hypot(out.x - 5, out.y - 400);
      expect(out.x).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(49);
      if (out.x > 0) expect(d).toBeGreaterThanOrEqual(11);
    }
    expect(misclick({ type: "TYPING", text: "x" }, screen, createRng(1))).toBeNull();
  });

  it("a wrong item is another enabled widget, never the one the plan targets", () => {
    expect(clickableNodes(screen.axTree).map((n) => n.name)).toEqual(["Save", "Open"]);
    for (let i = 0; i < 50; i++) {
      const out = wrongItem({ type: "CLICK", x: 140, y: 70, button: "left", numClicks: 1 }, screen, createRng(i));
      expect(out).toEqual({ type: "CLICK", x: 210, y: 72, button: "left", numClicks: 1 });
    }
    expect(
      wrongItem(
        { type: "CLICK", x: 140, y: 70, button: "left", numClicks: 1 },
        { ...screen, axTree: undefined },
        createRng(1),
      ),
    ).toBeNull();
  });
});
