/**
 * One scripted episode through the LangGraph runtime and through each integration's own loop on
 * SimDesk: the LangChain middleware in `createAgent`, the OpenAI Agents SDK's `run()` (runWithRecovery)
 * and the Vercel AI SDK's `generateText` (generateTextWithRecovery). Every path gets the same forward
 * steps (the agent's scripted model, or for the graph a ForwardPolicy replaying the same actions), the
 * same LLM detector replies and the same LLM recovery sub-agent replies, each over its own scripted
 * server on 127.0.0.1, and must take the same decisions: E and R, the attempt, its confirmation, the
 * cut (from, to), the history the agent sees after the cut (steps kept, transition string), and the
 * accounting. The episode is SimDesk's files-rename-draft wrong-item slip (E=2, R=1).
 * Stagehand's hybrid agent: cross-path-browser.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool } from "@openai/agents";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recoveryMiddleware } from "../../../packages/langchain/src/recovery-middleware.ts";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";
import { startScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";
import {
  callIds,
  type Decisions,
  lastUserText,
  pickAccounting,
  recordEvents,
  servers,
  toolUseIds,
  userTexts,
  useServerCleanup,
  viaGraph,
} from "./cross-path-fixtures.ts";

useServerCleanup();

describe("one scripted episode through the graph and each integration's own loop", () => {
  it("SimDesk: the graph, the LangChain middleware, the Agents SDK's run() and the AI SDK's generateText take the same decisions", async () => {
    const byPath: Record<string, Decisions> = {};
    const budget = 4;

    // The graph.
    {
      const s = await wrongItemScenario(servers);
      byPath.graph = await viaGraph({
        env: s.env,
        blobs: s.blobs,
        task: s.task,
        steps: s.forward.map((a) => [a]),
        detector: s.detector,
        recoverer: s.recoverer,
        recoveryBudget: budget,
      });
      s.det.server.verify();
      s.rec.server.verify();
    }

    // The LangChain middleware in a real createAgent: one tool call per step, executed on SimDesk.
    {
      const s = await wrongItemScenario(servers);
      const events = new EpisodeEvents();
      const seen = recordEvents(events);
      const computer = tool(
        async ({ action }: { action: Action }) => {
          await s.env.step(action);
          return `did ${action.type}`;
        },
        { name: "computer", description: "Act on the desktop", schema: z.object({ action: z.any() }) },
      );
      let detectorCalls = 0;
      const detector: ErrorDetector = {
        name: s.detector.name,
        detect: (input) => (detectorCalls++, s.detector.detect(input)),
      };
      let recoverySteps = 0;
      const mw = recoveryMiddleware({
        detector,
        observe: () => s.env.observe(),
        blobs: s.blobs,
        task: s.task,
        events,
        restore: recoverWithPolicy({ recoverer: s.recoverer, env: s.env, blobs: s.blobs, recoveryBudget: budget }),
        onRecovery: (r) => void (recoverySteps += r.steps),
      });
      let model = fakeModel();
      s.forward.forEach(
        (a, i) => (model = model.respondWithTools([{ name: "computer", args: { action: a }, id: `c${i}` }])),
      );
      model = model.respond(new AIMessage("Renamed draft.txt to final.txt."));
      const agent = createAgent({ model, tools: [computer], middleware: [mw], systemPrompt: "Operate the computer." });
      await agent.invoke({ messages: [new HumanMessage(s.task.instruction)] }, { recursionLimit: 200 });
      const after = model.calls[s.E + 1].messages as BaseMessage[];
      byPath.langchain = {
        events: seen,
        afterCut: {
          kept: after.filter((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0).length,
          notice: String(after.at(-1)!.content),
        },
        accounting: {
          detectorCalls,
          recoveryAttempts: seen.filter((e) => e.kind === "recovery-end").length,
          recoverySteps,
          forwardSteps: s.forward.length,
        },
        score: (await s.env.evaluate()).score,
      };
      s.det.server.verify();
      s.rec.server.verify();
    }

    // The OpenAI Agents SDK's run(): its Responses model over HTTP, its computer tool on SimDesk.
    {
      const s = await wrongItemScenario(servers);
      const script = s.forward.map((a, i) => ({
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
      }));
      const server = await startScriptedOpenAIServer({
        script: [...script, { endpoint: "responses", text: "Renamed draft.txt to final.txt." }],
      });
      servers.push(server);
      const agent = new Agent({
        name: "desk agent",
        instructions: "Operate the computer.",
        model: new OpenAIResponsesModel(
          new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
          "computer-use-preview",
        ),
        tools: [computerTool({ computer: retraceComputer({ env: s.env, blobs: s.blobs }) })],
        modelSettings: { truncation: "auto" },
      });
      const events = new EpisodeEvents();
      const seen = recordEvents(events);
      const result = await runWithRecovery(agent, s.task.instruction, {
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        recoveryBudget: budget,
        task: s.task,
        events,
        detection: "sequential",
        runOptions: { maxTurns: 30 },
      });
      const after = server.requests[s.E + 1].body;
      byPath["openai-agents"] = {
        events: seen,
        afterCut: { kept: callIds(after).length, notice: userTexts(after).at(-1)! },
        accounting: pickAccounting(result.accounting),
        score: result.evaluation.score,
      };
      server.verify();
      s.det.server.verify();
      s.rec.server.verify();
    }

    // The Vercel AI SDK's generateText: @ai-sdk/anthropic over HTTP, Anthropic's computer tool on SimDesk.
    {
      const s = await wrongItemScenario(servers);
      const script = s.forward.map((a, i) => ({
        endpoint: "messages" as const,
        content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
      }));
      const server = await startScriptedOpenAIServer({
        script: [...script, { endpoint: "messages", text: "Renamed draft.txt to final.txt." }],
      });
      servers.push(server);
      const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
      const events = new EpisodeEvents();
      const seen = recordEvents(events);
      const result = await generateTextWithRecovery(
        {
          model: anthropic("claude-sonnet-4-5"),
          tools: { computer: retraceComputerTool({ env: s.env, blobs: s.blobs }) },
          prompt: s.task.instruction,
          stopWhen: stepCountIs(30),
          maxRetries: 0,
        },
        {
          env: s.env,
          blobs: s.blobs,
          detector: s.detector,
          recoverer: s.recoverer,
          recoveryBudget: budget,
          task: s.task,
          events,
          detection: "sequential",
        },
      );
      const after = server.requests[s.E + 1].body;
      byPath["ai-sdk"] = {
        events: seen,
        afterCut: { kept: toolUseIds(after).length, notice: lastUserText(after) },
        accounting: pickAccounting(result.accounting),
        score: result.evaluation.score,
      };
      server.verify();
      s.det.server.verify();
      s.rec.server.verify();
    }

    // The reference: what the graph decided on this episode (E=2 blamed at the third step, R=E-1).
    expect(byPath.graph).toEqual({
      events: [
        { kind: "selection", E: 2, R: 1 },
        {
          kind: "recovery-end",
          attempt: 1,
          restored: true,
          steps: 1,
          confirmation: byPath.graph.events[1]?.confirmation,
        },
        { kind: "truncate", attempt: 1, from: 3, to: 1 },
      ],
      afterCut: { kept: 1, notice: expect.stringMatching(/state it had at step 1\b/) },
      accounting: { detectorCalls: 3, recoveryAttempts: 1, recoverySteps: 1, forwardSteps: 8 },
      score: 1,
    });
    expect(["verifier", "ssim", "claimed"]).toContain(byPath.graph.events[1].confirmation);
    for (const path of ["langchain", "openai-agents", "ai-sdk"])
      expect({ path, ...byPath[path] }).toEqual({ path, ...byPath.graph });
  });
});
