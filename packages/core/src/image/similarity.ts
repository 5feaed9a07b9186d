/**
 * Screenshot similarity (SSIM), the observation half of the recovery oracle (R_O) and the
 * near-duplicate filter of dataset construction.
 *
 * `screenshotSsim` returns exactly what ssim.js 3.5 with its default options returns for the two
 * decoded full-resolution screenshots (see ssim-exact.ts), ~20-40x faster: sharp decodes, then a
 * typed-array implementation does ssim.js's own grayscale, downsampling and Weber SSIM. Prepared
 * images are cached by content hash, so comparing many candidates against one target decodes the
 * target once. `npm run bench ssim` measures the speed-up; test/src/image proves equality on a
 * corpus of screenshot pairs.
 */
import { ConfigError } from "../errors.ts";
import { loadSharp } from "./sharp.ts";
import { sha256Hex } from "../hash.ts";
import {
  prepareForSsim,
  weberMssim,
  weberMssimMasked,
  windowSkipFromMask,
  type GrayImage,
  type RawPixels,
} from "./ssim-exact.ts";

/** The R_O threshold of the paper (Appendix A.2): recovered and target match when SSIM >= 0.99. */
export const DEFAULT_SSIM_THRESHOLD = 0.99;

const CACHE_LIMIT = 64;
/** Window masks per mask buffer: a mask is converted once, however many screenshots it judges. */
const skipCache = new WeakMap<Uint8Array, { skip: Uint8Array; skipped: number }>();
const insideCache = new WeakMap<Uint8Array, Uint8Array>();
const cache = new Map<string, Promise<GrayImage>>();

/** SSIM in [0, 1] between two PNG screenshots of the same size; 1 means identical. Different sizes score 0. */
export async function screenshotSsim(a: Uint8Array, b: Uint8Array): Promise<number> {
  const ka = sha256Hex(a);
  const kb = sha256Hex(b);
  if (ka === kb) return 1;
  const [ia, ib] = await Promise.all([prepared(ka, a), prepared(kb, b)]);
  if (ia.width !== ib.width || ia.height !== ib.height) return 0;
  return weberMssim(ia, ib);
}

/** A masked SSIM: the mean, how many SSIM windows it averaged and how many the image has. */
export interface MaskedSsim {
  ssim: number;
  windows: number;
  total: number;
  /**
   * The lowest local SSIM among the windows averaged (one 11 x 11 window of the downsampled
   * image, or a tile of `localBlock` x `localBlock` window positions): a mean over a whole screen
   * dilutes a local difference (a window left open), this does not. 1 for identical screenshots,
   * NaN when no window is averaged.
   */
  localMin: number;
}

/** Options of {@link maskedScreenshotSsim}. */
export interface MaskedSsimOptions {
  /** Average over the windows that *do* touch the mask instead (NaN when none does). @default false */
  inside?: boolean;
  /**
   * `localMin` is the smallest mean over tiles of this many x this many SSIM window positions
   * (1: the smallest single window). @default 1
   */
  localBlock?: number;
}

/**
 * SSIM over the windows that touch no dynamic pixel of `mask` (full resolution, 1 = dynamic).
 * Without a mask, or with a mask that marks nothing, this is {@link screenshotSsim} bit for bit.
 * When every window is masked `ssim` is NaN (nothing left to compare).
 */
export async function maskedScreenshotSsim(
  a: Uint8Array,
  b: Uint8Array,
  mask: { width: number; height: number; data: Uint8Array } | null,
  options: MaskedSsimOptions = {},
): Promise<MaskedSsim> {
  const ka = sha256Hex(a);
  const kb = sha256Hex(b);
  const [ia, ib] = await Promise.all([prepared(ka, a), prepared(kb, b)]);
  if (ia.width !== ib.width || ia.height !== ib.height) return { ssim: 0, windows: 0, total: 0, localMin: 0 };
  const total = Math.max(0, ia.width - 10) * Math.max(0, ia.height - 10);
  if (ka === kb) return { ssim: 1, windows: total, total, localMin: 1 };
  const block = options.localBlock ?? 1;
  const none: MaskedSsim = { ssim: NaN, windows: 0, total, localMin: NaN };
  const all = (): MaskedSsim => {
    const r = weberMssimMasked(ia, ib, null, block);
    return { ssim: r.mssim, windows: r.windows, total: r.total, localMin: r.localMin };
  };
  if (!mask) return options.inside ? none : all();
  if (mask.width * mask.height !== mask.data.length)
    throw new ConfigError("maskedScreenshotSsim: mask data does not match its size");
  let cached = skipCache.get(mask.data);
  if (!cached) {
    cached = windowSkipFromMask(mask);
    skipCache.set(mask.data, cached);
  }
  const { skip, skipped } = cached;
  // A mask of another screen size does not apply: compare everything (R_O).
  if (skip.length !== total) return options.inside ? none : all();
  if (options.inside) {
    let inv = insideCache.get(mask.data);
    if (!inv) {
      inv = new Uint8Array(skip.length);
      for (let i = 0; i < skip.length; i++) inv[i] = skip[i] ? 0 : 1;
      insideCache.set(mask.data, inv);
    }
    const r = weberMssimMasked(ia, ib, inv, block);
    return { ssim: r.mssim, windows: r.windows, total: r.total, localMin: r.localMin };
  }
  const r = weberMssimMasked(ia, ib, skipped === 0 ? null : skip, block);
  return { ssim: r.mssim, windows: r.windows, total: r.total, localMin: r.localMin };
}

/** True when the two screenshots match at `threshold` (default {@link DEFAULT_SSIM_THRESHOLD}). */
export async function screenshotsMatch(
  a: Uint8Array,
  b: Uint8Array,
  threshold = DEFAULT_SSIM_THRESHOLD,
): Promise<boolean> {
  return (await screenshotSsim(a, b)) >= threshold;
}

/** Decode a PNG (or any format sharp reads) to raw interleaved pixels. */
export async function decodePixels(png: Uint8Array): Promise<RawPixels> {
  const { data, info } = await (await loadSharp())(png).raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

/** Forget every cached prepared image (tests and benchmarks use it to measure cold paths). */
export function clearSsimCache(): void {
  cache.clear();
}

function prepared(key: string, bytes: Uint8Array): Promise<GrayImage> {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const p = decodePixels(bytes).then(prepareForSsim);
  p.catch(() => cache.delete(key));
  cache.set(key, p);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return p;
}
