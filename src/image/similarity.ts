/**
 * Screenshot similarity (SSIM). First version: decode with sharp, downscale 2x, ssim.js
 * "bezkrovny". The oracle work replaces the internals with a faster, proven-equivalent path;
 * keep this signature.
 */
import sharp from "sharp";
import { ssim } from "ssim.js";

/** SSIM in [0, 1] between two PNG screenshots of the same size; 1 means identical. */
export async function screenshotSsim(a: Uint8Array, b: Uint8Array): Promise<number> {
  const [ia, ib] = await Promise.all([decodeHalf(a), decodeHalf(b)]);
  if (ia.width !== ib.width || ia.height !== ib.height) return 0;
  return ssim(ia, ib, { ssim: "bezkrovny" }).mssim;
}

async function decodeHalf(png: Uint8Array): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const img = sharp(png);
  const meta = await img.metadata();
  const width = Math.max(1, Math.round((meta.width ?? 2) / 2));
  const height = Math.max(1, Math.round((meta.height ?? 2) / 2));
  const { data, info } = await img.resize(width, height, { kernel: "linear" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}
