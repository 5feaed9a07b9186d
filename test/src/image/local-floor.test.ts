/**
 * R_Om's local floor: the masked SSIM pass also reports the lowest local SSIM (one window or a
 * tile of window positions), exactly; a local difference that a mean >= 0.99 hides is caught;
 * with no mask and no floor the masked oracle is the paper's R_O bit for bit.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { renderDesktop } from "../../../experiments/recovery-eval/ssim-corpus.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import {
  DEFAULT_SSIM_THRESHOLD,
  maskedScreenshotSsim,
  screenshotSsim,
} from "../../../packages/core/src/image/similarity.ts";
import { weberMssimMasked, windowGrid, type GrayImage } from "../../../packages/core/src/image/ssim-exact.ts";
import {
  DEFAULT_LOCAL_BLOCK,
  DEFAULT_LOCAL_FLOOR,
  maskedObservationOracle,
} from "../../../packages/evaluation/src/oracle/recovery-oracle.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";

/** A deterministic textured gray image with a darker block at (bx, by). */
function gray(w: number, h: number, seed: number, block?: { x: number; y: number }): GrayImage {
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 100 + ((x * 7 + y * 13 + seed * (x ^ y)) % 60);
      if (block && x >= block.x && x < block.x + 6 && y >= block.y && y < block.y + 5) v = 20;
      data[y * w + x] = v;
    }
  return { width: w, height: h, data };
}

/** A taskbar tab left open on the synthetic desktop: a small labelled box on the dark taskbar. */
async function withTab(png: Buffer, width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="400" y="${height - 34}" width="170" height="28" fill="#3b4252"/><text x="410" y="${height - 14}" font-family="DejaVu Sans" font-size="13" fill="#d8dee9">Appearance - Settings</text></svg>`;
  return sharp(png)
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toBuffer();
}

describe("local floor of the masked SSIM", () => {
  it("reports the smallest window SSIM and the smallest tile mean exactly (brute force over single windows)", () => {
    const a = gray(40, 32, 1);
    const b = gray(40, 32, 1, { x: 17, y: 12 });
    const { cols, rows } = windowGrid(40, 32);
    // Each window's SSIM alone: skip every other window.
    const each = new Float64Array(cols * rows);
    for (let i = 0; i < each.length; i++) {
      const skip = new Uint8Array(each.length).fill(1);
      skip[i] = 0;
      each[i] = weberMssimMasked(a, b, skip).mssim;
    }
    const all = weberMssimMasked(a, b, null, 1);
    expect(all.localMin).toBe(Math.min(...each));
    expect(all.localMin).toBeLessThan(all.mssim);
    for (const block of [2, 4, 7]) {
      let min = Infinity;
      for (let ty = 0; ty < rows; ty += block)
        for (let tx = 0; tx < cols; tx += block) {
          let sum = 0,
            n = 0;
          for (let y = ty; y < Math.min(rows, ty + block); y++)
            for (let x = tx; x < Math.min(cols, tx + block); x++) {
              sum += each[y * cols + x];
              n++;
            }
          min = Math.min(min, sum / n);
        }
      expect(weberMssimMasked(a, b, null, block).localMin).toBeCloseTo(min, 12);
      expect(Object.is(weberMssimMasked(a, b, null, block).mssim, all.mssim)).toBe(true);
    }
  });

  it("catches a taskbar tab left open that a mean SSIM >= 0.99 hides", async () => {
    const w = 1280,
      h = 800;
    const target = await renderDesktop(w, h);
    const recovered = await withTab(target, w, h);
    const r = await maskedScreenshotSsim(recovered, target, null, { localBlock: DEFAULT_LOCAL_BLOCK });
    expect(r.ssim).toBeGreaterThanOrEqual(DEFAULT_SSIM_THRESHOLD);
    expect(r.localMin).toBeLessThan(DEFAULT_LOCAL_FLOOR);

    const dir = mkdtempSync(join(tmpdir(), "retrace-floor-"));
    const blobs = new BlobStore({ dir });
    const obs = async (png: Buffer) => ({ screenshot: await blobs.put(png), width: w, height: h }) as Observation;
    const [rec, tgt] = [await obs(recovered), await obs(target)];
    const floored = await maskedObservationOracle(rec, tgt, blobs, null);
    expect(floored).toMatchObject({ pass: false, meanPass: true, localFloor: DEFAULT_LOCAL_FLOOR });
    expect(floored.localSsim).toBeLessThan(DEFAULT_LOCAL_FLOOR);
    const meanOnly = await maskedObservationOracle(
      rec,
      tgt,
      blobs,
      null,
      DEFAULT_SSIM_THRESHOLD,
      undefined,
      undefined,
      {},
    );
    expect(meanOnly.pass).toBe(true);
    expect(meanOnly.localSsim).toBeUndefined();
    // A hover highlight (a flat colour change) is not a local structural difference: the floor keeps it.
    const hover = await maskedObservationOracle(
      await obs(await renderDesktop(w, h, { hover: true })),
      tgt,
      blobs,
      null,
    );
    expect(hover.localSsim).toBeGreaterThanOrEqual(DEFAULT_LOCAL_FLOOR);
  });

  it("equals screenshotSsim and R_O exactly with an empty mask and no floor", async () => {
    const w = 1280,
      h = 800;
    const target = await renderDesktop(w, h);
    const dir = mkdtempSync(join(tmpdir(), "retrace-floor-"));
    const blobs = new BlobStore({ dir });
    const tgt = { screenshot: await blobs.put(target), width: w, height: h } as Observation;
    for (const other of [
      await withTab(target, w, h),
      await renderDesktop(w, h, { dialog: true }),
      await renderDesktop(w, h, { clock: "09:42" }),
    ]) {
      const paper = await screenshotSsim(other, target);
      const rec = { screenshot: await blobs.put(other), width: w, height: h } as Observation;
      const empty = await maskedScreenshotSsim(
        other,
        target,
        { width: w, height: h, data: new Uint8Array(w * h) },
        { localBlock: 4 },
      );
      expect(Object.is(empty.ssim, paper)).toBe(true);
      for (const local of [{}, { floor: -Infinity, block: 4 }]) {
        const v = await maskedObservationOracle(
          rec,
          tgt,
          blobs,
          null,
          DEFAULT_SSIM_THRESHOLD,
          undefined,
          undefined,
          local,
        );
        expect(Object.is(v.ssim, paper)).toBe(true);
        expect(v.pass).toBe(paper >= DEFAULT_SSIM_THRESHOLD);
      }
    }
  });
});
