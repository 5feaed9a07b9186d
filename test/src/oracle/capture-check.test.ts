/**
 * R_Om's capture check and the masked-SSIM "inside" mode: a dynamic region must look like one of
 * the target's observed captures; without captures R_Om only ignores it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { maskedScreenshotSsim } from "../../../packages/core/src/image/similarity.ts";
import { learnDynamicMask, saveMask } from "../../../packages/evaluation/src/oracle/dynamic-mask.ts";
import { maskedObservationOracle } from "../../../packages/evaluation/src/oracle/recovery-oracle.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";

const W = 120,
  H = 80;
/** A grey screen with a textured "clock" box whose content depends on `clock` and an optional dark block. */
async function screen(clock: number, block = false): Promise<Buffer> {
  const data = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      let v = 90 + ((x * 7 + y * 3) % 40);
      if (x >= 90 && x < 114 && y >= 4 && y < 16) v = ((x * (clock + 3) + y * (clock + 1)) % 5) * 50;
      if (block && x >= 20 && x < 50 && y >= 30 && y < 60) v = 10;
      data.fill(v, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  return sharp(data, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
}

describe("masked SSIM inside the mask and the capture check", () => {
  it("averages over the masked windows only with inside: true (NaN without a mask)", async () => {
    const [a, b] = [await screen(1), await screen(2)];
    const mask = (await learnDynamicMask([a, b], 1))!;
    const outside = await maskedScreenshotSsim(a, b, mask);
    const inside = await maskedScreenshotSsim(a, b, mask, { inside: true });
    expect(outside.ssim).toBe(1);
    expect(inside.ssim).toBeLessThan(0.9);
    expect(inside.windows + outside.windows).toBe(outside.total);
    expect(Number.isNaN((await maskedScreenshotSsim(a, b, null, { inside: true })).ssim)).toBe(true);
  });

  it("passes a recovered screen whose dynamic region matches a capture, fails one showing content no capture had", async () => {
    const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-capture-")), "blobs") });
    const caps = await Promise.all([screen(1), screen(2), screen(3)].map(async (p) => blobs.put(await p)));
    const mask = (await learnDynamicMask(await Promise.all(caps.map((c) => blobs.get(c))), 1))!;
    const maskRef = await saveMask(mask, blobs);
    const obs = async (png: Promise<Buffer>): Promise<Observation> => ({
      screenshot: await blobs.put(await png),
      width: W,
      height: H,
    });
    const target = { screenshot: caps[0], width: W, height: H };
    const seen = await maskedObservationOracle(await obs(screen(2)), target, blobs, maskRef, 0.99, undefined, caps);
    expect(seen).toMatchObject({ pass: true, ssim: 1, captureSsim: 1 });
    const unseen = await maskedObservationOracle(await obs(screen(4)), target, blobs, maskRef, 0.99, undefined, caps);
    expect(unseen.ssim).toBe(1); // outside the mask nothing changed: plain R_Om passes
    expect(unseen.captureSsim!).toBeLessThan(0.99);
    expect(unseen.pass).toBe(false);
    expect((await maskedObservationOracle(await obs(screen(4)), target, blobs, maskRef)).pass).toBe(true);
    // a real difference outside the mask fails either way
    const blocked = await maskedObservationOracle(
      await obs(screen(2, true)),
      target,
      blobs,
      maskRef,
      0.99,
      undefined,
      caps,
    );
    expect(blocked.pass).toBe(false);
    expect(blocked.ssim).toBeLessThan(0.99);
  });
});
