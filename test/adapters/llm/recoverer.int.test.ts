import { afterEach, describe, expect, it } from "vitest";
import { createLlmRecoveryPolicy, RESTORED_TOKEN } from "../../../packages/models/src/llm/recoverer.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { RecoveryContextKind, RecoveryInput } from "../../../packages/core/src/recovery.ts";
import { makeHistory, requestText, screenshot, scriptedModel, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Set the font of the title to Arial" };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function propose(script: ScriptStep[], kind: RecoveryContextKind = "0-E", extra: Partial<RecoveryInput> = {}) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script);
  server = s.server;
  const history = await makeHistory(blobs, 4);
  const current = await screenshot(blobs, 250);
  const context =
    kind === "0-E"
      ? { kind, history: history.slice(0, 3) }
      : kind === "0-R"
        ? { kind, history: history.slice(0, 2) }
        : kind === "none"
          ? { kind, history: [] }
          : { kind, history: [], summary: "TARGET STATE: Writer open, title selected." };
  const input: RecoveryInput = {
    task,
    target: { step: 2, observation: history[2].observation },
    errorStep: 3,
    context,
    recoveryHistory: [],
    observation: current,
    budget: { used: 0, max: 10 },
    tick: 5,
    blobs,
    ...extra,
  };
  const decision = await createLlmRecoveryPolicy({
    model: s.model,
    actionFormat: "pyautogui",
    historyImages: 1,
  }).propose(input);
  return { decision, history, current };
}

describe("createLlmRecoveryPolicy over HTTP", () => {
  it("sends the recovery prefixes, the target screenshot and the 0-E history, and parses pyautogui code", async () => {
    const { decision, history, current } = await propose([
      { text: "The dialog must close.\n```python\npyautogui.hotkey('ctrl', 'z')\npyautogui.click(12, 30)\n```" },
    ]);
    expect(decision.actions).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "z"] },
      expect.objectContaining({ type: "CLICK", x: 12, y: 30 }),
    ]);
    expect(decision.restored).toBeFalsy();
    expect(decision.failure).toBeUndefined();
    expect(decision.usage).toEqual([
      expect.objectContaining({
        role: "recoverer",
        prompt:
          "recovery.system-prefix@1+recovery.instruction-prefix@2+forward.pyautogui.system@2+forward.pyautogui.step@2",
      }),
    ]);
    const req = server!.requests[0];
    // target first, then the last context screenshot (entry 2 = the target too), then current.
    expect(req.images.map((i) => i.sha256)).toEqual([
      history[2].observation.screenshot,
      history[2].observation.screenshot,
      current.screenshot,
    ]);
    const system = req.body.messages[0].content as string;
    expect(system.startsWith("RECOVERY MODE.")).toBe(true);
    expect(system).toContain("pyautogui");
    const text = requestText(req.body);
    expect(text).toContain("history up to the current screen (3 step(s)");
    expect(text).toContain("Task: Set the font of the title to Arial");
    expect(text).toContain(`reply with ${RESTORED_TOKEN} alone`);
    server!.verify();
  });

  it("declares the target restored when the model answers RESTORED", async () => {
    const { decision } = await propose([{ text: "The screen matches the target now.\n\n**RESTORED**" }], "none");
    expect(decision).toMatchObject({ restored: true, actions: [] });
    expect(server!.requests[0].images).toHaveLength(2); // target + current, no history with "none"
  });

  it("treats a bare DONE as restored and FAIL as a recorded give-up", async () => {
    expect((await propose([{ text: "DONE" }])).decision).toMatchObject({ restored: true, actions: [] });
    await server!.close();
    const { decision } = await propose([{ text: "```python\nFAIL\n```" }]);
    expect(decision.restored).toBeFalsy();
    expect(decision.failure).toMatchObject({ kind: "refused" });
  });

  it("records malformed or unsafe output as a failure instead of crashing", async () => {
    const bad = await propose([{ text: "```python\nimport os\nos.system('rm -rf /')\n```" }]);
    expect(bad.decision.actions).toEqual([]);
    expect(bad.decision.failure).toMatchObject({ kind: "unsafe" });
    expect(bad.decision.response).toContain("os.system");
    await server!.close();
    const garbled = await propose([{ text: "```python\npyautogui.click(10, \n```" }]);
    expect(garbled.decision.failure?.kind).toBe("unparseable");
  });

  it("puts the contextualized summary in the request and reports a model error as a failure", async () => {
    const { decision } = await propose([{ status: 500 }], "contextualized");
    expect(decision.failure).toMatchObject({ kind: "model-error" });
    expect(requestText(server!.requests[0].body)).toContain("TARGET STATE: Writer open, title selected.");
  });

  it("shows the steps already taken in this attempt and the budget left", async () => {
    const blobs = tempBlobs();
    const prior = await makeHistory(blobs, 2);
    const { decision } = await propose([{ text: "```python\npyautogui.press('enter')\n```" }], "0-R", {
      recoveryHistory: prior,
      budget: { used: 2, max: 10 },
    });
    expect(decision.actions).toEqual([{ type: "PRESS", key: "enter" }]);
    const body = server!.requests[0].body;
    // system, preamble (target + context), then the attempt's two steps as the agent's own turns, then now
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    // recoveryImages 1: the older step as a text summary, the latest with its screenshot and answer
    expect(body.messages[2].content).toContain("Step 0: CLICK(10,20)");
    expect(body.messages[5].content).toBe("CLICK(11,20)");
    expect(requestText(body)).toContain("at most 8 more action step(s)");
  });
  it('layout "cached": the calls of one attempt repeat a byte-identical instruction; the steps left are on the current turn only (paper: in every turn)', async () => {
    const blobs = tempBlobs();
    const s = await scriptedModel(blobs, [
      { text: "```python\npyautogui.click(1, 1)\n```" },
      { text: "```python\npyautogui.click(2, 2)\n```" },
      { text: "```python\npyautogui.click(1, 1)\n```" },
      { text: "```python\npyautogui.click(2, 2)\n```" },
    ]);
    server = s.server;
    const history = await makeHistory(blobs, 4);
    const current = await screenshot(blobs, 250);
    const base: RecoveryInput = {
      task,
      target: { step: 2, observation: history[2].observation },
      errorStep: 3,
      context: { kind: "contextualized", history: [], summary: "TARGET STATE: Writer open." },
      recoveryHistory: [],
      observation: current,
      budget: { used: 0, max: 10 },
      tick: 5,
      blobs,
    };
    const second = (): RecoveryInput => ({
      ...base,
      recoveryHistory: [
        { step: 0, observation: current, actions: [{ type: "CLICK", x: 1, y: 1, button: "left", numClicks: 1 }] },
      ],
      budget: { used: 1, max: 10 },
    });
    const userTexts = (i: number) =>
      (s.server.requests[i].body.messages as Array<{ role: string; content: unknown }>)
        .filter((m) => m.role === "user")
        .map((m) =>
          typeof m.content === "string"
            ? m.content
            : (m.content as Array<{ text?: string }>).map((p) => p.text ?? "").join("|"),
        );

    const cached = createLlmRecoveryPolicy({ model: s.model, historyImages: 1, recoveryImages: 2, layout: "cached" });
    const d = await cached.propose(base);
    expect(d.usage?.[0].prompt).toContain("recovery.instruction-prefix-stable@1");
    await cached.propose(second());
    const [c1, c2] = [userTexts(0), userTexts(1)];
    // Call 2 starts with call 1's messages up to its current turn, byte for byte.
    expect(c2.slice(0, c1.length - 1)).toEqual(c1.slice(0, -1));
    // ...and its current turn is call 2's first turn plus the steps-left line, which comes last.
    expect(c1.at(-1)).toBe(`${c2[c1.length - 1]}|Recovery action steps left: 10 of 10.`);
    expect(c2.at(-1)!.endsWith("|Recovery action steps left: 9 of 10.")).toBe(true);
    expect(c2.slice(0, -1).join("\n")).not.toContain("steps left");

    const paper = createLlmRecoveryPolicy({ model: s.model, historyImages: 1, recoveryImages: 2 });
    await paper.propose(base);
    await paper.propose(second());
    const [p1, p2] = [userTexts(2), userTexts(3)];
    expect(p1.at(-1)).toContain("at most 10 more action step(s)");
    // The paper layout re-renders every turn with the new count: the earlier turn changed.
    expect(p2[p1.length - 1]).toContain("at most 9 more action step(s)");
    expect(p2.join("\n")).not.toContain("at most 10 more");
    expect(() => createLlmRecoveryPolicy({ model: s.model, layout: "stable" as never })).toThrow(/layout/);
    s.server.verify();
  });
});
