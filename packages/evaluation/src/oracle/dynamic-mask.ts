/**
 * Dynamic-pixel masks for the masked observation oracle R_Om (beyond the paper; R_O stays beside it).
 *
 * A desktop's screen changes by itself: a clock ticks, a cursor blinks, a notification comes and
 * goes. Captures of the *same* state then differ, and SSIM >= 0.99 (R_O) rejects truly restored
 * states. We learn where that happens from captures we already have or can take cheaply: the N
 * transition-consistency replays render every step of a trajectory N+1 times, and the target of
 * each sample is re-captured a few times after a short wait. A pixel is dynamic when any capture of
 * a state differs from the first capture of that state in any channel; the mask is then dilated by
 * a square of radius `dilate` pixels (anti-aliased edges and neighbouring text move with it).
 * Masks are learned per state and united per task (clocks and pop-ups sit at fixed places, so a
 * pop-up seen in one state of a task is masked in all of them).
 *
 * Masks are stored as one-channel PNG blobs (255 = dynamic) and referenced, never inlined.
 */
import { loadSharp } from "@retrace-cua/core/image/sharp";
import type { BlobReader, BlobRef } from "@retrace-cua/core/blob-store";
import { decodePixels } from "@retrace-cua/core/image/similarity";

/** A full-resolution mask: `data[y * width + x]` is 1 for a dynamic pixel, else 0. */
export interface DynamicMask {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Writes blobs (a `BlobStore`). */
export interface BlobWriter {
  put(bytes: Uint8Array): Promise<BlobRef>;
}

/** Default dilation radius in pixels. */
export const DEFAULT_MASK_DILATION = 8;

/** Share of pixels that are dynamic (0 for an empty mask). */
export function maskFraction(mask: DynamicMask): number {
  let n = 0;
  for (let i = 0; i < mask.data.length; i++) n += mask.data[i];
  return mask.data.length === 0 ? 0 : n / mask.data.length;
}

/**
 * Pixels that differ across captures of one state (PNG bytes), dilated by `dilate` pixels.
 * Returns null when every capture is byte-identical to the first (nothing dynamic) or when the
 * captures differ in size (not the same screen; nothing can be learned).
 */
export async function learnDynamicMask(
  captures: readonly Uint8Array[],
  dilate = DEFAULT_MASK_DILATION,
): Promise<DynamicMask | null> {
  if (captures.length < 2) return null;
  const first = captures[0];
  const distinct = captures.slice(1).filter((c) => !Buffer.from(c).equals(Buffer.from(first)));
  if (distinct.length === 0) return null;
  const base = await decodePixels(first);
  const data = new Uint8Array(base.width * base.height);
  let any = false;
  const ch = base.channels;
  const rowBytes = base.width * ch;
  const a = Buffer.from(base.data.buffer, base.data.byteOffset, base.data.byteLength);
  for (const c of distinct) {
    const img = await decodePixels(c);
    if (img.width !== base.width || img.height !== base.height || img.channels !== ch) return null;
    const b = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
    for (let y = 0; y < base.height; y++) {
      const o = y * rowBytes;
      // Most rows of two captures are identical: a native memcmp skips them.
      if (a.compare(b, o, o + rowBytes, o, o + rowBytes) === 0) continue;
      for (let x = 0, p = y * base.width, q = o; x < base.width; x++, p++, q += ch) {
        if (data[p]) continue;
        for (let k = 0; k < ch; k++) {
          if (a[q + k] !== b[q + k]) {
            data[p] = 1;
            any = true;
            break;
          }
        }
      }
    }
  }
  if (!any) return null;
  return dilateMask({ width: base.width, height: base.height, data }, dilate);
}

/** Square dilation (a separable max filter) by `radius` pixels. */
export function dilateMask(mask: DynamicMask, radius: number): DynamicMask {
  if (radius <= 0) return mask;
  const { width: w, height: h } = mask;
  const rows = new Uint8Array(w * h);
  const empty = new Uint8Array(w);
  const blank = Buffer.from(empty.buffer);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    if (blank.compare(Buffer.from(mask.data.buffer, mask.data.byteOffset + o, w)) === 0) continue;
    let last = -Infinity;
    // Forward pass remembers the last set pixel; a backward pass covers the left side.
    for (let x = 0; x < w; x++) {
      if (mask.data[o + x]) last = x;
      if (x - last <= radius) rows[o + x] = 1;
    }
    let next = Infinity;
    for (let x = w - 1; x >= 0; x--) {
      if (mask.data[o + x]) next = x;
      if (next - x <= radius) rows[o + x] = 1;
    }
  }
  const out = new Uint8Array(w * h);
  for (let x = 0; x < w; x++) {
    let last = -Infinity;
    for (let y = 0; y < h; y++) {
      if (rows[y * w + x]) last = y;
      if (y - last <= radius) out[y * w + x] = 1;
    }
    let next = Infinity;
    for (let y = h - 1; y >= 0; y--) {
      if (rows[y * w + x]) next = y;
      if (next - y <= radius) out[y * w + x] = 1;
    }
  }
  return { width: w, height: h, data: out };
}

/** The union of masks of the same size (null entries are skipped; null when nothing is left). */
export function unionMasks(masks: ReadonlyArray<DynamicMask | null | undefined>): DynamicMask | null {
  const present = masks.filter((m): m is DynamicMask => !!m);
  if (present.length === 0) return null;
  const { width, height } = present[0];
  const data = new Uint8Array(width * height);
  for (const m of present) {
    if (m.width !== width || m.height !== height) continue;
    for (let i = 0; i < data.length; i++) data[i] |= m.data[i];
  }
  return { width, height, data };
}

/** Store a mask as a one-channel PNG (255 = dynamic). */
export async function saveMask(mask: DynamicMask, store: BlobWriter): Promise<BlobRef> {
  const bytes = new Uint8Array(mask.data.length);
  for (let i = 0; i < bytes.length; i++) bytes[i] = mask.data[i] ? 255 : 0;
  const png = await (
    await loadSharp()
  )(bytes, { raw: { width: mask.width, height: mask.height, channels: 1 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return store.put(png);
}

/** Load a mask saved by {@link saveMask}. */
export async function loadMask(ref: BlobRef, blobs: BlobReader): Promise<DynamicMask> {
  const px = await decodePixels(await blobs.get(ref));
  const data = new Uint8Array(px.width * px.height);
  for (let p = 0, q = 0; p < data.length; p++, q += px.channels) data[p] = px.data[q] >= 128 ? 1 : 0;
  return { width: px.width, height: px.height, data };
}
