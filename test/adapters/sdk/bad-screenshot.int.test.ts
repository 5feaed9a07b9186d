/**
 * A user's environment whose screenshots are 0 bytes, or bytes that are no image, on the SDK paths
 * (issue 41): retrace's computers refuse them with one ConfigError line naming the environment
 * function, and no model request carries them as an image. The OpenAI Agents SDK (retraceComputer
 * through the SDK's run()), the AI SDK (retraceComputerTool through generateText) and the
 * Stagehand forward policy, each against a scripted model server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, run, setTracingDisabled } from "@openai/agents";
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";
import { generateTextWithRecovery, retraceComputerTool } from "../../../packages/ai-sdk/src/index.ts";
import { stagehandForwardPolicy } from "../../../packages/stagehand/src/index.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { Environment } from "../../../packages/core/src/environment.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { checkScreenshotBytes } from "../../../packages/core/src/runtime/user-results.ts";
import { tempBlobs } from "../llm/fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const TASK = getSimDeskTask("files-rename-draft");
/** The wrappers' other options: a detector that never fires, a restore routine never called. */
const quiet = {
  detector: { name: "quiet", detect: async () => ({ isError: false, errorStep: null, reason: "", confidence: 1 }) },
  restore: async () => ({ restored: false }),
  evaluate: false,
};
const BAD = { empty: new Uint8Array(0), html: new TextEncoder().encode("<html>not a screenshot</html>") } as const;
type Bad = keyof typeof BAD;
const LINE = {
  empty: (fn: string) =>
    new RegExp(
      `^${fn.replace(/[().]/g, "\\$&")} returned a screenshot of 0 bytes \\(blob [0-9a-f]{12}\\): return \\{ screenshot: <blob ref from blobs\\.put\\(png\\)>, \\.\\.\\. \\} whose blob holds a PNG, JPEG, GIF or WebP image$`,
    ),
  html: (fn: string) =>
    new RegExp(
      `^${fn.replace(/[().]/g, "\\$&")} returned a screenshot that is not an image \\(blob [0-9a-f]{12}: 29 bytes starting 3c 68 74 6d 6c 3e 6e 6f\\): return .* whose blob holds a PNG, JPEG, GIF or WebP image$`,
    ),
};

/** A SimDesk whose step and observe answer with `bad` bytes as the screenshot (a user's broken environment). */
async function brokenDesk(bad: Bad) {
  const blobs = tempBlobs();
  const desk = createSimDesk({ blobs });
  await desk.reset(TASK);
  const ref = await blobs.put(BAD[bad]);
  const spoil = (o: Observation): Observation => ({ ...o, screenshot: ref });
  const env = new Proxy(desk, {
    get(target, key) {
      if (key === "observe") return async () => spoil(await target.observe());
      if (key === "step")
        return async (a: Parameters<Environment["step"]>[0]) => {
          const out = await target.step(a);
          return { ...out, observation: spoil(out.observation) };
        };
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as Environment;
  return { env, blobs, obs: spoil(await desk.observe()) };
}

describe.each(["empty", "html"] as const)("a %s screenshot from the user's environment", (bad) => {
  it("OpenAI Agents SDK: runWithRecovery() rejects with the one line naming environment.observe(); no request carries it", async () => {
    const { env, blobs } = await brokenDesk(bad);
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: "cu_0",
              call_id: "call_0",
              action: { type: "click", x: 10, y: 10, button: "left" },
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        },
      ],
    });
    servers.push(server);
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer.",
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
        "computer-use-preview",
      ),
      tools: [computerTool({ computer: retraceComputer({ env, blobs, dimensions: [1280, 800] }) })],
    });
    const err = await runWithRecovery(agent, "Rename the draft.", {
      env,
      blobs,
      ...quiet,
      runOptions: { maxTurns: 3 },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, String(err)).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(LINE[bad]("environment.observe()"));
    expect(server.requests).toHaveLength(1); // the run stopped before the next model call
    expect(server.requests.flatMap((r) => r.images)).toEqual([]);
  });

  it("OpenAI Agents SDK without retrace's wrapper: the SDK sends an empty screenshot, never the refused bytes", async () => {
    const { env, blobs } = await brokenDesk(bad);
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: "cu_0",
              call_id: "call_0",
              action: { type: "click", x: 10, y: 10, button: "left" },
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        },
        { endpoint: "responses", text: "Stopped." },
      ],
    });
    servers.push(server);
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer.",
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
        "computer-use-preview",
      ),
      tools: [computerTool({ computer: retraceComputer({ env, blobs, dimensions: [1280, 800] }) })],
    });
    await run(agent, "Rename the draft.", { maxTurns: 3 });
    expect(server.requests).toHaveLength(2);
    expect(server.requests.flatMap((r) => r.images)).toEqual([]);
  });

  it("AI SDK: generateTextWithRecovery() rejects with the one line naming environment.step(); no request carries it", async () => {
    const { env, blobs } = await brokenDesk(bad);
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          content: [
            {
              type: "tool_use",
              id: "toolu_0",
              name: "computer",
              input: { action: "left_click", coordinate: [10, 10] },
            },
          ],
        },
      ],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const err = await generateTextWithRecovery(
      {
        model: anthropic("claude-sonnet-4-5"),
        prompt: "Rename the draft.",
        tools: { computer: retraceComputerTool({ env, blobs }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      },
      { env, blobs, ...quiet },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, String(err)).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(LINE[bad]("environment.step()"));
    expect(server.requests).toHaveLength(1);
    expect(server.requests.flatMap((r) => r.images)).toEqual([]);
  });

  it("AI SDK without retrace's wrapper: the computer tool's result is the one line, never an image part", async () => {
    const { env, blobs } = await brokenDesk(bad);
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          content: [
            {
              type: "tool_use",
              id: "toolu_0",
              name: "computer",
              input: { action: "left_click", coordinate: [10, 10] },
            },
          ],
        },
        { endpoint: "messages", text: "Stopped." },
      ],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const result = await generateText({
      model: anthropic("claude-sonnet-4-5"),
      prompt: "Rename the draft.",
      tools: { computer: retraceComputerTool({ env, blobs }) },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === "tool-error");
    expect(errors).toHaveLength(1);
    const error = (errors[0] as { error: unknown }).error;
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(LINE[bad]("environment.step()"));
    expect(server.requests.flatMap((r) => r.images)).toEqual([]);
  });

  it("Stagehand forward policy: propose() refuses with the one line; the screenshot is not sent", async () => {
    const { blobs, obs } = await brokenDesk(bad);
    const server = await startScriptedOpenAIServer({
      script: [{ endpoint: "messages", content: [{ type: "tool_use", id: "t_0", name: "screenshot", input: {} }] }],
    });
    servers.push(server);
    const policy = stagehandForwardPolicy({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "k", baseURL: server.url },
    });
    const err = await policy.propose({ task: TASK, history: [], observation: obs, step: 0, tick: 0, blobs }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(LINE[bad]("environment.step()/observe()"));
    expect(server.requests).toHaveLength(1);
    expect(server.requests.flatMap((r) => r.images)).toEqual([]);
  });
});

describe("checkScreenshotBytes", () => {
  it("accepts PNG, JPEG, GIF and WebP bytes", () => {
    for (const head of [
      [0x89, 0x50, 0x4e, 0x47],
      [0xff, 0xd8, 0xff, 0xe0],
      [0x47, 0x49, 0x46, 0x38],
      [0x52, 0x49, 0x46, 0x46],
    ]) {
      const bytes = new Uint8Array([...head, 0, 0, 0, 0]);
      expect(checkScreenshotBytes(bytes, "a".repeat(64), "environment.observe()")).toBe(bytes);
    }
  });
});
