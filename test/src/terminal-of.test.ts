import { describe, expect, it } from "vitest";
import { terminalOf, type Action } from "../../packages/core/src/action.ts";

describe("terminalOf", () => {
  it("is the first DONE/FAIL over the steps, or null", () => {
    const press: Action = { type: "PRESS", key: "shift" };
    expect(terminalOf([[press], [{ type: "FAIL" }]])).toBe("FAIL");
    expect(terminalOf([[press, { type: "DONE" }], [{ type: "FAIL" }]])).toBe("DONE");
    expect(terminalOf([[press], []])).toBeNull();
    expect(terminalOf([])).toBeNull();
  });
});
