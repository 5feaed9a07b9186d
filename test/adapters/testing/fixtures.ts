/** Shared test fixtures for the model-layer tests: a temp blob store with a real PNG screenshot. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { HistoryEntry, PolicyInput } from "../../../packages/core/src/policy.ts";

/** A fresh blob store in a temp dir. */
export function tempBlobs(): BlobStore {
  return new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-blobs-")) });
}

/** A small real PNG of one colour, stored; returns its bytes and reference. */
export async function storePng(
  blobs: BlobStore,
  color = { r: 30, g: 120, b: 200 },
  width = 64,
  height = 40,
): Promise<{ ref: string; bytes: Buffer }> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
  return { ref: await blobs.put(bytes), bytes };
}

/** A policy input over a stored screenshot (1280x800 logical screen by default). */
export async function policyInput(
  blobs: BlobStore,
  opts: {
    history?: HistoryEntry[];
    notice?: string;
    color?: { r: number; g: number; b: number };
    width?: number;
    height?: number;
    instruction?: string;
  } = {},
): Promise<PolicyInput> {
  const shot = await storePng(blobs, opts.color ?? { r: 200, g: 200, b: 200 });
  const history = opts.history ?? [];
  return {
    task: { id: "t1", instruction: opts.instruction ?? "Save the document as report.txt" },
    history,
    observation: { screenshot: shot.ref, width: opts.width ?? 1280, height: opts.height ?? 800 },
    step: history.length,
    tick: history.length,
    ...(opts.notice && { notice: opts.notice }),
    blobs,
  };
}

/** History entries with distinct screenshots, as a policy would have seen them. */
export async function fakeHistory(
  blobs: BlobStore,
  n: number,
  make: (i: number) => Partial<HistoryEntry> = () => ({}),
): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  for (let i = 0; i < n; i++) {
    const shot = await storePng(blobs, { r: 10 * i, g: 50, b: 90 });
    out.push({
      step: i,
      observation: { screenshot: shot.ref, width: 1280, height: 800 },
      actions: [{ type: "CLICK", x: 10 + i, y: 20, button: "left", numClicks: 1 }],
      response: `step ${i} answer`,
      ...make(i),
    });
  }
  return out;
}

/** Resolve once `cond()` holds (polling every 5 ms), or reject after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > timeoutMs) throw new Error("waitFor: condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
