import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { defaultToActions, messagesBeforeStep, stepStarts } from "../../../packages/langchain/src/steps.ts";

const ai = (id: string, calls = 1) =>
  new AIMessage({
    content: "",
    tool_calls: Array.from({ length: calls }, (_, i) => ({
      id: `${id}-${i}`,
      name: "computer",
      args: { action: { type: "PRESS", key: "a" } },
    })),
  });
const tool = (id: string) => new ToolMessage({ content: "ok", tool_call_id: id });

describe("step boundaries of a createAgent history", () => {
  const messages = [
    new HumanMessage("task"),
    ai("s0", 2),
    tool("s0-0"),
    tool("s0-1"),
    new HumanMessage("note"),
    ai("s1"),
    tool("s1-0"),
    new AIMessage("final answer"),
  ];

  it("counts only AI messages that call tools as steps", () => {
    expect(stepStarts(messages)).toEqual([1, 5]);
  });

  it("keeps everything before step R's AI message, including all tool results of earlier steps", () => {
    expect(messagesBeforeStep(messages, 0)).toHaveLength(1);
    expect(messagesBeforeStep(messages, 1).map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "human"]);
    expect(messagesBeforeStep(messages, 2)).toHaveLength(messages.length);
  });
});

describe("defaultToActions", () => {
  it("reads an Action from an `action` argument, a list from `actions`, or the tool name plus args", () => {
    expect(defaultToActions({ name: "computer", args: { action: { type: "CLICK", x: 1, y: 2 } } })).toEqual([
      { type: "CLICK", x: 1, y: 2, button: "left", numClicks: 1 },
    ]);
    expect(
      defaultToActions({
        name: "computer",
        args: {
          actions: [
            { type: "PRESS", key: "enter" },
            { type: "TYPING", text: "hi" },
          ],
        },
      }),
    ).toHaveLength(2);
    expect(defaultToActions({ name: "hotkey", args: { keys: ["ctrl", "s"] } })).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "s"] },
    ]);
  });

  it("maps tools it cannot read to no actions rather than guessing", () => {
    expect(defaultToActions({ name: "search_web", args: { q: "x" } })).toEqual([]);
    expect(defaultToActions({ name: "computer", args: { action: { type: "TELEPORT" } } })).toEqual([]);
  });
});
