/**
 * Shared setup of the detection-preset tests: the stand-in (retrace's sampling model server) on
 * 127.0.0.1 behind a recording proxy, a judge model pointed at the proxy, and helpers that build an
 * episode of stored screenshots and read the judge's recorded requests back.
 */
import { afterAll, beforeAll } from "vitest";
import sharp from "sharp";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";

export let standIn: StandInServer;
export let proxy: RecordingProxy;

/** Starts the stand-in and its recording proxy before the calling file's tests; closes both after them. */
export function useStandInBehindProxy(): void {
  beforeAll(async () => {
    standIn = await startStandInServer({ seed: 0 });
    proxy = await startRecordingProxy(standIn.origin);
  });
  afterAll(async () => {
    await proxy?.close();
    await standIn?.close();
  });
}

export const task = { id: "t-preset", instruction: "Open the Documents folder and rename report.txt to final.txt" };
export const judge = (blobs: BlobStore) =>
  createOpenAIChatModel({
    model: "retrace-stand-in",
    blobs,
    baseURL: proxy.url,
    apiKey: "test-key",
    maxRetries: 0,
    timeoutMs: 10_000,
  });
export const isJudge = (b: Record<string, any>) => JSON.stringify(b.messages?.[0] ?? "").includes("off_track");
export const judgeBodies = (from: number) => proxy.bodies.slice(from).filter(isJudge);
export const userParts = (b: Record<string, any>): any[] => b.messages.find((m: any) => m.role === "user").content;
export const images = (b: Record<string, any>) => userParts(b).filter((p) => p.type === "image_url");
export const pngSize = (dataUrl: string) => {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};
export const shownRange = (b: Record<string, any>) => {
  const m = /the screens after steps (\d+) to (\d+) are shown above/.exec(userParts(b).at(-1).text)!;
  return { first: Number(m[1]), last: Number(m[2]) };
};

/** A 1280x800 screenshot of one shade, stored. */
export async function screen(blobs: BlobStore, shade: number): Promise<Observation> {
  const png = await sharp({
    create: {
      width: 1280,
      height: 800,
      channels: 3,
      background: { r: shade % 256, g: (shade * 7) % 256, b: (shade * 3) % 256 },
    },
  })
    .png()
    .toBuffer();
  return { screenshot: await blobs.put(png), width: 1280, height: 800 };
}

/** n steps of clicks; the clicks at `noEffect` leave the screen as it was. Returns the history and the n+1 screens. */
export async function episode(
  blobs: BlobStore,
  n: number,
  noEffect: number[] = [],
): Promise<{ history: HistoryEntry[]; screens: Observation[] }> {
  const screens: Observation[] = [await screen(blobs, 5)];
  for (let i = 1; i <= n; i++)
    screens.push(noEffect.includes(i - 1) ? screens[i - 1] : await screen(blobs, 5 + 20 * i));
  const history = Array.from({ length: n }, (_, i) => ({
    step: i,
    observation: screens[i],
    actions: [{ type: "CLICK" as const, x: 100 + 10 * i, y: 200, button: "left" as const, numClicks: 1 }],
  }));
  return { history, screens };
}

/** Ask `d` after every step 1..n, as the runtime does. */
export async function watch(
  d: ErrorDetector,
  blobs: BlobStore,
  history: HistoryEntry[],
  screens: Observation[],
): Promise<void> {
  for (let t = 1; t <= history.length; t++)
    await d.detect({ task, history: history.slice(0, t), observation: screens[t], step: t, tick: t, blobs });
}
