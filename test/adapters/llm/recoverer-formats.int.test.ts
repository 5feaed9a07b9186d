/**
 * The LLM recoverer and perturber in the non-pyautogui action formats (UI-TARS, OpenAI computer
 * use, Anthropic computer use), against the scripted server over real HTTP: the recovery prefixes
 * and the TARGET screenshot arrive server side, a RESTORED answer ends the attempt, unsafe or
 * unparseable answers are recorded step failures, and the perturber drifts in the same format.
 * (pyautogui is covered by recoverer.int.test.ts and perturber.int.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { createLlmPerturbationPolicy } from "../../../packages/models/src/llm/perturber.ts";
import { createLlmRecoveryPolicy, RESTORED_TOKEN } from "../../../packages/models/src/llm/recoverer.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createFormatPolicy, type AgentFormatSpec } from "../../../packages/models/src/policies/format.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import type { RecoveryDecision, RecoveryInput } from "../../../packages/core/src/recovery.ts";
import { makeHistory, screenshot, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Set the font of the title to Arial" };
const noEnv = { logLevel: "warn", ci: false };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Format = "uitars" | "openai-cua" | "anthropic";

/** The forward agent spec of a format, pointed at the scripted server. */
function agentSpec(format: Format, s: ScriptedOpenAIServer, blobs: BlobStore): AgentFormatSpec {
  if (format === "uitars")
    return {
      format,
      model: createOpenAIChatModel({ model: "ui-tars-1.5-7b", blobs, baseURL: s.url, apiKey: "k", maxRetries: 0 }),
    };
  if (format === "openai-cua") return { format, baseURL: s.url, apiKey: "k", maxRetries: 0, settings: noEnv };
  return { format, baseURL: s.origin, apiKey: "k", maxRetries: 0, settings: noEnv };
}

/** One scripted answer per format: an action (a click at 0.5/0.5 of the 64x40 screen), RESTORED, or junk. */
const ANSWERS: Record<
  Format,
  { click: ScriptStep; restored: ScriptStep; unsafe: ScriptStep; expectClick: { x: number; y: number } }
> = {
  uitars: {
    click: { endpoint: "chat", text: "Thought: close the dialog.\nAction: click(start_box='(500,500)')" },
    restored: { endpoint: "chat", text: `Thought: the screen matches the target.\n${RESTORED_TOKEN}` },
    unsafe: { endpoint: "chat", text: "Thought: wipe it.\nAction: os.system('rm -rf /')" },
    expectClick: { x: 32, y: 20 },
  },
  "openai-cua": {
    click: {
      endpoint: "responses",
      output: [
        {
          type: "computer_call",
          id: "cu_1",
          call_id: "call_1",
          action: { type: "click", x: 32, y: 20, button: "left" },
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    },
    restored: { endpoint: "responses", text: RESTORED_TOKEN },
    unsafe: {
      endpoint: "responses",
      output: [
        {
          type: "computer_call",
          id: "cu_2",
          call_id: "call_2",
          action: { type: "run_shell", command: "rm -rf /" },
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    },
    expectClick: { x: 32, y: 20 },
  },
  anthropic: {
    click: {
      endpoint: "messages",
      content: [
        { type: "tool_use", id: "toolu_1", name: "computer", input: { action: "left_click", coordinate: [32, 20] } },
      ],
    },
    restored: { endpoint: "messages", text: RESTORED_TOKEN },
    unsafe: {
      endpoint: "messages",
      content: [{ type: "tool_use", id: "toolu_2", name: "bash", input: { command: "rm -rf /" } }],
    },
    expectClick: { x: 32, y: 20 },
  },
};

/** System prompt and all user-visible text of a recorded request, whatever the API. */
function requestText(format: Format, body: any): { system: string; text: string } {
  const texts: string[] = [];
  const walk = (v: any) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    if (typeof v.text === "string") texts.push(v.text);
    if (typeof v.content === "string") texts.push(v.content);
    for (const k of Object.keys(v))
      if (k !== "text" && k !== "content" && k !== "source" && k !== "image_url") walk(v[k]);
    if (Array.isArray(v.content)) walk(v.content);
  };
  if (format === "uitars") {
    walk(body.messages.slice(1));
    return { system: body.messages[0].content, text: texts.join("\n") };
  }
  if (format === "openai-cua") {
    walk(body.input);
    return { system: body.instructions ?? "", text: texts.join("\n") };
  }
  walk(body.messages);
  return { system: body.system ?? "", text: texts.join("\n") };
}

async function setup(format: Format, script: ScriptStep[]) {
  const blobs = tempBlobs();
  server = await startScriptedOpenAIServer({ script });
  const history = await makeHistory(blobs, 4);
  const current = await screenshot(blobs, 250);
  const agent = agentSpec(format, server, blobs);
  const input = (recoveryHistory: HistoryEntry[], observation = current): RecoveryInput => ({
    task,
    target: { step: 2, observation: history[2].observation },
    errorStep: 3,
    context: { kind: "0-E", history: history.slice(0, 4) },
    recoveryHistory,
    observation,
    budget: { used: recoveryHistory.length, max: 10 },
    tick: 9,
    blobs,
  });
  return { blobs, history, current, agent, input };
}

const entryOf = (d: RecoveryDecision, step: number, observation: HistoryEntry["observation"]): HistoryEntry => ({
  step,
  observation,
  actions: d.actions,
  ...(d.response !== undefined && { response: d.response }),
  ...(d.memo !== undefined && { memo: d.memo }),
});

describe.each<Format>(["uitars", "openai-cua", "anthropic"])("LLM recoverer in the %s format", (format) => {
  const a = ANSWERS[format];
  const toolPrefix = format !== "uitars";

  it("sends the recovery prefixes and the TARGET screenshot, parses the format's action, then ends on RESTORED", async () => {
    const s = await setup(format, [a.click, a.restored]);
    const recoverer = createLlmRecoveryPolicy({ agent: s.agent, historyImages: 1 });
    const d0 = await recoverer.propose(s.input([]));
    expect(d0.failure).toBeUndefined();
    expect(d0.restored).toBeFalsy();
    expect(d0.actions).toEqual([expect.objectContaining({ type: "CLICK", ...a.expectClick })]);
    const prompt = toolPrefix
      ? "recovery.system-prefix.tool@1+recovery.instruction-prefix.tool@2"
      : "recovery.system-prefix@1+recovery.instruction-prefix@2+forward.uitars.computer@1";
    expect(d0.usage).toEqual([expect.objectContaining({ role: "recoverer", prompt })]);

    const r0 = server!.requests[0];
    const { system, text } = requestText(format, r0.body);
    expect(system.startsWith("RECOVERY MODE.")).toBe(true);
    if (format === "anthropic") expect(system).toContain("through the computer tool"); // the forward system prompt follows the prefix
    expect(text).toContain("Restore the desktop to the TARGET state: the state just before step 2");
    expect(text).toContain("up to the current screen (4 step(s)");
    expect(text).toContain(task.instruction);
    // the TARGET screenshot is the first image; the current screenshot is the last
    expect(r0.images[0].sha256).toBe(s.history[2].observation.screenshot);
    expect(r0.images.at(-1)!.sha256).toBe(s.current.screenshot);

    const after = await screenshot(s.blobs, 33);
    const d1 = await recoverer.propose(s.input([entryOf(d0, 0, s.current)], after));
    expect(d1).toMatchObject({ restored: true, actions: [] });
    expect(d1.failure).toBeUndefined();
    const r1 = server!.requests[1];
    if (format === "openai-cua") {
      // the conversation continues server side: the call is answered with the new screenshot, and the prefix is resent
      expect(r1.body.previous_response_id).toBeTruthy();
      expect(r1.body.input[0]).toMatchObject({ type: "computer_call_output", call_id: "call_1" });
      expect(r1.body.instructions.startsWith("RECOVERY MODE.")).toBe(true);
    } else {
      expect(r1.images[0].sha256).toBe(s.history[2].observation.screenshot);
    }
    expect(r1.images.at(-1)!.sha256).toBe(after.screenshot);
    server!.verify();
  });

  it("records an unsafe or unparseable answer as a failed step, never executes it", async () => {
    const s = await setup(format, [a.unsafe]);
    const d = await createLlmRecoveryPolicy({ agent: s.agent }).propose(s.input([]));
    expect(d.actions).toEqual([]);
    expect(d.restored).toBeFalsy();
    expect(d.failure?.kind).toMatch(/^(unparseable|unsafe)$/);
    expect(d.usage?.[0]).toMatchObject({ role: "recoverer" });
  });

  it("a hung model call is a recorded model-error step after timeoutMs, not a crash", async () => {
    const s = await setup(format, [{ ...a.click, delayMs: Infinity }]);
    const d = await createLlmRecoveryPolicy({ agent: s.agent, timeoutMs: 300 }).propose(s.input([]));
    expect(d.actions).toEqual([]);
    expect(d.failure).toMatchObject({ kind: "model-error", message: expect.stringMatching(/timed out after 300 ms/) });
  });

  it("the perturber drifts in the same format, tagged and budgeted", async () => {
    const s = await setup(format, [a.click]);
    const perturber = createLlmPerturbationPolicy({ agent: s.agent, budget: 1 });
    const obs = await screenshot(s.blobs, 77);
    const d = await perturber.propose({ task, history: [], observation: obs, step: 0, tick: 0, blobs: s.blobs });
    expect(d.actions).toEqual([expect.objectContaining({ type: "CLICK", ...a.expectClick })]);
    expect(d.memo).toMatchObject({ perturbation: true });
    expect(d.usage?.[0]).toMatchObject({ role: "perturber" });
    expect(requestText(format, server!.requests[0].body).text).toContain(
      `Task that must NOT be completed correctly:\n${task.instruction}`,
    );
    expect(server!.requests[0].images.at(-1)!.sha256).toBe(obs.screenshot);
    // the budget of 1 is spent by that tagged step: no second call
    const again = await perturber.propose({
      task,
      history: [{ step: 0, observation: obs, actions: d.actions, memo: d.memo }],
      observation: obs,
      step: 1,
      tick: 1,
      blobs: s.blobs,
    });
    expect(again.failure?.message).toMatch(/budget of 1/);
    expect(server!.calls).toBe(1);
    server!.verify();
  });

  it("the perturber continues the forward agent's own conversation and still gets the perturbation instruction", async () => {
    const s = await setup(format, [a.click, a.click]);
    const forward = createFormatPolicy(s.agent);
    const o0 = await screenshot(s.blobs, 71);
    const f0 = await forward.propose({ task, history: [], observation: o0, step: 0, tick: 0, blobs: s.blobs });
    expect(f0.failure).toBeUndefined();
    const o1 = await screenshot(s.blobs, 72);
    const history: HistoryEntry[] = [
      {
        step: 0,
        observation: o0,
        actions: f0.actions,
        ...(f0.memo !== undefined && { memo: f0.memo }),
        ...(f0.response !== undefined && { response: f0.response }),
      },
    ];
    const d = await createLlmPerturbationPolicy({ agent: s.agent }).propose({
      task,
      history,
      observation: o1,
      step: 1,
      tick: 1,
      blobs: s.blobs,
    });
    expect(d.actions).toEqual([expect.objectContaining({ type: "CLICK" })]);
    const req = server!.requests[1];
    if (format === "openai-cua") expect(req.body.previous_response_id).toBeTruthy();
    expect(requestText(format, req.body).text).toContain("Task that must NOT be completed correctly");
    expect(JSON.stringify(server!.requests[0].body)).not.toContain("must NOT be completed");
    server!.verify();
  });
});

describe("recovery agent defaults (paper App. B.2)", () => {
  it("the recoverer built from the forward agent's spec uses the same backbone and format", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({ script: [ANSWERS.uitars.click] });
    const forward: AgentFormatSpec = {
      format: "uitars",
      model: createOpenAIChatModel({ model: "ui-tars-1.5-7b", blobs, baseURL: server.url, apiKey: "k", maxRetries: 0 }),
      temperature: 1,
    };
    const history = await makeHistory(blobs, 2);
    const d = await createLlmRecoveryPolicy({ agent: forward }).propose({
      task,
      target: { step: 0, observation: history[0].observation },
      errorStep: 1,
      context: { kind: "none", history: [] },
      recoveryHistory: [],
      observation: history[1].observation,
      budget: { used: 0, max: 10 },
      tick: 0,
      blobs,
    });
    expect(d.actions).toEqual([expect.objectContaining({ type: "CLICK" })]);
    expect(server.requests[0].body.model).toBe("ui-tars-1.5-7b");
    expect(server.requests[0].body.temperature).toBe(1); // the forward agent's sampling, not a recovery default
  });

  it("rejects a spec without a model or with an unknown format with a ConfigError naming the field", () => {
    expect(() => createLlmRecoveryPolicy({} as never)).toThrow(/option "agent"/);
    expect(() => createLlmRecoveryPolicy({ agent: { format: "uitars" } as never })).toThrow(/agent\.model/);
    expect(() => createLlmRecoveryPolicy({ agent: { format: "xdotool" } as never })).toThrow(
      /agent\.format: must be one of "pyautogui", "uitars", "openai-cua", "anthropic"/,
    );
  });
});
