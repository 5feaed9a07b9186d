/**
 * A consumer episode (consumer-episodes.ts runs it) for @retrace-cua/stagehand's own project: the
 * README's Stagehand snippet (docs/stagehand.md) as a function, against scripted servers: Stagehand's
 * hybrid agent (its model a scripted Anthropic Messages server, through ANTHROPIC_BASE_URL) on the
 * browser environment's mail-reply-bob (@retrace-cua/browser, installed beside it as a tool, with
 * Chromium), typing the reply with a comma at E=2; the LLM detector blames that step, the recovery
 * sub-agent clicks the inbox and Bob's email (the state of R=1) and says RESTORED, and the agent
 * replies again, sends and closes with Stagehand's "done" tool (the scripts of readme-check.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Stagehand } from "@browserbasehq/stagehand";
import { BlobStore } from "@retrace-cua/core";
import { createLlmErrorDetector, createLlmRecoveryPolicy, createOpenAIChatModel } from "@retrace-cua/models";
import { BROWSER_TASKS, createBrowserEnvironment } from "@retrace-cua/browser";
import { startScriptedOpenAIServer, type ScriptStep } from "@retrace-cua/testing";
import { executeWithRecovery } from "@retrace-cua/stagehand";
import { servers } from "./consumer-scenario.js";

const verdict = (offTrack: boolean, step: number | null) =>
  `{"off_track": ${offTrack}, "error_step": ${step}, "reason": "scripted", "confidence": 0.9}`;

export async function run(): Promise<void> {
  const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
  const at = (i: number): [number, number] => {
    const a = task.plan[i];
    if (a.type !== "CLICK" || a.x === undefined || a.y === undefined)
      throw new Error(`mail-reply-bob: step ${i} is not a click`);
    return [a.x, a.y];
  };
  const [bob, reply, body, send] = [at(0), at(1), at(2), at(4)];
  const inbox: [number, number] = [105, 77]; // the mail app's Inbox folder (MAIL.folder.inbox's centre)
  const click = ([x, y]: [number, number]) => `\`\`\`python\npyautogui.click(${x}, ${y})\n\`\`\``;
  const call = (id: number, name: string, input: object): ScriptStep => ({
    endpoint: "messages",
    content: [{ type: "tool_use", id: `toolu_${id}`, name, input }],
  });
  const judge = await startScriptedOpenAIServer({
    script: [
      { endpoint: "chat", text: verdict(false, null) },
      { endpoint: "chat", text: verdict(false, null) },
      { endpoint: "chat", text: verdict(true, 2) },
      { endpoint: "chat", text: `To the inbox.\n${click(inbox)}` },
      { endpoint: "chat", text: `Open Bob's email.\n${click(bob)}` },
      { endpoint: "chat", text: "RESTORED" },
    ],
  });
  const agentModel = await startScriptedOpenAIServer({
    script: [
      call(0, "click", { describe: "Bob's email", coordinates: bob }),
      call(1, "click", { describe: "Reply", coordinates: reply }),
      call(2, "type", { describe: "message body", text: "Friday works for me,", coordinates: body }),
      call(3, "click", { describe: "Reply", coordinates: reply }),
      call(4, "type", { describe: "message body", text: "Friday works for me.", coordinates: body }),
      call(5, "click", { describe: "Send", coordinates: send }),
      { endpoint: "messages", text: "Replied to Bob." },
      call(6, "done", { reasoning: "Replied to Bob.", taskComplete: true }),
    ],
  });
  servers.push(judge, agentModel);
  Object.assign(process.env, { ANTHROPIC_BASE_URL: agentModel.url, ANTHROPIC_API_KEY: "test-key" });

  const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-consumer-")) });
  const model = createOpenAIChatModel({ model: "scripted-vlm", blobs, baseURL: judge.url, apiKey: "test-key" });
  const env = await createBrowserEnvironment({ blobs, cdp: true });
  const stagehand = new Stagehand({
    env: "LOCAL",
    experimental: true,
    verbose: 0,
    localBrowserLaunchOptions: { cdpUrl: env.cdpUrl },
  });
  try {
    await stagehand.init();
    const agent = stagehand.agent({ mode: "hybrid", model: "anthropic/claude-sonnet-4-5" });
    await env.reset(task);
    const result = await executeWithRecovery(
      agent,
      { instruction: task.instruction, maxSteps: 30 },
      {
        env,
        blobs,
        task,
        recoveryBudget: 10,
        detector: createLlmErrorDetector({ model }),
        recoverer: createLlmRecoveryPolicy({ model }),
      },
    );
    const line = {
      episode: "stagehand",
      success: result.success,
      recoveryAttempts: result.accounting.recoveryAttempts,
      node: process.version,
    };
    if (!result.success || result.accounting.recoveryAttempts !== 1)
      throw new Error(`stagehand: expected a successful episode with one recovery, got ${JSON.stringify(line)}`);
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    await stagehand.close();
    await env.close();
  }
}
