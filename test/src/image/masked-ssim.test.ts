import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simDeskPairs, syntheticPairs, renderDesktop } from "../../../experiments/recovery-eval/ssim-corpus.ts";
import {
  clearSsimCache,
  DEFAULT_SSIM_THRESHOLD,
  maskedScreenshotSsim,
  screenshotSsim,
} from "../../../packages/core/src/image/similarity.ts";
import { prepareForSsim, windowGrid, windowSkipFromMask } from "../../../packages/core/src/image/ssim-exact.ts";
import { learnDynamicMask } from "../../../packages/evaluation/src/oracle/dynamic-mask.ts";

const empty = (w: number, h: number) => ({ width: w, height: h, data: new Uint8Array(w * h) });

describe("maskedScreenshotSsim", () => {
  it("equals screenshotSsim bit for bit without a mask and with a mask that marks nothing", async () => {
    const pairs = [
      ...(await syntheticPairs(1280, 800, { only: /one-pixel-row|small-dialog|clock-tick|noise-2/ })),
      ...(await syntheticPairs(330, 250, { only: /hover|text-one-word/ })),
      ...(
        await simDeskPairs({
          dir: join(mkdtempSync(join(tmpdir(), "retrace-mssim-")), "blobs"),
          tasks: ["files-rename-draft"],
        })
      ).filter((p) => /next-step|noise-step-1$/.test(p.name)),
    ];
    expect(pairs.length).toBeGreaterThanOrEqual(7);
    for (const p of pairs) {
      clearSsimCache();
      const paper = await screenshotSsim(p.a, p.b);
      const { width, height } = (await sharp(p.a).metadata()) as { width: number; height: number };
      const none = await maskedScreenshotSsim(p.a, p.b, null);
      const zero = await maskedScreenshotSsim(p.a, p.b, empty(width, height));
      expect(Object.is(none.ssim, paper), p.name).toBe(true);
      expect(Object.is(zero.ssim, paper), p.name).toBe(true);
      expect(zero.windows).toBe(zero.total);
    }
  });

  it("ignores a region that changes by itself (a ticking clock) and still sees a change elsewhere", async () => {
    const w = 1280,
      h = 800;
    const a = await renderDesktop(w, h, { clock: "09:41" });
    const clockOnly = await renderDesktop(w, h, { clock: "09:42" });
    const clockAndDialog = await renderDesktop(w, h, { clock: "09:42", dialog: true });
    // The mask is learned from captures of one state: the clock moved between them.
    const mask = await learnDynamicMask([
      a,
      await renderDesktop(w, h, { clock: "09:43" }),
      await renderDesktop(w, h, { clock: "09:44" }),
    ]);
    expect(mask).not.toBeNull();
    const masked = await maskedScreenshotSsim(a, clockOnly, mask);
    expect(await screenshotSsim(a, clockOnly)).toBeLessThan(1);
    expect(masked.ssim).toBe(1);
    expect(masked.windows).toBeLessThan(masked.total);
    expect(masked.windows / masked.total).toBeGreaterThan(0.95);
    const withDialog = await maskedScreenshotSsim(a, clockAndDialog, mask);
    expect(withDialog.ssim).toBeLessThan(DEFAULT_SSIM_THRESHOLD);
  });

  it("skips exactly the windows whose downsampled pixels read a masked source pixel", () => {
    const w = 1280,
      h = 800; // downsampling factor 3, pad 1
    const mask = empty(w, h);
    mask.data[400 * w + 640] = 1;
    const { skip, skipped } = windowSkipFromMask(mask);
    const prepared = prepareForSsim({ width: w, height: h, channels: 1, data: new Uint8Array(w * h) });
    const grid = windowGrid(prepared.width, prepared.height);
    expect(skip.length).toBe(grid.cols * grid.rows);
    // Source pixel 640 lies in the box of prepared pixel round((640 + 1) / 3) = 213 (rows alike: 133).
    expect(skipped).toBe(11 * 11);
    expect(skip[133 * grid.cols + 213]).toBe(1);
    expect(skip[(133 - 10) * grid.cols + (213 - 10)]).toBe(1);
    expect(skip[(133 - 11) * grid.cols + 213]).toBe(0);
    expect(skip[133 * grid.cols + 214]).toBe(0);
  });
});
