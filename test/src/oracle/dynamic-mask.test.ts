import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import {
  dilateMask,
  learnDynamicMask,
  loadMask,
  maskFraction,
  saveMask,
  unionMasks,
} from "../../../packages/evaluation/src/oracle/dynamic-mask.ts";

async function png(w: number, h: number, paint: (x: number, y: number) => number): Promise<Buffer> {
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.fill(paint(x, y), (y * w + x) * 3, (y * w + x) * 3 + 3);
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

describe("learnDynamicMask", () => {
  it("returns null when every capture of the state is identical", async () => {
    const a = await png(40, 30, () => 200);
    expect(await learnDynamicMask([a, Buffer.from(a), Buffer.from(a)])).toBeNull();
    expect(await learnDynamicMask([a])).toBeNull();
  });

  it("marks the pixels that differ in any capture, dilated by the radius", async () => {
    const a = await png(40, 30, () => 200);
    const b = await png(40, 30, (x, y) => (x === 10 && y === 10 ? 0 : 200));
    const c = await png(40, 30, (x, y) => (x === 30 && y === 20 ? 0 : 200));
    const m = (await learnDynamicMask([a, b, c], 2))!;
    expect(m.data[10 * 40 + 10]).toBe(1);
    expect(m.data[12 * 40 + 12]).toBe(1); // inside the 5x5 square around (10, 10)
    expect(m.data[13 * 40 + 10]).toBe(0);
    expect(m.data[20 * 40 + 28]).toBe(1);
    expect(maskFraction(m)).toBeCloseTo(50 / 1200, 10);
    const undilated = (await learnDynamicMask([a, b, c], 0))!;
    expect(maskFraction(undilated)).toBeCloseTo(2 / 1200, 10);
  });

  it("learns nothing from captures of different sizes", async () => {
    expect(await learnDynamicMask([await png(40, 30, () => 1), await png(41, 30, () => 1)])).toBeNull();
  });
});

describe("mask helpers", () => {
  it("dilates at the borders without wrapping and unites masks", () => {
    const m = { width: 5, height: 4, data: new Uint8Array(20) };
    m.data[0] = 1;
    const d = dilateMask(m, 1);
    expect([...d.data]).toEqual([1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const other = { width: 5, height: 4, data: new Uint8Array(20) };
    other.data[19] = 1;
    expect(maskFraction(unionMasks([d, null, other])!)).toBeCloseTo(5 / 20, 10);
    expect(unionMasks([null, undefined])).toBeNull();
  });

  it("round-trips through a PNG blob", async () => {
    const store = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-mask-")), "blobs") });
    const m = { width: 7, height: 3, data: new Uint8Array(21) };
    m.data[3] = 1;
    m.data[20] = 1;
    const back = await loadMask(await saveMask(m, store), store);
    expect(back).toEqual(m);
  });
});
