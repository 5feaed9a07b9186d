/**
 * Shared fixtures for the LLM-component tests: a blob store of tiny distinct PNG screenshots and a scripted server +
 * OpenAI backend.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import {
  startScriptedOpenAIServer,
  type ScriptStep,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import type { ChatModel } from "../../../packages/core/src/model.ts";

/** A blob store in a fresh temp dir. */
export function tempBlobs(): BlobStore {
  return new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-llm-")) });
}

/** A 64x40 PNG of one colour, stored; distinct `shade` values give distinct screenshots. */
export async function screenshot(blobs: BlobStore, shade: number): Promise<Observation> {
  const png = await sharp({
    create: { width: 64, height: 40, channels: 3, background: { r: shade % 256, g: (shade * 7) % 256, b: 90 } },
  })
    .png()
    .toBuffer();
  return { screenshot: await blobs.put(png), width: 64, height: 40 };
}

/** A history of `n` steps, each clicking somewhere, on distinct screenshots (shades 10, 20, ...). */
export async function makeHistory(blobs: BlobStore, n: number): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  for (let i = 0; i < n; i++) {
    const actions: Action[] = [{ type: "CLICK", x: 10 + i, y: 20, button: "left", numClicks: 1 }];
    out.push({ step: i, observation: await screenshot(blobs, 10 * (i + 1)), actions });
  }
  return out;
}

/** A scripted server plus a ChatModel (official openai SDK backend) pointed at it, no retries. */
export async function scriptedModel(
  blobs: BlobStore,
  script: ScriptStep[] = [],
  extra: { timeoutMs?: number; maxRetries?: number } = {},
): Promise<{ server: ScriptedOpenAIServer; model: ChatModel }> {
  const server = await startScriptedOpenAIServer({ script });
  const model = createOpenAIChatModel({
    model: "scripted-vlm",
    blobs,
    baseURL: server.url,
    apiKey: "test-key",
    maxRetries: extra.maxRetries ?? 0,
    timeoutMs: extra.timeoutMs ?? 10_000,
  });
  return { server, model };
}

/** Text of every message of a recorded chat request, joined (images dropped). */
export function requestText(body: any): string {
  return (body.messages as any[])
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((p: any) => (p.type === "text" ? p.text : "")).join("\n"),
    )
    .join("\n---\n");
}
