/**
 * generateTextWithRecovery with the Vercel AI SDK's real generateText loop: the model is
 * @ai-sdk/anthropic over HTTP against a scripted server answering `/v1/messages` with `tool_use`
 * blocks of Anthropic's computer tool, executed on SimDesk by retraceComputerTool. The LLM
 * detector blames the wrong-item step, the LLM recovery sub-agent restores the state, and the
 * requests the scripted server received show the history cut at R with the transition string,
 * nothing after R.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { promptRef } from "../../../packages/core/src/prompt.ts";
import { TRANSITION_PROMPTS } from "../../../packages/core/src/prompts/index.ts";
import { createBrowserEnvironment, BROWSER_TASKS } from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";
import { toAnthropicInput, wrongItemScenario } from "./fixtures.ts";

const chromium = systemTools("the AI SDK wrapper on the browser environment", CHROMIUM_TOOLS);

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

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

describe("generateTextWithRecovery (Vercel AI SDK, Anthropic computer tool) on SimDesk", () => {
  it("detects the wrong item, recovers with the sub-agent and cuts the messages at R in prepareStep", async () => {
    const s = await wrongItemScenario(servers);
    const forward = s.forward.map((a, i) => ({
      endpoint: "messages" as const,
      content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
    }));
    const server = await startScriptedOpenAIServer({
      script: [...forward, { endpoint: "messages", text: "Renamed draft.txt to final.txt." }],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const computer = retraceComputerTool({ env: s.env, blobs: s.blobs });
    const observe = vi.spyOn(s.env, "observe");

    const result = await generateTextWithRecovery(
      {
        model: anthropic("claude-sonnet-4-5"),
        tools: { computer },
        prompt: s.task.instruction,
        stopWhen: stepCountIs(30),
        maxRetries: 0,
      },
      {
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        recoveryBudget: 4,
        task: s.task,
        instanceKey: `${s.task.id}/0`,
        detection: "sequential",
      }, // the script is in step order
    );
    expect(result.evaluation).toMatchObject({ score: 1 });
    expect(result.stopReason).toBe("done");
    expect(result.finalOutput).toBe("Renamed draft.txt to final.txt.");
    expect(computer.log).toHaveLength(s.forward.length);
    // No observation per model turn: the detector gets the one the computer took after each action.
    // SimDesk's step observes once per action; besides those, only the run's start and the recovery sub-agent's first
    // look.
    const actions = computer.log.flatMap((e) => e.actions).length + result.accounting.recoverySteps;
    expect(observe.mock.calls.length).toBe(actions + 2);
    expect(result.accounting.envMs).toBeGreaterThan(0);
    expect(result.accounting.envMs).toBeLessThan(result.accounting.wallMs);
    expect(
      result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    ).toEqual([[s.E + 1, s.R]]);

    const reqs = server.requests;
    expect(reqs).toHaveLength(s.forward.length + 1);
    expect(toolUseIds(reqs[s.E].body)).toEqual(["toolu_0", "toolu_1"]);
    const after = reqs[s.E + 1].body;
    expect(toolUseIds(after)).toEqual(["toolu_0"]);
    const lastText = blocks(after)
      .filter((b) => b.type === "text")
      .at(-1);
    expect(lastText).toMatchObject({ role: "user" });
    expect(lastText.text).toMatch(/state it had at step 1\b/);
    expect(
      blocks(after)
        .filter((b) => b.type === "tool_result")
        .map((b) => b.tool_use_id),
    ).toEqual(["toolu_0"]);
    for (const r of reqs.slice(s.E + 1)) {
      const ids = toolUseIds(r.body);
      for (let k = s.R; k <= s.E; k++) expect(ids).not.toContain(`toolu_${k}`);
    }
    expect(toolUseIds(reqs.at(-1)!.body)).toEqual([
      "toolu_0",
      ...s.forward.slice(s.E + 1).map((_, k) => `toolu_${s.E + 1 + k}`),
    ]);
    // The tool result carried the screenshot from the BlobStore.
    expect(reqs[1].images[0].sha256).toBe(result.trajectory.steps[0].after);

    expect(result.accounting).toMatchObject({
      detectorCalls: 3,
      recoveryAttempts: 1,
      recoverySteps: 1,
      frozenSkipped: 5,
      forwardSteps: s.forward.length,
    });
    expect(result.accounting.models.recoverer?.calls).toBe(2);
    expect(result.prompts).toContain(promptRef(TRANSITION_PROMPTS.short));
    s.det.server.verify();
    s.rec.server.verify();
    server.verify();
  });

  it("rejects a missing recoverer with one ConfigError line", async () => {
    const s = await wrongItemScenario(servers);
    const anthropic = createAnthropic({ baseURL: "http://127.0.0.1:9/v1", apiKey: "k" });
    await expect(
      generateTextWithRecovery(
        { model: anthropic("m"), prompt: "x" },
        { env: s.env, blobs: s.blobs, detector: s.detector },
      ),
    ).rejects.toThrow(ConfigError);
  });
});

describe.runIf(chromium.run)("generateTextWithRecovery (Vercel AI SDK) on the browser environment", () => {
  it("the same call recovers from opening the wrong email and replies to Bob", async () => {
    chromium.assert();
    const blobs = tempBlobs();
    const env = await createBrowserEnvironment({ blobs });
    try {
      const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      await env.reset(task);
      const det = await scriptedModel(blobs, [
        { text: '{"off_track": true, "error_step": 0, "reason": "opened Alice\'s email", "confidence": 0.9}' },
      ]);
      const inbox = centre(MAIL.folder.inbox);
      const rec = await scriptedModel(blobs, [
        { text: `Back.\n\`\`\`python\npyautogui.click(${inbox.x}, ${inbox.y})\n\`\`\`` },
        { text: "RESTORED" },
      ]);
      const forward = [...mistake.actions, ...task.plan.filter((a) => a.type !== "DONE")];
      const server = await startScriptedOpenAIServer({
        script: [
          ...forward.map((a, i) => ({
            endpoint: "messages" as const,
            content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
          })),
          { endpoint: "messages", text: "Replied to Bob." },
        ],
      });
      servers.push(det.server, rec.server, server);
      const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
      const observe = vi.spyOn(env, "observe");
      const result = await generateTextWithRecovery(
        {
          model: anthropic("claude-sonnet-4-5"),
          tools: { computer: retraceComputerTool({ env, blobs, displayWidthPx: 1280, displayHeightPx: 800 }) },
          prompt: task.instruction,
          stopWhen: stepCountIs(20),
          maxRetries: 0,
        },
        {
          env,
          blobs,
          task,
          recoveryBudget: 3,
          detection: "sequential",
          detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
        },
      );
      expect(result.evaluation.score).toBe(1);
      // One screenshot per action (taken by the step), none per model turn: observe() only at the start and for the
      // recovery sub-agent's first look.
      expect(observe).toHaveBeenCalledTimes(2);
      expect(result.accounting.envMs).toBeGreaterThan(0);
      expect(
        result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
      ).toEqual([[1, 0]]);
      const after = server.requests[1].body;
      expect(toolUseIds(after)).toEqual([]);
      expect(
        blocks(after)
          .filter((b) => b.type === "text")
          .at(-1).text,
      ).toMatch(/state it had at step 0\b/);
      for (const r of server.requests.slice(1)) expect(toolUseIds(r.body)).not.toContain("toolu_0");
      expect(result.accounting).toMatchObject({
        detectorCalls: 1,
        recoveryAttempts: 1,
        recoverySteps: 1,
        forwardSteps: forward.length,
      });
      det.server.verify();
      rec.server.verify();
      server.verify();
    } finally {
      await env.close();
    }
  });
});
