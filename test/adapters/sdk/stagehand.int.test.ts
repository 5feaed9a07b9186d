/**
 * executeWithRecovery with Stagehand's real agent loop (`@browserbasehq/stagehand` 3.7.3, hybrid
 * mode) on the browser environment: Stagehand connects over CDP to the environment's Chromium
 * and acts on the episode's page; its model is @ai-sdk/anthropic over HTTP against a scripted
 * server answering `/v1/messages` with `tool_use` blocks of Stagehand's own tools (click, type).
 * The agent types a typo into the reply; the LLM detector blames that step, the LLM recovery
 * sub-agent (acting through the environment, on the same page) goes back to Bob's email, and the
 * requests the scripted server received show the history cut at R with the transition string
 * and nothing after R, up to Stagehand's closing "done" summary (documented exception).
 * One browser for the file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Stagehand } from "@browserbasehq/stagehand";
import { executeWithRecovery } from "../../../packages/stagehand/src/index.ts";
import { stagehandToolCallToActions } from "../../../packages/stagehand/src/convert.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import {
  createBrowserEnvironment,
  BROWSER_TASKS,
  type BrowserEnvironment,
} from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { promptRef } from "../../../packages/core/src/prompt.ts";
import { TRANSITION_PROMPTS } from "../../../packages/core/src/prompts/index.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

const chromium = systemTools("the Stagehand wrapper on the browser environment", CHROMIUM_TOOLS);

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
const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];

describe("Stagehand tool calls as retrace Actions", () => {
  it("maps coordinate tools and keys, and gives DOM tools and bad input no action", () => {
    expect(stagehandToolCallToActions("click", { describe: "x", coordinates: [3, 4] })).toEqual([
      { type: "CLICK", x: 3, y: 4, button: "left", numClicks: 1 },
    ]);
    expect(stagehandToolCallToActions("type", { text: "hi", coordinates: [1, 2] })).toEqual([
      { type: "CLICK", x: 1, y: 2, button: "left", numClicks: 1 },
      { type: "TYPING", text: "hi" },
    ]);
    expect(stagehandToolCallToActions("keys", { method: "press", value: "Control+A" })).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "a"] },
    ]);
    expect(stagehandToolCallToActions("keys", { method: "press", value: "Enter", repeat: 2 })).toEqual([
      { type: "PRESS", key: "enter" },
      { type: "PRESS", key: "enter" },
    ]);
    expect(stagehandToolCallToActions("act", { action: "click the send button" })).toEqual([]);
    expect(stagehandToolCallToActions("click", { coordinates: "nowhere" })).toEqual([]);
  });
});

describe.runIf(chromium.run)("executeWithRecovery (Stagehand hybrid agent) on the browser environment", () => {
  let env: BrowserEnvironment;
  let stagehand: Stagehand;
  const blobs = tempBlobs();
  // One browser and one Stagehand for the file, attached before the first episode's context exists.
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

  it("detects the typo, recovers on the same page with the sub-agent and cuts Stagehand's messages at R", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    await env.reset(task);
    const call = (id: number, name: string, input: object) => ({
      endpoint: "messages" as const,
      content: [{ type: "tool_use", id: `toolu_${id}`, name, input }],
    });
    const server = await startScriptedOpenAIServer({
      script: [
        call(0, "click", { describe: "Bob's email", coordinates: xy(MAIL.row(1)) }),
        call(1, "click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }),
        call(2, "type", { describe: "message body", text: "Friday works for me,", coordinates: xy(MAIL.body) }),
        call(3, "click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }),
        call(4, "type", { describe: "message body", text: "Friday works for me.", coordinates: xy(MAIL.body) }),
        call(5, "click", { describe: "Send", coordinates: xy(MAIL.send) }),
        { endpoint: "messages", text: "Replied to Bob." },
        call(6, "done", { reasoning: "Replied to Bob.", taskComplete: true }),
      ],
    });
    const det = await scriptedModel(blobs, [
      { text: '{"off_track": false, "error_step": null, "reason": "opened Bob\'s email", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "reply form open", "confidence": 0.9}' },
      {
        text: '{"off_track": true, "error_step": 2, "reason": "typed a comma instead of a period", "confidence": 0.9}',
      },
    ]);
    const [inbox, bob] = [centre(MAIL.folder.inbox), centre(MAIL.row(1))];
    const rec = await scriptedModel(blobs, [
      { text: `To the inbox.\n\`\`\`python\npyautogui.click(${inbox.x}, ${inbox.y})\n\`\`\`` },
      { text: `Open Bob's email.\n\`\`\`python\npyautogui.click(${bob.x}, ${bob.y})\n\`\`\`` },
      { text: "RESTORED" },
    ]);
    servers.push(server, det.server, rec.server);
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
        recoveryBudget: 4,
        detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
        recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
      },
    );
    expect(result.evaluation).toMatchObject({ score: 1 });
    expect(result.success).toBe(true);
    expect(result.stopReason).toBe("done");
    expect(
      result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    ).toEqual([[3, 1]]);
    expect(result.trajectory.events.find((e) => e.kind === "recovery-end")?.detail).toMatchObject({
      restored: true,
      steps: 2,
    });
    expect(result.trajectory.steps[2]).toMatchObject({
      actions: [{ type: "CLICK" }, { type: "TYPING", text: "Friday works for me," }],
    });

    const reqs = server.requests;
    expect(reqs).toHaveLength(8);
    expect(toolUseIds(reqs[2].body)).toEqual(["toolu_0", "toolu_1"]);
    // The first request after the cut: step 0 (before R = 1), then the transition string.
    const after = reqs[3].body;
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
    // Nothing from steps R..E in any later call of the agent loop.
    for (const r of reqs.slice(3, 7))
      for (const id of ["toolu_1", "toolu_2"]) expect(toolUseIds(r.body)).not.toContain(id);
    expect(toolUseIds(reqs[6].body)).toEqual(["toolu_0", "toolu_3", "toolu_4", "toolu_5"]);
    // Stagehand's closing "done" summary is built from its own full message list (cut steps included).
    expect(reqs[7].body.tool_choice).toMatchObject({ type: "tool", name: "done" });
    expect(toolUseIds(reqs[7].body)).toContain("toolu_2");

    expect(result.accounting).toMatchObject({
      detectorCalls: 3,
      recoveryAttempts: 1,
      recoverySteps: 2,
      forwardSteps: 6,
    });
    expect(result.accounting.models.recoverer?.calls).toBe(3);
    // Environment time counts the observations after Stagehand's own actions and the recovery steps.
    expect(result.accounting.envMs).toBeGreaterThan(0);
    expect(result.accounting.envMs).toBeLessThan(result.accounting.wallMs);
    expect(result.prompts).toContain(promptRef(TRANSITION_PROMPTS.short));
    det.server.verify();
    rec.server.verify();
    server.verify();
  });

  it("acts on each new episode's page with the same Stagehand (a fresh context per reset)", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    const open = (id: number) => ({
      endpoint: "messages" as const,
      content: [
        {
          type: "tool_use",
          id: `toolu_${id}`,
          name: "click",
          input: { describe: "Bob's email", coordinates: xy(MAIL.row(1)) },
        },
      ],
    });
    const server = await startScriptedOpenAIServer({
      script: [0, 1].flatMap((k) => [
        open(k),
        { endpoint: "messages" as const, text: "Opened." },
        { endpoint: "messages" as const, text: "Opened Bob's email." },
      ]),
    });
    const det = await scriptedModel(blobs, [
      { text: '{"off_track": false, "error_step": null, "reason": "ok", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "ok", "confidence": 0.9}' },
    ]);
    servers.push(server, det.server);
    const agent = stagehand.agent({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
    });
    const pages = new Set<unknown>();
    for (let k = 0; k < 2; k++) {
      await env.reset(task);
      pages.add(env.currentPage);
      const result = await executeWithRecovery(
        agent,
        { instruction: "Open Bob's email.", maxSteps: 3 },
        {
          env,
          blobs,
          task,
          detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ model: det.model }),
          evaluate: false,
        },
      );
      expect(result.trajectory.steps).toHaveLength(1);
      expect(env.currentPage.url()).toMatch(/\/mail\/m\/2$/);
    }
    expect(pages.size).toBe(2);
    det.server.verify();
    server.verify();
  });

  it("names the Stagehand option to set when the agent refuses callbacks", async () => {
    const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
    await env.reset(task);
    const plain = new Stagehand({
      env: "LOCAL",
      verbose: 0,
      disablePino: true,
      logger: () => undefined,
      localBrowserLaunchOptions: { cdpUrl: env.cdpUrl! },
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "k", baseURL: "http://127.0.0.1:9/v1" },
    });
    await plain.init();
    try {
      const [d, r] = [await scriptedModel(blobs), await scriptedModel(blobs)];
      servers.push(d.server, r.server);
      const det = createLlmErrorDetector({ model: d.model });
      const rec = createLlmRecoveryPolicy({ model: r.model });
      await expect(
        executeWithRecovery(plain.agent({ mode: "hybrid" }), task.instruction, {
          env,
          blobs,
          detector: det,
          recoverer: rec,
        }),
      ).rejects.toThrow(/experimental: true/);
      await expect(
        executeWithRecovery(plain.agent({ mode: "hybrid" }), task.instruction, { env, blobs, detector: det } as never),
      ).rejects.toThrow(ConfigError);
    } finally {
      await plain.close();
    }
  });
});
