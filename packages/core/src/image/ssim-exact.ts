/**
 * An exact, typed-array re-implementation of ssim.js 3.5's default pipeline
 * (`{ rgb2grayVersion: "integer", downsample: "original", maxSize: 256, ssim: "weber",
 * windowSize: 11, k1: 0.01, k2: 0.03, bitDepth: 8 }`):
 *
 * 1. integer grayscale `(77 r + 150 g + 29 b + 128) >> 8`;
 * 2. "original" downsampling: f = round(min(w, h) / 256); when f > 1, an f x f box filter with
 *    symmetric padding (Matlab `imfilter(..., 'symmetric', 'same')`), then every f-th row and
 *    column starting at 0. ssim.js computes the box filter as an integer sum times 1/f^2 and then
 *    rounds with `Int32(v + 0.5)`; we do the same double operations, so the values are identical;
 * 3. Weber's SSIM: 11 x 11 box windows from integral images, variances and covariances scaled
 *    by 1024 and truncated to Int32 as ssim.js does, and ssim.js's running mean for mssim.
 *
 * ssim.js spends ~2 s on a 1920x1080 pair in generic `Array`-based Matlab ports; this does the
 * same arithmetic on typed arrays and only touches the pixels the downsampler keeps. The result
 * equals ssim.js's `mssim` (the corpus test in test/src/image checks it).
 */
import { ConfigError } from "../errors.ts";

/** A grayscale image, one byte per pixel, row-major. */
export interface GrayImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Raw interleaved pixels as decoded (RGB or RGBA). */
export interface RawPixels {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). Alpha is ignored, as ssim.js ignores it. */
  channels: number;
  data: Uint8Array;
}

const WINDOW = 11;
const K1 = 0.01;
const K2 = 0.03;
const MAX_SIZE = 256;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** ssim.js's "original" downsampling factor for an image of this size (1 = no downsampling). */
export function downsampleFactor(width: number, height: number): number {
  return Math.round(Math.min(width, height) / MAX_SIZE);
}

/**
 * Grayscale conversion fused with ssim.js's "original" downsampling. Returns the already
 * rounded values Weber's SSIM works on.
 */
export function prepareForSsim(pixels: RawPixels): GrayImage {
  const { width, height } = pixels;
  const f = downsampleFactor(width, height);
  if (f <= 1) return toGray(pixels);
  const pad = Math.floor(f / 2);
  const outW = Math.ceil(width / f);
  const outH = Math.ceil(height / f);
  // Source column of each window offset, with Matlab's symmetric reflection (-1 -> 0, -2 -> 1,
  // w -> w-1, ...). Only the first and last windows can need it.
  const colIdx = new Int32Array(outW * f);
  for (let j = 0; j < outW; j++) {
    for (let k = 0; k < f; k++) colIdx[j * f + k] = reflect(j * f - pad + k, width);
  }
  const firstInterior = Math.ceil(pad / f);
  let lastInterior = outW - 1;
  while (lastInterior >= firstInterior && lastInterior * f - pad + f - 1 >= width) lastInterior--;
  const rowGray = new Int32Array(width);
  const rowSums = new Int32Array(outW);
  const acc = new Int32Array(outW);
  const out = new Uint8Array(outW * outH);
  const scale = 1 / (f * f);
  const rowBytes = width * pixels.channels;
  const bytes = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
  let lastRow = -1;
  for (let i = 0; i < outH; i++) {
    acc.fill(0);
    for (let k = 0; k < f; k++) {
      const y = reflect(i * f - pad + k, height);
      // UI screenshots repeat rows (backgrounds, blank lines): reuse the window sums of the
      // last computed row when this row's bytes are the same (a native memcmp).
      const same =
        lastRow >= 0 &&
        (y === lastRow ||
          bytes.compare(bytes, y * rowBytes, (y + 1) * rowBytes, lastRow * rowBytes, (lastRow + 1) * rowBytes) === 0);
      if (!same) {
        grayRow(pixels, y, rowGray);
        for (let j = 0; j < firstInterior; j++) rowSums[j] = windowSum(rowGray, colIdx, j * f, f);
        if (f === 4) {
          for (let j = firstInterior, x = firstInterior * 4 - pad; j <= lastInterior; j++, x += 4)
            rowSums[j] = rowGray[x] + rowGray[x + 1] + rowGray[x + 2] + rowGray[x + 3];
        } else {
          for (let j = firstInterior, x = firstInterior * f - pad; j <= lastInterior; j++) {
            let s = 0;
            for (let q = 0; q < f; q++, x++) s += rowGray[x];
            rowSums[j] = s;
          }
        }
        for (let j = Math.max(lastInterior + 1, firstInterior); j < outW; j++)
          rowSums[j] = windowSum(rowGray, colIdx, j * f, f);
      }
      lastRow = y;
      for (let j = 0; j < outW; j++) acc[j] += rowSums[j];
    }
    const base = i * outW;
    // The same double operations as ssim.js: box sum * (1/f^2), then Int32(v + 0.5).
    for (let j = 0; j < outW; j++) out[base + j] = (acc[j] * scale + 0.5) | 0;
  }
  return { width: outW, height: outH, data: out };
}

function windowSum(row: Int32Array, colIdx: Int32Array, start: number, f: number): number {
  let s = 0;
  for (let q = 0; q < f; q++) s += row[colIdx[start + q]];
  return s;
}

/** Gray values of one source row into `out`. */
function grayRow(pixels: RawPixels, y: number, out: Int32Array): void {
  const { width, channels, data } = pixels;
  if (channels === 4 && LITTLE_ENDIAN && data.byteOffset % 4 === 0) {
    // One 32-bit load per RGBA pixel (little-endian: r is the low byte).
    const u32 = new Uint32Array(data.buffer, data.byteOffset + y * width * 4, width);
    // Screenshots are mostly flat runs: reuse the previous pixel's gray when the colour repeats.
    let prev = -1;
    let g = 0;
    for (let x = 0; x < width; x++) {
      const v = u32[x] & 0xffffff;
      if (v !== prev) {
        g = (77 * (v & 255) + 150 * ((v >>> 8) & 255) + 29 * (v >>> 16) + 128) >> 8;
        prev = v;
      }
      out[x] = g;
    }
    return;
  }
  let p = y * width * channels;
  if (channels < 3) {
    for (let x = 0; x < width; x++, p += channels) out[x] = data[p];
  } else {
    for (let x = 0; x < width; x++, p += channels)
      out[x] = (77 * data[p] + 150 * data[p + 1] + 29 * data[p + 2] + 128) >> 8;
  }
}

/** ssim.js's integer grayscale. One- and two-channel input is already gray ((256 v + 128) >> 8 = v). */
export function toGray(pixels: RawPixels): GrayImage {
  const out = new Int32Array(pixels.width);
  const data = new Uint8Array(pixels.width * pixels.height);
  for (let y = 0; y < pixels.height; y++) {
    grayRow(pixels, y, out);
    data.set(out, y * pixels.width);
  }
  return { width: pixels.width, height: pixels.height, data };
}

function reflect(i: number, n: number): number {
  if (i < 0) return Math.min(-i - 1, n - 1);
  if (i >= n) return Math.max(2 * n - i - 1, 0);
  return i;
}

/**
 * Weber's SSIM on two prepared images of the same size, as ssim.js computes it.
 * Images smaller than the 11 x 11 window have no windows; they score 1 when equal, else 0.
 */
export function weberMssim(a: GrayImage, b: GrayImage): number {
  return weberCore(a, b, null, 0).mssim;
}

/** The result of {@link weberMssimMasked}. */
export interface MaskedWeber {
  /** ssim.js's mean over the windows averaged (NaN when none). */
  mssim: number;
  /** Windows averaged. */
  windows: number;
  /** Window positions of the image. */
  total: number;
  /**
   * The lowest local SSIM over the windows averaged: the smallest single-window SSIM (`block` 1)
   * or the smallest mean over a tile of `block` x `block` window positions (tiles with at least
   * one window averaged). NaN when no window is averaged.
   */
  localMin: number;
}

/**
 * Weber's SSIM averaged only over the 11 x 11 windows whose `skip` entry is 0 (`skip` has one
 * entry per window position, row-major, `(w - 10) x (h - 10)`; see {@link windowSkipFromMask}).
 * With no window skipped this is {@link weberMssim}, bit for bit (same operations, same order).
 * `windows` counts the windows averaged; when it is 0 the mean is NaN.
 */
export function weberMssimMasked(a: GrayImage, b: GrayImage, skip: Uint8Array | null, block = 1): MaskedWeber {
  if (!Number.isInteger(block) || block < 1)
    throw new ConfigError(`weberMssimMasked: block must be a positive integer, got ${block}`);
  return weberCore(a, b, skip, block);
}

/** Window positions of a prepared image: `(w - 10) x (h - 10)`. */
export function windowGrid(width: number, height: number): { cols: number; rows: number } {
  return { cols: Math.max(0, width - WINDOW + 1), rows: Math.max(0, height - WINDOW + 1) };
}

/**
 * Which SSIM windows touch a dynamic pixel. `mask` is at the source (full) resolution; a prepared
 * pixel is dynamic when any source pixel its box filter reads is (same reflection as
 * {@link prepareForSsim}); a window is skipped when any of its 121 prepared pixels is dynamic.
 */
export function windowSkipFromMask(mask: { width: number; height: number; data: Uint8Array }): {
  skip: Uint8Array;
  skipped: number;
} {
  const { width, height } = mask;
  const f = downsampleFactor(width, height);
  const step = f <= 1 ? 1 : f;
  const pad = f <= 1 ? 0 : Math.floor(f / 2);
  const outW = f <= 1 ? width : Math.ceil(width / f);
  const outH = f <= 1 ? height : Math.ceil(height / f);
  const cells = new Uint8Array(outW * outH);
  for (let i = 0; i < outH; i++) {
    for (let k = 0; k < step; k++) {
      const y = reflect(i * step - pad + k, height);
      const row = y * width;
      for (let j = 0; j < outW; j++) {
        if (cells[i * outW + j]) continue;
        for (let q = 0; q < step; q++) {
          if (mask.data[row + reflect(j * step - pad + q, width)]) {
            cells[i * outW + j] = 1;
            break;
          }
        }
      }
    }
  }
  const { cols, rows } = windowGrid(outW, outH);
  const skip = new Uint8Array(cols * rows);
  const sw = outW + 1;
  const integral = new Int32Array(sw * (outH + 1));
  for (let y = 0; y < outH; y++) {
    let run = 0;
    for (let x = 0; x < outW; x++) {
      run += cells[y * outW + x];
      integral[(y + 1) * sw + x + 1] = integral[y * sw + x + 1] + run;
    }
  }
  let skipped = 0;
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const s =
        integral[y * sw + x] -
        integral[y * sw + x + WINDOW] -
        integral[(y + WINDOW) * sw + x] +
        integral[(y + WINDOW) * sw + x + WINDOW];
      if (s > 0) {
        skip[y * cols + x] = 1;
        skipped++;
      }
    }
  }
  return { skip, skipped };
}

/** `block` 0: no local minimum (the plain mean); 1: smallest window; > 1: smallest tile mean. */
function weberCore(a: GrayImage, b: GrayImage, skip: Uint8Array | null, block: number): MaskedWeber {
  if (a.width !== b.width || a.height !== b.height) throw new ConfigError("weberMssim: images differ in size");
  const { width: w, height: h } = a;
  const ww = w - WINDOW + 1;
  const wh = h - WINDOW + 1;
  if (ww <= 0 || wh <= 0) {
    const v = equalBytes(a.data, b.data) ? 1 : 0;
    return { mssim: v, windows: 0, total: 0, localMin: v };
  }
  if (skip && skip.length !== ww * wh)
    throw new ConfigError(`weberMssimMasked: skip has ${skip.length} entries, expected ${ww * wh}`);
  const sw = w + 1;
  // Integral images of x, y, x^2, y^2, xy in Int32 with wrap-around, as ssim.js keeps them: the
  // totals overflow, but every window sum is below 2^31, so the wrapped differences are exact.
  const size = sw * (h + 1);
  const sx = new Int32Array(size);
  const sy = new Int32Array(size);
  const sxx = new Int32Array(size);
  const syy = new Int32Array(size);
  const sxy = new Int32Array(size);
  const da = a.data;
  const db = b.data;
  for (let y = 0; y < h; y++) {
    let rx = 0,
      ry = 0,
      rxx = 0,
      ryy = 0,
      rxy = 0;
    const src = y * w;
    const up = y * sw;
    const cur = up + sw;
    for (let x = 0; x < w; x++) {
      const vx = da[src + x];
      const vy = db[src + x];
      rx += vx;
      ry += vy;
      rxx += vx * vx;
      ryy += vy * vy;
      rxy += vx * vy;
      const o = cur + x + 1;
      const u = up + x + 1;
      sx[o] = sx[u] + rx;
      sy[o] = sy[u] + ry;
      sxx[o] = (sxx[u] + rxx) | 0;
      syy[o] = (syy[u] + ryy) | 0;
      sxy[o] = (sxy[u] + rxy) | 0;
    }
  }
  const n2 = WINDOW * WINDOW;
  const L = 255;
  const c1 = K1 * L * (K1 * L);
  const c2 = K2 * L * (K2 * L);
  let mssim = 0;
  let i = 0;
  let localMin = Infinity;
  // Tiles of block x block window positions: sums and counts, for the smallest tile mean.
  const tileCols = block > 1 ? Math.ceil(ww / block) : 0;
  const tileSum = block > 1 ? new Float64Array(tileCols * Math.ceil(wh / block)) : null;
  const tileN = block > 1 ? new Int32Array(tileSum!.length) : null;
  const colTile = block > 1 ? Int32Array.from({ length: ww }, (_, x) => (x / block) | 0) : null;
  // s depends only on the five window sums; flat regions repeat them, so keep the last ones.
  let pX = -1,
    pY = -1,
    pXX = -1,
    pYY = -1,
    pXY = -1,
    s = 0;
  for (let y = 0; y < wh; y++) {
    const rowTile = block > 1 ? ((y / block) | 0) * tileCols : 0;
    const top = y * sw;
    const bot = (y + WINDOW) * sw;
    for (let x = 0; x < ww; x++) {
      if (skip !== null && skip[y * ww + x] === 1) continue;
      const tl = top + x,
        tr = tl + WINDOW,
        bl = bot + x,
        br = bl + WINDOW;
      const sumX = sx[tl] - sx[tr] - sx[bl] + sx[br];
      const sumY = sy[tl] - sy[tr] - sy[bl] + sy[br];
      const sumXX = (sxx[tl] - sxx[tr] - sxx[bl] + sxx[br]) | 0;
      const sumYY = (syy[tl] - syy[tr] - syy[bl] + syy[br]) | 0;
      const sumXY = (sxy[tl] - sxy[tr] - sxy[bl] + sxy[br]) | 0;
      if (sumX !== pX || sumY !== pY || sumXX !== pXX || sumYY !== pYY || sumXY !== pXY) {
        pX = sumX;
        pY = sumY;
        pXX = sumXX;
        pYY = sumYY;
        pXY = sumXY;
        // ssim.js stores these scaled by 1024 in Int32Arrays (truncation toward zero).
        const meanx = sumX / n2;
        const meany = sumY / n2;
        const varX = (1024 * (sumXX / n2 - meanx * meanx)) | 0;
        const varY = (1024 * (sumYY / n2 - meany * meany)) | 0;
        const cov = (1024 * (sumXY / n2 - meanx * meany)) | 0;
        const na = 2 * meanx * meany + c1;
        const nb = 2 * (cov / 1024) + c2;
        const dA = meanx * meanx + meany * meany + c1;
        const dB = varX / 1024 + varY / 1024 + c2;
        s = (na * nb) / dA / dB;
      }
      // ssim.js's running mean, kept for bit-equal results.
      mssim = i === 0 ? s : mssim + (s - mssim) / (i + 1);
      i++;
      if (block === 1) {
        if (s < localMin) localMin = s;
      } else if (tileSum !== null) {
        const t = rowTile + colTile![x];
        tileSum[t] += s;
        tileN![t]++;
      }
    }
  }
  if (tileSum !== null) {
    for (let t = 0; t < tileSum.length; t++)
      if (tileN![t] > 0 && tileSum[t] / tileN![t] < localMin) localMin = tileSum[t] / tileN![t];
  }
  return {
    mssim: i === 0 ? NaN : mssim,
    windows: i,
    total: ww * wh,
    localMin: i === 0 || block === 0 ? NaN : localMin,
  };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
