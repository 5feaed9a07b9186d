/**
 * Overlapped detection on the SDK path (issue 40, item 3): the verdict on step t is computed while
 * the model produces step t+1, and retrace's computer holds that action until the verdict. The
 * same scripted episode (SimDesk's wrong-item mistake at E=2, R=1) runs sequential and overlapped
 * in the OpenAI Agents SDK's run() and the AI SDK's generateText; the decisions (E, R, attempts,
 * the cut, every executed action) must be the same, the discarded step t+1 output must never
 * execute, and it must never be sent again. The agent's model answers by the state of its input
 * (how many steps it holds, whether the post-restoration notice is there), as a real model would,
 * so an extra, discarded call does not shift its answers.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, run, setTracingDisabled } from "@openai/agents";
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAgentsRecovery, retraceComputer } from "retrace-cua/openai-agents";
import { createRecovery, retraceComputerTool } from "retrace-cua/ai-sdk";
import type { Action } from "../../../packages/core/src/action.ts";
import type { EpisodeResult } from "../../../packages/core/src/episode.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Scenario = Awaited<ReturnType<typeof wrongItemScenario>>;
const NOTICE = /state it had at step/;

/**
 * The next action for an input holding `n` steps: the scenario's forward run before recovery, the plan again from R
 * after it.
 */
function nextAction(s: Scenario, n: number, recovered: boolean): Action | undefined {
  return recovered ? s.task.plan[n] : s.forward[n];
}

/** What the runs decided: E and R per attempt, the cuts, the executed actions, the detector's verdicts. */
function decisions(r: EpisodeResult, events: Array<[string, unknown]>) {
  return {
    recoveryAttempts: r.accounting.recoveryAttempts,
    forwardSteps: r.accounting.forwardSteps,
    detectorCalls: r.accounting.detectorCalls,
    executed: r.trajectory.steps.map((st) => [st.role, st.step, st.actions]),
    cuts: r.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    events,
    success: r.success,
  };
}

function recordEvents(events: EpisodeEvents): Array<[string, unknown]> {
  const seen: Array<[string, unknown]> = [];
  events.on(
    "detection",
    (e) => void seen.push(["detection", [e.step, e.detection.isError, e.detection.errorStep, e.triggered]]),
  );
  events.on("selection", (e) => void seen.push(["selection", [e.errorStep, e.recoveryStep]]));
  events.on("recovery-end", (e) => void seen.push(["recovery-end", [e.attempt, e.restored, e.steps]]));
  events.on("truncate", (e) => void seen.push(["truncate", [e.from, e.to]]));
  return seen;
}

async function agentsRun(detection: "sequential" | "overlapped", stream = false) {
  const s = await wrongItemScenario(servers);
  let k = 0;
  const agentServer = await startScriptedOpenAIServer({
    responder: (req: RecordedRequest) => {
      const input = req.body.input as any[];
      const n = input.filter((i) => i.type === "computer_call").length;
      const recovered = input.some((i) => i.role === "user" && NOTICE.test(JSON.stringify(i.content)));
      const a = nextAction(s, n, recovered);
      if (!a) return { endpoint: "responses", text: "Renamed draft.txt to final.txt." };
      const id = k++;
      return {
        endpoint: "responses",
        output: [
          {
            type: "computer_call",
            id: `cu_${id}`,
            call_id: `call_${id}`,
            action: toOpenAIAction(a),
            pending_safety_checks: [],
            status: "completed",
          },
        ],
      };
    },
  });
  servers.push(agentServer);
  const computer = retraceComputer({ env: s.env, blobs: s.blobs });
  const agent = new Agent({
    name: "desk agent",
    instructions: "Operate the computer to complete the task.",
    model: new OpenAIResponsesModel(
      new OpenAI({ baseURL: agentServer.url, apiKey: "test-key", maxRetries: 0 }),
      "computer-use-preview",
    ),
    tools: [computerTool({ computer })],
  });
  const events = new EpisodeEvents();
  const seen = recordEvents(events);
  const recovery = createAgentsRecovery({
    env: s.env,
    blobs: s.blobs,
    detector: s.detector,
    recoverer: s.recoverer,
    recoveryBudget: 4,
    task: s.task,
    instanceKey: `${s.task.id}/0`,
    events,
    detection,
  });
  const result = stream
    ? await run(agent, s.task.instruction, { ...recovery.runConfig, maxTurns: 30, stream: true })
    : await run(agent, s.task.instruction, { ...recovery.runConfig, maxTurns: 30 });
  const episode = await recovery.finish(result);
  return { s, episode, seen, computer, requests: agentServer.requests, history: recovery.history() };
}

async function aiSdkRun(detection: "sequential" | "overlapped") {
  const s = await wrongItemScenario(servers);
  let k = 0;
  const server = await startScriptedOpenAIServer({
    responder: (req: RecordedRequest) => {
      const messages = req.body.messages as any[];
      const n = messages.filter(
        (m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p: any) => p.type === "tool_use"),
      ).length;
      const recovered = messages.some((m) => m.role === "user" && NOTICE.test(JSON.stringify(m.content)));
      const a = nextAction(s, n, recovered);
      if (!a) return { endpoint: "messages", text: "Renamed draft.txt to final.txt." };
      return {
        endpoint: "messages",
        content: [{ type: "tool_use", id: `toolu_${k++}`, name: "computer", input: toAnthropicInput(a) }],
      };
    },
  });
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: `${server.url}`, apiKey: "test-key" });
  const tool = retraceComputerTool({ env: s.env, blobs: s.blobs, displayWidthPx: 1280, displayHeightPx: 800 });
  const events = new EpisodeEvents();
  const seen = recordEvents(events);
  const recovery = createRecovery({
    env: s.env,
    blobs: s.blobs,
    detector: s.detector,
    recoverer: s.recoverer,
    recoveryBudget: 4,
    task: s.task,
    instanceKey: `${s.task.id}/0`,
    events,
    detection,
  });
  const result = await generateText({
    model: anthropic("claude-sonnet-4-5"),
    tools: { computer: tool },
    prompt: s.task.instruction,
    stopWhen: stepCountIs(30),
    maxRetries: 0,
    prepareStep: recovery.prepareStep,
  });
  const episode = await recovery.finish(result);
  return { s, episode, seen, log: tool.log, requests: server.requests, messages: recovery.messages() };
}

describe("overlapped detection on the SDK path", () => {
  it("OpenAI Agents SDK: the same decisions as sequential; the action after the off-track step is held and never executed, its call never sent again", async () => {
    const seq = await agentsRun("sequential");
    const ovl = await agentsRun("overlapped");
    expect(seq.episode.success).toBe(true);
    expect(decisions(ovl.episode, ovl.seen)).toEqual(decisions(seq.episode, seq.seen));
    expect(seq.seen.filter(([k]) => k === "truncate")).toEqual([["truncate", [seq.s.E + 1, seq.s.R]]]);
    // Executed on the desk: the same actions, in the same order (the discarded one is not among them).
    expect(ovl.computer.log.map((l) => l.actions)).toEqual(seq.computer.log.map((l) => l.actions));
    // One model call more (step E+1's, made while the detector judged E, then discarded).
    expect(ovl.requests).toHaveLength(seq.requests.length + 1);
    expect(ovl.episode.accounting.discardedProposals).toBe(1);
    expect(seq.episode.accounting.discardedProposals ?? 0).toBe(0);
    const discarded = `call_${ovl.s.E + 1}`;
    expect(ovl.requests[ovl.s.E + 1].body.input.filter((i: any) => i.type === "computer_call")).toHaveLength(
      ovl.s.E + 1,
    ); // it was asked with E judged pending
    for (const r of ovl.requests.slice(ovl.s.E + 2)) expect(JSON.stringify(r.body.input)).not.toContain(discarded);
    // The cut history: the same steps and notice in both flows.
    const shape = (items: any[]) =>
      items.map((i) =>
        i.type === "computer_call"
          ? ["call", i.action]
          : i.type === "computer_call_result"
            ? ["result"]
            : [i.role ?? i.type, i.role === "user" ? JSON.stringify(i.content).slice(0, 60) : ""],
      );
    expect(shape(ovl.history)).toEqual(shape(seq.history));
  });

  it("OpenAI Agents SDK, streamed: the same decisions as the sequential flow", async () => {
    const seq = await agentsRun("sequential");
    const ovl = await agentsRun("overlapped", true);
    expect(ovl.episode.success).toBe(true);
    expect(decisions(ovl.episode, ovl.seen)).toEqual(decisions(seq.episode, seq.seen));
    expect(ovl.computer.log.map((l) => l.actions)).toEqual(seq.computer.log.map((l) => l.actions));
    expect(ovl.episode.accounting.discardedProposals).toBe(1);
  });

  it("OpenAI Agents SDK: a final answer right after the off-track step: finish() waits for the verdict, the recovery runs and the answer is dropped from the history", async () => {
    const s = await wrongItemScenario(servers);
    let k = 0;
    const agentServer = await startScriptedOpenAIServer({
      responder: (req: RecordedRequest) => {
        const n = (req.body.input as any[]).filter((i) => i.type === "computer_call").length;
        const a = s.forward[n];
        if (n > s.E || !a) return { endpoint: "responses", text: "All done." }; // claims success right after the mistake
        const id = k++;
        return {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: `cu_${id}`,
              call_id: `call_${id}`,
              action: toOpenAIAction(a),
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        };
      },
    });
    servers.push(agentServer);
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer.",
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: agentServer.url, apiKey: "test-key", maxRetries: 0 }),
        "computer-use-preview",
      ),
      tools: [computerTool({ computer })],
    });
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      recoveryBudget: 4,
      task: s.task,
      detection: "overlapped",
    });
    const result = await run(agent, s.task.instruction, { ...recovery.runConfig, maxTurns: 30 });
    const episode = await recovery.finish(result);
    expect(result.finalOutput).toBe("All done.");
    expect(episode.accounting).toMatchObject({ recoveryAttempts: 1, discardedProposals: 1 });
    expect(
      episode.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    ).toEqual([[s.E + 1, s.R]]);
    const history = result.history as any[];
    expect(history.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(history.at(-1))).toMatch(NOTICE);
    expect(JSON.stringify(history)).not.toContain("All done.");
  });

  it("AI SDK: the same decisions as sequential; the tool call after the off-track step is held and never executed, never sent again", async () => {
    const seq = await aiSdkRun("sequential");
    const ovl = await aiSdkRun("overlapped");
    expect(seq.episode.success).toBe(true);
    expect(decisions(ovl.episode, ovl.seen)).toEqual(decisions(seq.episode, seq.seen));
    expect(ovl.log.map((l) => l.actions)).toEqual(seq.log.map((l) => l.actions));
    expect(ovl.requests).toHaveLength(seq.requests.length + 1);
    expect(ovl.episode.accounting.discardedProposals).toBe(1);
    const discarded = `toolu_${ovl.s.E + 1}`;
    for (const r of ovl.requests.slice(ovl.s.E + 2)) expect(JSON.stringify(r.body.messages)).not.toContain(discarded);
    const shape = (ms: any[]) =>
      ms.map((m) => [
        m.role,
        Array.isArray(m.content)
          ? m.content.map((p: any) => p.type + (p.type === "tool-call" ? JSON.stringify(p.input) : ""))
          : String(m.content).slice(0, 60),
      ]);
    expect(shape(ovl.messages)).toEqual(shape(seq.messages));
  });
});
