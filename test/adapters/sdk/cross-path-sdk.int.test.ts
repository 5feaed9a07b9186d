/**
 * One scripted episode through the LangGraph runtime and through each integration's own loop: the
 * LangChain middleware in `createAgent`, the OpenAI Agents SDK's `run()` (runWithRecovery), the
 * Vercel AI SDK's `generateText` (generateTextWithRecovery) and Stagehand's hybrid agent
 * (executeWithRecovery). Every path gets the same forward steps (the agent's scripted model, or
 * for the graph a ForwardPolicy replaying the same actions), the same LLM detector replies and
 * the same LLM recovery sub-agent replies, each over its own scripted server on 127.0.0.1, and
 * must take the same decisions: E and R, the attempt, its confirmation, the cut (from, to), the
 * history the agent sees after the cut (steps kept, transition string), and the accounting.
 *
 * The episode is SimDesk's files-rename-draft wrong-item slip (E=2, R=1) for the graph, LangChain,
 * the Agents SDK and the AI SDK. Stagehand acts only on a browser page over CDP, so it cannot
 * drive SimDesk: its comparison runs the graph and Stagehand on one browser episode
 * (mail-reply-bob with a typo at E=2, R=1, two recovery steps), on the same Chromium.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Stagehand } from "@browserbasehq/stagehand";
import { z } from "zod";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { recoveryMiddleware } from "../../../packages/langchain/src/recovery-middleware.ts";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";
import { executeWithRecovery } from "../../../packages/stagehand/src/index.ts";
import {
  createBrowserEnvironment,
  BROWSER_TASKS,
  type BrowserEnvironment,
} from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Environment } from "../../../packages/core/src/environment.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import type { ForwardPolicy, PolicyInput } from "../../../packages/core/src/policy.ts";
import type { RecoveryPolicy } from "../../../packages/core/src/recovery.ts";
import type { Task } from "../../../packages/core/src/task.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const chromium = systemTools("the Stagehand leg of the cross-path test", CHROMIUM_TOOLS);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** What each path decided, in event order, plus what the agent saw right after the cut. */
interface Decisions {
  events: Array<Record<string, unknown>>;
  /** Steps of the agent's own history kept after the cut, and the transition string it was shown. */
  afterCut: { kept: number; notice: string };
  accounting: { detectorCalls: number; recoveryAttempts: number; recoverySteps: number; forwardSteps: number };
  score: number;
}

function recordEvents(events: EpisodeEvents): Decisions["events"] {
  const out: Decisions["events"] = [];
  events.on("selection", (e) => void out.push({ kind: "selection", E: e.errorStep, R: e.recoveryStep }));
  events.on(
    "recovery-end",
    (e) =>
      void out.push({
        kind: "recovery-end",
        attempt: e.attempt,
        restored: e.restored,
        steps: e.steps,
        confirmation: e.confirmation,
      }),
  );
  events.on("truncate", (e) => void out.push({ kind: "truncate", attempt: e.attempt, from: e.from, to: e.to }));
  return out;
}

const pickAccounting = (a: Decisions["accounting"]): Decisions["accounting"] => ({
  detectorCalls: a.detectorCalls,
  recoveryAttempts: a.recoveryAttempts,
  recoverySteps: a.recoverySteps,
  forwardSteps: a.forwardSteps,
});

/** A ForwardPolicy replaying the agent's scripted steps in order (whatever the history), then DONE. */
function replayPolicy(steps: Action[][]): ForwardPolicy & { inputs: PolicyInput[] } {
  const inputs: PolicyInput[] = [];
  return {
    name: "scripted-steps",
    inputs,
    async propose(input) {
      const actions = steps[inputs.length] ?? [{ type: "DONE" }];
      inputs.push(input);
      return { actions, response: JSON.stringify(actions) };
    },
  };
}

/** The graph on `env` (reset by the graph's start node) with the same components. */
async function viaGraph(a: {
  env: Environment;
  blobs: BlobStore;
  task: Task;
  steps: Action[][];
  detector: ErrorDetector;
  recoverer: RecoveryPolicy;
  recoveryBudget: number;
}): Promise<Decisions> {
  const policy = replayPolicy(a.steps);
  const events = new EpisodeEvents();
  const seen = recordEvents(events);
  // Sequential detection on every path: an overlapped proposal (the graph's, and the Agents/AI SDK
  // integrations' default) is thrown away when the detector fires, which would shift a replayed
  // script by one call. That overlapped and sequential runs decide alike is pinned per SDK in
  // sdk-overlap.int.test.ts and for the graph in the overlap tests of test/graphs.
  const agent = withRecovery(policy, {
    detector: a.detector,
    recoverer: a.recoverer,
    recoveryBudget: a.recoveryBudget,
    detection: "sequential",
  });
  const g = await agent.graph({ env: a.env, blobs: a.blobs, events });
  const state = await g.invoke({ task: a.task }, { recursionLimit: 400 });
  const first = policy.inputs.find((i) => i.notice !== undefined)!;
  // The graph counts its closing DONE as a forward step; the SDK loops end on the model's final
  // text, which is no step. Compared without it.
  const done = state.result!.trajectory.steps.at(-1)?.actions.some((x) => x.type === "DONE") ? 1 : 0;
  const accounting = pickAccounting(state.result!.accounting);
  return {
    events: seen,
    afterCut: { kept: first.history.length, notice: first.notice! },
    accounting: { ...accounting, forwardSteps: accounting.forwardSteps - done },
    score: state.result!.evaluation?.score ?? -1,
  };
}

// Message-shape readers of each SDK's requests.
const callIds = (body: any): string[] =>
  (body.input as any[]).filter((i) => i.type === "computer_call").map((i) => i.call_id);
const userTexts = (body: any): string[] =>
  (body.input as any[])
    .filter((i) => i.role === "user")
    .map((i) => (typeof i.content === "string" ? i.content : i.content.map((p: any) => p.text ?? "").join("")));
const blocks = (body: any): any[] =>
  (body.messages as any[]).flatMap((m) =>
    typeof m.content === "string"
      ? [{ type: "text", text: m.content, role: m.role }]
      : m.content.map((b: any) => ({ ...b, role: m.role })),
  );
const toolUseIds = (body: any): string[] =>
  blocks(body)
    .filter((b) => b.type === "tool_use")
    .map((b) => b.id);
const lastUserText = (body: any): string =>
  blocks(body)
    .filter((b) => b.type === "text" && b.role === "user")
    .at(-1)?.text ?? "";

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

  describe.runIf(chromium.run)("the browser environment (Stagehand drives only a browser page)", () => {
    let env: BrowserEnvironment;
    let stagehand: Stagehand;
    const blobs = tempBlobs();
    beforeAll(async () => {
      chromium.assert();
      env = await createBrowserEnvironment({ blobs, cdp: true });
      stagehand = new Stagehand({
        env: "LOCAL",
        experimental: true,
        verbose: 0,
        disablePino: true,
        logger: () => undefined,
        localBrowserLaunchOptions: { cdpUrl: env.cdpUrl! },
      });
      await stagehand.init();
    });
    afterAll(async () => {
      await stagehand?.close();
      await env?.close();
    });

    it("the graph and Stagehand's hybrid agent take the same decisions on the typo episode", async () => {
      const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
      const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];
      const click = (r: Parameters<typeof centre>[0]): Action => ({
        type: "CLICK",
        ...centre(r),
        button: "left",
        numClicks: 1,
      });
      // Stagehand's tool calls, and the same steps as retrace Actions (a "type" with coordinates clicks, then types).
      const calls: Array<[string, object, Action[]]> = [
        ["click", { describe: "Bob's email", coordinates: xy(MAIL.row(1)) }, [click(MAIL.row(1))]],
        ["click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }, [click(MAIL.view.reply)]],
        [
          "type",
          { describe: "message body", text: "Friday works for me,", coordinates: xy(MAIL.body) },
          [click(MAIL.body), { type: "TYPING", text: "Friday works for me," }],
        ],
        ["click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }, [click(MAIL.view.reply)]],
        [
          "type",
          { describe: "message body", text: "Friday works for me.", coordinates: xy(MAIL.body) },
          [click(MAIL.body), { type: "TYPING", text: "Friday works for me." }],
        ],
        ["click", { describe: "Send", coordinates: xy(MAIL.send) }, [click(MAIL.send)]],
      ];
      const detectorScript: ScriptStep[] = [
        { text: '{"off_track": false, "error_step": null, "reason": "opened Bob\'s email", "confidence": 0.9}' },
        { text: '{"off_track": false, "error_step": null, "reason": "reply form open", "confidence": 0.9}' },
        {
          text: '{"off_track": true, "error_step": 2, "reason": "typed a comma instead of a period", "confidence": 0.9}',
        },
      ];
      const [inbox, bob] = [centre(MAIL.folder.inbox), centre(MAIL.row(1))];
      const recovererScript: ScriptStep[] = [
        { text: `To the inbox.\n\`\`\`python\npyautogui.click(${inbox.x}, ${inbox.y})\n\`\`\`` },
        { text: `Open Bob's email.\n\`\`\`python\npyautogui.click(${bob.x}, ${bob.y})\n\`\`\`` },
        { text: "RESTORED" },
      ];
      const components = async () => {
        const det = await scriptedModel(blobs, detectorScript);
        const rec = await scriptedModel(blobs, recovererScript);
        servers.push(det.server, rec.server);
        return {
          det,
          rec,
          detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
        };
      };

      // The graph on the same browser environment.
      const g = await components();
      const graph = await viaGraph({
        env,
        blobs,
        task,
        steps: calls.map((c) => c[2]),
        detector: g.detector,
        recoverer: g.recoverer,
        recoveryBudget: 4,
      });
      g.det.server.verify();
      g.rec.server.verify();

      // Stagehand's own loop.
      await env.reset(task);
      const c = await components();
      const server = await startScriptedOpenAIServer({
        script: [
          ...calls.map(([name, input], i) => ({
            endpoint: "messages" as const,
            content: [{ type: "tool_use", id: `toolu_${i}`, name, input }],
          })),
          { endpoint: "messages", text: "Replied to Bob." },
          {
            endpoint: "messages",
            content: [
              {
                type: "tool_use",
                id: "toolu_done",
                name: "done",
                input: { reasoning: "Replied to Bob.", taskComplete: true },
              },
            ],
          },
        ],
      });
      servers.push(server);
      const events = new EpisodeEvents();
      const seen = recordEvents(events);
      const agent = stagehand.agent({
        mode: "hybrid",
        model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
      });
      const result = await executeWithRecovery(
        agent,
        { instruction: task.instruction, maxSteps: 12 },
        { env, blobs, task, recoveryBudget: 4, detector: c.detector, recoverer: c.recoverer, events },
      );
      const after = server.requests[3].body; // the first model call after the cut (E=2)
      const stagehandSide: Decisions = {
        events: seen,
        afterCut: { kept: toolUseIds(after).length, notice: lastUserText(after) },
        accounting: pickAccounting(result.accounting),
        score: result.evaluation.score,
      };
      c.det.server.verify();
      c.rec.server.verify();
      server.verify();

      expect(graph).toEqual({
        events: [
          { kind: "selection", E: 2, R: 1 },
          { kind: "recovery-end", attempt: 1, restored: true, steps: 2, confirmation: graph.events[1]?.confirmation },
          { kind: "truncate", attempt: 1, from: 3, to: 1 },
        ],
        afterCut: { kept: 1, notice: expect.stringMatching(/state it had at step 1\b/) },
        accounting: { detectorCalls: 3, recoveryAttempts: 1, recoverySteps: 2, forwardSteps: 6 },
        score: 1,
      });
      expect(stagehandSide).toEqual(graph);
    });
  });
});
