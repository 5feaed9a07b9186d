/** Shared test fixtures for the model-layer tests: a temp blob store with a real PNG screenshot. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { BlobStore } from "../../../src/blob-store.ts";

/** A fresh blob store in a temp dir. */
export function tempBlobs(): BlobStore {
  return new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-blobs-")) });
}

/** A small real PNG of one colour, stored; returns its bytes and reference. */
export async function storePng(blobs: BlobStore, color = { r: 30, g: 120, b: 200 }, width = 64, height = 40): Promise<{ ref: string; bytes: Buffer }> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
  return { ref: await blobs.put(bytes), bytes };
}
