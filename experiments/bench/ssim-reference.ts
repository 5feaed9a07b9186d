/**
 * The reference SSIM: ssim.js 3.5 with its default options on the full-resolution decoded
 * screenshots. About 1-2 s per 1920x1080 pair here; used only to prove `screenshotSsim` equal to
 * it (test corpus) and to measure the speed-up (bench). Never on a hot path.
 */
import sharp from "sharp";
import { ssim } from "ssim.js";

/** ssim.js defaults on the two full-resolution screenshots; different sizes score 0. */
export async function referenceSsim(a: Uint8Array, b: Uint8Array): Promise<number> {
  const [ia, ib] = await Promise.all([decodeRgba(a), decodeRgba(b)]);
  if (ia.width !== ib.width || ia.height !== ib.height) return 0;
  return ssim(ia, ib).mssim;
}

async function decodeRgba(png: Uint8Array): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
  };
}
