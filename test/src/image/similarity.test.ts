import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  simDeskPairs,
  syntheticPairs,
  renderDesktop,
  type ScreenshotPair,
} from "../../../experiments/recovery-eval/ssim-corpus.ts";
import {
  clearSsimCache,
  DEFAULT_SSIM_THRESHOLD,
  screenshotSsim,
  screenshotsMatch,
} from "../../../packages/core/src/image/similarity.ts";
import { referenceSsim } from "../../../experiments/bench/ssim-reference.ts";

/** Pairs per resolution: 1920x1080 (f=4) is the slow one for the reference, so fewer of them. */
async function corpus(): Promise<ScreenshotPair[]> {
  return [
    // The reference costs ~0.7 s per 1920x1080 pair here, so that size gets two pairs (one near 0.99).
    ...(await syntheticPairs(1920, 1080, { only: /one-pixel-row|small-dialog/ })),
    ...(await syntheticPairs(1280, 800, { full: true, only: /identical|one-pixel-row|noise-8|other-app/ })),
    ...(await syntheticPairs(1366, 768, { only: /one-pixel-row/ })),
    ...(await syntheticPairs(800, 600, { only: /one-pixel-row|small-dialog|hover|noise-2/ })),
    ...(await syntheticPairs(330, 250, { full: true })),
    // Real SimDesk screenshots: adjacent plan states, a dialog left open, the pointer parked, noise.
    ...(
      await simDeskPairs({
        dir: join(mkdtempSync(join(tmpdir(), "retrace-ssim-")), "blobs"),
        tasks: ["files-rename-draft"],
      })
    ).filter((p) => /next-step|dialog|pointer|noise-step-(1|6)$/.test(p.name)),
  ];
}

describe("screenshotSsim", () => {
  it("equals ssim.js defaults at full resolution on the screenshot corpus, so its 0.99 decisions agree", async () => {
    const pairs = await corpus();
    const rows: Array<{ name: string; reference: number; fast: number }> = [];
    for (const p of pairs) {
      clearSsimCache();
      rows.push({ name: p.name, reference: await referenceSsim(p.a, p.b), fast: await screenshotSsim(p.a, p.b) });
    }
    for (const r of rows) {
      expect(r.fast, r.name).toBe(r.reference);
      expect(r.fast >= DEFAULT_SSIM_THRESHOLD, r.name).toBe(r.reference >= DEFAULT_SSIM_THRESHOLD);
    }
    // The corpus is only a proof if it has decisions on both sides of the threshold, some close.
    expect(rows.filter((r) => r.reference < DEFAULT_SSIM_THRESHOLD).length).toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.reference >= DEFAULT_SSIM_THRESHOLD && r.reference < 1).length).toBeGreaterThanOrEqual(
      10,
    );
    expect(rows.some((r) => Math.abs(r.reference - DEFAULT_SSIM_THRESHOLD) < 0.003)).toBe(true);
  });

  it("gives the same value from the cache as cold and is symmetric", async () => {
    const [pair] = await syntheticPairs(800, 600, { only: /small-dialog/ });
    clearSsimCache();
    const cold = await screenshotSsim(pair.a, pair.b);
    expect(await screenshotSsim(pair.a, pair.b)).toBe(cold);
    expect(await screenshotSsim(pair.b, pair.a)).toBeCloseTo(cold, 12);
    expect(cold).toBeLessThan(DEFAULT_SSIM_THRESHOLD);
  });

  it("scores byte-identical screenshots 1 and screenshots of different sizes 0", async () => {
    const a = await renderDesktop(640, 400);
    const b = await renderDesktop(640, 401);
    expect(await screenshotSsim(a, Buffer.from(a))).toBe(1);
    expect(await screenshotSsim(a, b)).toBe(0);
    expect(await screenshotsMatch(a, b)).toBe(false);
  });

  it("reads RGB and grayscale PNGs like ssim.js reads their RGBA expansion", async () => {
    const rgba = await renderDesktop(640, 400, { dialog: true });
    const base = await renderDesktop(640, 400);
    const rgb = await sharp(rgba).removeAlpha().png().toBuffer();
    const grayA = await sharp(base).grayscale().png().toBuffer();
    const grayB = await sharp(rgba).grayscale().png().toBuffer();
    expect(await screenshotSsim(base, rgb)).toBe(await referenceSsim(base, rgb));
    expect(await screenshotSsim(grayA, grayB)).toBe(await referenceSsim(grayA, grayB));
  });
});
