/**
 * SSIM speed: `screenshotSsim` (sharp decode + exact typed-array ssim.js pipeline, cold cache)
 * against the reference (sharp decode + ssim.js 3.5 defaults) on the same 1920x1080 pairs,
 * side by side in one process. Also reports the warm case the oracle mostly sees (the target's
 * prepared image cached, only the recovered screenshot new).
 */
import { syntheticPairs } from "../recovery-eval/ssim-corpus.ts";
import { clearSsimCache, screenshotSsim } from "../../src/image/similarity.ts";
import { referenceSsim } from "../../src/image/ssim-reference.ts";
import type { BenchResult } from "./index.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(): Promise<BenchResult[]> {
  const pairs = (await syntheticPairs(1920, 1080, { full: true })).filter((p) => !p.name.endsWith("identical-reencoded")).slice(0, 6);
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
  const refMs = median(ref);
  const fastMs = median(fast);
  const warmMs = median(warm);
  return [
    { name: "ssim 1920x1080 cold", ratioOf: "ssim.js defaults / screenshotSsim", ratio: refMs / fastMs, details: { refMs, fastMs, pairs: pairs.length, mismatches } },
    { name: "ssim 1920x1080 target cached", ratioOf: "ssim.js defaults / screenshotSsim", ratio: refMs / warmMs, details: { refMs, warmMs } },
  ];
}
