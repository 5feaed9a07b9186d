/**
 * The production detection preset on the Stagehand path: Stagehand's hybrid agent in its own
 * loop on a Chromium page (the browser environment over CDP), with a scripted forward model and
 * the judge and the recoverer played by the stand-in (retrace's sampling model server) behind a
 * recording proxy. The judge is asked on fewer steps than the agent takes (the cascade gates), and
 * every screenshot it is sent is downscaled to the preset's 768 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Stagehand } from "@browserbasehq/stagehand";
import { executeWithRecovery } from "../../../packages/stagehand/src/index.ts";
import {
  createBrowserEnvironment,
  BROWSER_TASKS,
  type BrowserEnvironment,
} from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { tempBlobs } from "../llm/fixtures.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import type { Detection } from "../../../packages/core/src/detector.ts";

const chromium = systemTools("the Stagehand production-preset test", CHROMIUM_TOOLS);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const pngSize = (dataUrl: string) => {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};

describe.runIf(chromium.run)("the production preset in Stagehand's hybrid agent loop", () => {
  let env: BrowserEnvironment;
  let stagehand: Stagehand;
  let standIn: StandInServer;
  let proxy: RecordingProxy;
  const blobs = tempBlobs();
  beforeAll(async () => {
    chromium.assert();
    standIn = await startStandInServer({ seed: 0 });
    proxy = await startRecordingProxy(standIn.origin);
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
    await proxy?.close();
    await standIn?.close();
  });

  it("asks the stand-in judge on fewer steps than the agent takes, with screenshots downscaled to 768 px", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];
    const calls: Array<[string, object]> = [
      ["click", { describe: "Bob's email", coordinates: xy(MAIL.row(1)) }],
      ["click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }],
      ["type", { describe: "message body", text: "Friday works for me.", coordinates: xy(MAIL.body) }],
      // A click that changes nothing: the no-effect gate opens and the judge is asked.
      ["click", { describe: "message body", coordinates: xy(MAIL.body) }],
      ["click", { describe: "Send", coordinates: xy(MAIL.send) }],
    ];
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
    const judge = createOpenAIChatModel({
      model: "retrace-stand-in",
      blobs,
      baseURL: proxy.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const recoverer = createLlmRecoveryPolicy({
      model: createOpenAIChatModel({
        model: "retrace-stand-in",
        blobs,
        baseURL: proxy.url,
        apiKey: "test-key",
        maxRetries: 0,
        timeoutMs: 10_000,
      }),
      historyImages: 1,
    });
    await env.reset(task);
    const from = proxy.bodies.length;
    const agent = stagehand.agent({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
    });
    const result = await executeWithRecovery(
      agent,
      { instruction: task.instruction, maxSteps: 12 },
      { env, blobs, task, recoveryBudget: 4, detector: { preset: "production", model: judge }, recoverer },
    );

    const asked = proxy.bodies.slice(from).filter((b) => JSON.stringify(b.messages[0]).includes("off_track"));
    expect(result.accounting.forwardSteps).toBeGreaterThanOrEqual(calls.length);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(result.accounting.forwardSteps);
    expect(result.accounting.models.detector?.calls).toBe(asked.length);
    for (const b of asked) {
      const images = b.messages
        .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
        .filter((p: any) => p.type === "image_url");
      expect(images.length).toBeGreaterThan(0);
      for (const p of images)
        expect(Math.max(pngSize(p.image_url.url).width, pngSize(p.image_url.url).height)).toBeLessThanOrEqual(768);
    }
    expect(result.evaluation.score).toBe(1);
  }, 120_000);

  it("judges a premature final answer: the last step is asked again with before-done and the judge is called", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];
    const server = await startScriptedOpenAIServer({
      script: [
        // One click into the message body: the page does not change much, so no gate opens on it.
        {
          endpoint: "messages",
          content: [
            {
              type: "tool_use",
              id: "toolu_0",
              name: "click",
              input: { describe: "message body", coordinates: xy(MAIL.body) },
            },
          ],
        },
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
    const judge = createOpenAIChatModel({
      model: "retrace-stand-in",
      blobs,
      baseURL: proxy.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const recoverer = createLlmRecoveryPolicy({
      model: createOpenAIChatModel({
        model: "retrace-stand-in",
        blobs,
        baseURL: proxy.url,
        apiKey: "test-key",
        maxRetries: 0,
        timeoutMs: 10_000,
      }),
      historyImages: 1,
    });
    await env.reset(task);
    const events = new EpisodeEvents();
    const detections: Detection[] = [];
    events.on("detection", (e) => void detections.push(e.detection));
    const from = proxy.bodies.length;
    const agent = stagehand.agent({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
    });
    const result = await executeWithRecovery(
      agent,
      { instruction: task.instruction, maxSteps: 12 },
      { env, blobs, task, recoveryBudget: 4, detector: { preset: "production", model: judge }, recoverer, events },
    );

    const asked = proxy.bodies.slice(from).filter((b) => JSON.stringify(b.messages[0]).includes("off_track"));
    expect(result.accounting.forwardSteps).toBe(1);
    expect(detections.map((d) => d.cascade?.asked)).toEqual([false, true]);
    expect(detections[1].cascade?.gates).toContain("before-done");
    expect(asked.length).toBe(1);
    expect(result.accounting.models.detector?.calls).toBe(1);
  }, 120_000);

  it("onStuck stop: with the attempts spent, the same no-effect click three times ends the run (stop reason stuck)", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];
    // The first click focuses the message body; every later one changes nothing.
    const click = { describe: "message body", coordinates: xy(MAIL.body) };
    const server = await startScriptedOpenAIServer({
      script: [
        ...Array.from({ length: 6 }, (_, i) => ({
          endpoint: "messages" as const,
          content: [{ type: "tool_use", id: `toolu_${i}`, name: "click", input: click }],
        })),
        { endpoint: "messages", text: "I cannot get further." },
        {
          endpoint: "messages",
          content: [
            { type: "tool_use", id: "toolu_done", name: "done", input: { reasoning: "Stuck.", taskComplete: false } },
          ],
        },
      ],
    });
    servers.push(server);
    const quiet = {
      name: "quiet",
      simulated: true,
      detect: async () => ({ isError: false, errorStep: null, reason: "fine", confidence: 0.9 }),
    };
    await env.reset(task);
    const agent = stagehand.agent({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
    });
    const result = await executeWithRecovery(
      agent,
      { instruction: task.instruction, maxSteps: 12 },
      {
        env,
        blobs,
        task,
        detector: quiet,
        restore: async () => ({ restored: true }) as never,
        maxRecoveryIterations: 0,
        onStuck: "stop",
      },
    );
    expect(result.stopReason).toBe("stuck");
    expect(result.accounting.forwardSteps).toBeGreaterThanOrEqual(3);
    // once stuck, the model's calls offer it no tool (this scripted model answers the first of them with a sixth click
    // anyway, which Stagehand runs; a real model cannot); the stop came before the script's clicks ran out
    const stopped = server.requests.findIndex((r) => !(r.body.tools?.length > 0));
    expect(stopped).toBeGreaterThanOrEqual(3);
    expect(stopped).toBeLessThanOrEqual(5);
  }, 120_000);
});
