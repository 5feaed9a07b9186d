/**
 * runWithRecovery with the OpenAI Agents SDK's real run() loop (streamed on SimDesk): the agent's model is the SDK's
 * OpenAIResponsesModel over HTTP against a scripted server answering `/v1/responses` with
 * `computer_call` items; its computer tool is a RetraceComputer over SimDesk. The LLM detector
 * blames the wrong-item step, the LLM recovery sub-agent restores the state, and the requests the
 * scripted server received show the history cut at R with the transition string, nothing after R.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled, type Computer } from "@openai/agents";
import { createBrowserEnvironment, BROWSER_TASKS } from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { promptRef } from "../../../packages/core/src/prompt.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import { TRANSITION_PROMPTS } from "../../../packages/core/src/prompts/index.ts";
import { toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
const chromium = systemTools("the SDK wrapper on the browser environment", CHROMIUM_TOOLS);

/** The user's agent, unchanged between environments: only its Computer differs. */
function deskAgent(baseURL: string, computer: Computer) {
  return new Agent({
    name: "desk agent",
    instructions: "Operate the computer to complete the task.",
    model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey: "test-key", maxRetries: 0 }), "computer-use-preview"),
    tools: [computerTool({ computer })],
    modelSettings: { truncation: "auto" },
  });
}
const responsesCall = (a: Action, i: number) => ({
  endpoint: "responses" as const,
  output: [
    {
      type: "computer_call",
      id: `cu_${i}`,
      call_id: `call_${i}`,
      action: toOpenAIAction(a),
      pending_safety_checks: [],
      status: "completed",
    },
  ],
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const callIds = (body: any): string[] =>
  (body.input as any[]).filter((i) => i.type === "computer_call").map((i) => i.call_id);
const userTexts = (body: any): string[] =>
  (body.input as any[])
    .filter((i) => i.role === "user")
    .map((i) => (typeof i.content === "string" ? i.content : i.content.map((p: any) => p.text ?? "").join("")));

describe("runWithRecovery (OpenAI Agents SDK) on SimDesk", () => {
  it("detects the wrong item, recovers with the sub-agent and cuts the Responses input at R", async () => {
    const s = await wrongItemScenario(servers);
    const forward = s.forward.map(responsesCall);
    const agentServer = await startScriptedOpenAIServer({
      script: [...forward, { endpoint: "responses", text: "Renamed draft.txt to final.txt." }],
    });
    servers.push(agentServer);

    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const agent = deskAgent(agentServer.url, computer);
    const events = new EpisodeEvents();
    const truncations: Array<[number, number]> = [];
    events.on("truncate", (e) => void truncations.push([e.from, e.to]));
    const observe = vi.spyOn(s.env, "observe");
    const result = await runWithRecovery(agent, s.task.instruction, {
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      recoveryBudget: 4,
      task: s.task,
      instanceKey: `${s.task.id}/0`,
      events,
      detection: "sequential", // one model call per step: the script is in step order
      runOptions: { maxTurns: 30, stream: true }, // streamed, and awaited to completion
    });
    expect(result.evaluation).toMatchObject({ score: 1 });
    expect(result.success).toBe(true);
    expect(result.stopReason).toBe("done");
    expect(result.finalOutput).toBe("Renamed draft.txt to final.txt.");
    expect(
      result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    ).toEqual([[s.E + 1, s.R]]);
    expect(truncations).toEqual([[s.E + 1, s.R]]);
    expect(computer.log).toHaveLength(s.forward.length);
    // No observation per model turn: the detector gets the one the computer took after each action.
    // SimDesk's step observes once per action; besides those, only the run's start and the recovery sub-agent's first
    // look.
    const actions = computer.log.flatMap((e) => e.actions).length + result.accounting.recoverySteps;
    expect(observe.mock.calls.length).toBe(actions + 2);
    expect(result.accounting.envMs).toBeGreaterThan(0);
    expect(result.accounting.envMs).toBeLessThan(result.accounting.wallMs);

    const reqs = agentServer.requests;
    expect(reqs).toHaveLength(s.forward.length + 1);
    expect(reqs.every((r) => r.body.stream === true)).toBe(true);
    // Before the recovery the model saw every call so far.
    expect(callIds(reqs[s.E].body)).toEqual(["call_0", "call_1"]);
    // Right after it: the task, step 0 (kept, R=1) and the transition string; steps R..E are gone.
    const after = reqs[s.E + 1].body;
    expect(callIds(after)).toEqual(["call_0"]);
    expect((after.input as any[]).map((i) => i.type ?? i.role)).toEqual([
      after.input[0].type ?? "user",
      "computer_call",
      "computer_call_output",
      after.input[3].type ?? "user",
    ]);
    expect([after.input[0].role, after.input[3].role]).toEqual(["user", "user"]);
    expect(userTexts(after).at(-1)).toMatch(/state it had at step 1\b/);
    // Nothing after R ever comes back: later requests carry only the new calls.
    for (const r of reqs.slice(s.E + 1)) {
      const ids = callIds(r.body);
      for (let k = s.R; k <= s.E; k++) expect(ids).not.toContain(`call_${k}`);
      expect(userTexts(r.body).some((t) => /state it had at step 1\b/.test(t))).toBe(true);
    }
    expect(callIds(reqs.at(-1)!.body)).toEqual([
      "call_0",
      ...s.forward.slice(s.E + 1).map((_, k) => `call_${s.E + 1 + k}`),
    ]);

    // The recoverer was shown o_R and acted on the desk; accounting and prompts as the graph keeps them.
    expect(s.rec.server.requests[0].images[0].sha256).toBe(result.trajectory.steps[s.R].before);
    expect(result.accounting).toMatchObject({
      detectorCalls: 3,
      recoveryAttempts: 1,
      recoverySteps: 1,
      frozenSkipped: 5,
      forwardSteps: s.forward.length,
    });
    expect(result.accounting.models.recoverer?.calls).toBe(2);
    expect(result.accounting.models.detector?.calls).toBe(3);
    expect(result.prompts).toContain(promptRef(TRANSITION_PROMPTS.short));
    expect(result.simulated).toBe(false);
    s.det.server.verify();
    s.rec.server.verify();
    agentServer.verify();
  });

  it("rejects bad options with one ConfigError line", async () => {
    const s = await wrongItemScenario(servers);
    const agent = new Agent({
      name: "a",
      tools: [computerTool({ computer: retraceComputer({ env: s.env, blobs: s.blobs }) })],
    });
    await expect(runWithRecovery(agent, "x", { env: s.env, blobs: s.blobs, detector: s.detector })).rejects.toThrow(
      ConfigError,
    );
    await expect(
      runWithRecovery(agent, "x", {
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        freezeWindow: -1,
      }),
    ).rejects.toThrow(/option "freezeWindow"/);
    await expect(
      runWithRecovery(agent, "x", {
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        runOptions: { previousResponseId: "resp_1" } as never,
      }),
    ).rejects.toThrow(/option "runOptions\.previousResponseId" is not supported/);
  });
});

describe.runIf(chromium.run)("runWithRecovery (OpenAI Agents SDK) on the browser environment", () => {
  it("the same agent recovers from opening the wrong email and replies to Bob", async () => {
    chromium.assert();
    const blobs = tempBlobs();
    const env = await createBrowserEnvironment({ blobs });
    try {
      const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!; // step 0: opens Alice's email
      await env.reset(task);
      const det = await scriptedModel(blobs, [
        {
          text: '{"off_track": true, "error_step": 0, "reason": "opened Alice\'s email, the task is about Bob", "confidence": 0.9}',
        },
      ]);
      const inbox = centre(MAIL.folder.inbox);
      const rec = await scriptedModel(blobs, [
        { text: `Back to the inbox.\n\`\`\`python\npyautogui.click(${inbox.x}, ${inbox.y})\n\`\`\`` },
        { text: "RESTORED" },
      ]);
      const forward = [...mistake.actions, ...task.plan.filter((a) => a.type !== "DONE")];
      const agentServer = await startScriptedOpenAIServer({
        script: [...forward.map(responsesCall), { endpoint: "responses", text: "Replied to Bob." }],
      });
      servers.push(det.server, rec.server, agentServer);

      const computer = retraceComputer({ env, blobs });
      const observe = vi.spyOn(env, "observe");
      const result = await runWithRecovery(deskAgent(agentServer.url, computer), task.instruction, {
        env,
        blobs,
        detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
        recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
        recoveryBudget: 3,
        task,
        detection: "sequential", // one model call per step: the script is in step order
        runOptions: { maxTurns: 20 },
      });
      expect(computer.environment).toBe("browser");
      // One screenshot per action (taken by the step), none per model turn: observe() only at the start and for the
      // recovery sub-agent's first look.
      expect(observe).toHaveBeenCalledTimes(2);
      expect(result.accounting.envMs).toBeGreaterThan(0);
      expect(result.evaluation.score).toBe(1); // the app's server state: one reply to Bob
      expect(
        result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
      ).toEqual([[1, 0]]);
      const after = agentServer.requests[1].body;
      expect(callIds(after)).toEqual([]); // R = 0: the task and the transition string only
      expect(userTexts(after).at(-1)).toMatch(/state it had at step 0\b/);
      for (const r of agentServer.requests.slice(1)) expect(callIds(r.body)).not.toContain("call_0");
      expect(result.accounting).toMatchObject({
        detectorCalls: 1,
        recoveryAttempts: 1,
        recoverySteps: 1,
        forwardSteps: forward.length,
      });
      expect(rec.server.requests[0].images[0].sha256).toBe(result.trajectory.steps[0].before);
      det.server.verify();
      rec.server.verify();
      agentServer.verify();
    } finally {
      await env.close();
    }
  });
});
