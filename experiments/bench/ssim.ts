/**
 * SSIM speed: `screenshotSsim` (sharp decode + exact typed-array ssim.js pipeline, cold cache)
 * against the reference (sharp decode + ssim.js 3.5 defaults) on the same 1920x1080 pairs,
 * side by side in one process. Also reports the warm case the oracle mostly sees (the target's
 * prepared image cached, only the recovered screenshot new).
 */
import { syntheticPairs } from "../recovery-eval/ssim-corpus.ts";
import { clearSsimCache, maskedScreenshotSsim, screenshotSsim } from "@retrace-cua/core/image/similarity";
import { referenceSsim } from "./ssim-reference.ts";
import type { BenchResult } from "./result.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(): Promise<BenchResult[]> {
  const pairs = (await syntheticPairs(1920, 1080, { full: true }))
    .filter((p) => !p.name.endsWith("identical-reencoded"))
    .slice(0, 6);
  const ref: number[] = [];
  const fast: number[] = [];
  const warm: number[] = [];
  let mismatches = 0;
  // Warm up both paths once so neither pays JIT compilation in the measurement.
  await referenceSsim(pairs[0].a, pairs[0].b);
  await screenshotSsim(pairs[0].a, pairs[0].b);
  // Each path in its own loop, so the reference's garbage (millions of boxed numbers) is not
  // collected inside the fast path's timings.
  const refValues: number[] = [];
  for (const p of pairs) {
    const t = performance.now();
    refValues.push(await referenceSsim(p.a, p.b));
    ref.push(performance.now() - t);
  }
  await new Promise((r) => setTimeout(r, 200));
  for (const [i, p] of pairs.entries()) {
    clearSsimCache();
    const t = performance.now();
    const f = await screenshotSsim(p.a, p.b);
    fast.push(performance.now() - t);
    if (f !== refValues[i]) mismatches++;
  }
  for (const p of pairs) {
    clearSsimCache();
    // Cache the target `a` (with some other screenshot), then time a new recovered screenshot `b`.
    await screenshotSsim(p.a, pairs[(pairs.indexOf(p) + 1) % pairs.length].b);
    const t = performance.now();
    await screenshotSsim(p.a, p.b);
    warm.push(performance.now() - t);
  }
  // R_Om: the same warm comparisons outside a dynamic mask (a clock and a pop-up corner, ~3% of
  // the screen), mask-to-window conversion included in every call.
  const w = 1920,
    h = 1080;
  const mask = { width: w, height: h, data: new Uint8Array(w * h) };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if ((y > h - 40 && x > w - 110) || (y > h - 140 && y < h - 50 && x > w - 360 && x < w - 20))
        mask.data[y * w + x] = 1;
  const masked: number[] = [];
  let maskedMismatch = 0;
  for (const p of pairs) {
    clearSsimCache();
    await screenshotSsim(p.a, pairs[(pairs.indexOf(p) + 1) % pairs.length].b);
    const t = performance.now();
    await maskedScreenshotSsim(p.a, p.b, mask);
    masked.push(performance.now() - t);
    if (
      (await maskedScreenshotSsim(p.a, p.b, { ...mask, data: new Uint8Array(w * h) })).ssim !==
      (await screenshotSsim(p.a, p.b))
    )
      maskedMismatch++;
  }
  const maskedMs = median(masked);
  const refMs = median(ref);
  const fastMs = median(fast);
  const warmMs = median(warm);
  return [
    {
      name: "ssim 1920x1080 cold",
      ratioOf: "ssim.js defaults / screenshotSsim",
      ratio: refMs / fastMs,
      details: { refMs, fastMs, pairs: pairs.length, mismatches },
    },
    {
      name: "ssim 1920x1080 target cached",
      ratioOf: "ssim.js defaults / screenshotSsim",
      ratio: refMs / warmMs,
      details: { refMs, warmMs },
    },
    {
      name: "masked ssim (R_Om) 1920x1080 target cached",
      ratioOf: "screenshotSsim / maskedScreenshotSsim",
      ratio: warmMs / maskedMs,
      details: { warmMs, maskedMs, emptyMaskMismatches: maskedMismatch },
    },
  ];
}
