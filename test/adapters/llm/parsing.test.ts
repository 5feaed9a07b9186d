import { describe, expect, it } from "vitest";
import { extractJsonObject } from "../../../packages/models/src/llm/json-reply.ts";
import { decideFromReply, defaultActionParser } from "../../../packages/models/src/llm/reply-actions.ts";

describe("extractJsonObject", () => {
  it("finds the object inside fences and prose, with braces inside strings", () => {
    expect(
      extractJsonObject('Sure.\n```json\n{"reason": "a } brace and \\" quote", "n": {"x": 1}}\n```\nDone.'),
    ).toEqual({ reason: 'a } brace and " quote', n: { x: 1 } });
  });

  it("says what is wrong when there is no object or it is not closed", () => {
    expect(() => extractJsonObject("no json here")).toThrow(/no JSON object/);
    expect(() => extractJsonObject('{"a": 1')).toThrow(/not closed/);
    expect(() => extractJsonObject("{a: 1}")).toThrow(SyntaxError);
  });
});

describe("decideFromReply", () => {
  const how = {
    parse: defaultActionParser,
    screen: { width: 1280, height: 800 },
    restoredToken: "RESTORED",
    doneMeansRestored: true,
  };

  it("reads a RESTORED line without code as the restored declaration", () => {
    expect(decideFromReply("Everything matches.\nRESTORED.", how)).toEqual({ actions: [], restored: true });
    expect(decideFromReply("restored", how).restored).toBe(true);
  });

  it("ignores the token when the reply also carries code, and runs the code instead", () => {
    const d = decideFromReply("Not RESTORED yet:\n```python\npyautogui.click(5, 6)\n```", how);
    expect(d.restored).toBeUndefined();
    expect(d.actions).toEqual([expect.objectContaining({ type: "CLICK", x: 5, y: 6 })]);
  });

  it("keeps actions that come before DONE and does not declare restored yet", () => {
    const d = decideFromReply("```python\npyautogui.press('enter')\n```\n```\nDONE\n```", how);
    expect(d).toEqual({ actions: [{ type: "PRESS", key: "enter" }] });
  });

  it("passes DONE on unchanged when DONE does not mean restored", () => {
    expect(decideFromReply("DONE", { parse: defaultActionParser, screen: how.screen })).toEqual({
      actions: [{ type: "DONE" }],
    });
  });

  it("turns prose without code into an 'empty' failure", () => {
    expect(decideFromReply("I think we should click the button.", how).failure?.kind).toBe("empty");
  });
});
