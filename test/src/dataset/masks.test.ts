/** MaskCollector keeps the target's distinct captures beside its masks (for R_Om's capture check and re-judging). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { MaskCollector } from "../../../packages/evaluation/src/dataset/masks.ts";
import { loadMask, maskFraction } from "../../../packages/evaluation/src/oracle/dynamic-mask.ts";
import type { RecoverySample } from "../../../packages/evaluation/src/dataset/types.ts";

const png = (dot: number) => {
  const data = Buffer.alloc(30 * 20 * 3, 200);
  if (dot >= 0) data.fill(0, dot * 3, dot * 3 + 3);
  return sharp(data, { raw: { width: 30, height: 20, channels: 3 } })
    .png()
    .toBuffer();
};

describe("MaskCollector", () => {
  it("assigns each sample its state mask, the task union and the distinct captures of its target", async () => {
    const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-masks-")), "blobs") });
    const [a, b, c] = await Promise.all([png(-1), png(45), png(300)].map(async (p) => blobs.put(await p)));
    const collector = new MaskCollector({ store: blobs, dilate: 1 }, blobs);
    await collector.addState("t1", "t1/r0/t2", [a, b, a]);
    await collector.addState("t1", "t1/r0/t3", [c, c]);
    await collector.addReplays("t1", "t1/r1", [[a, c]]);
    expect(collector.stateMask("t1/r0/t2")).toMatchObject({ captures: [a, b] });
    expect(collector.stateMask("t1/r0/t3")).toEqual({ ref: null, fraction: 0, captures: [c] });
    expect(collector.stateMask("nope")).toBeUndefined();
    const samples = [
      { taskId: "t1", key: "t1/r0/t2" },
      { taskId: "t1", key: "t1/r0/t3" },
    ] as unknown as RecoverySample[];
    const [s2, s3] = await collector.assign(samples, (s) => (s as unknown as { key: string }).key);
    expect(s2.masks!.captures).toEqual([a, b]);
    expect(s3.masks!.captures).toEqual([c]);
    expect(s3.masks!.state).toBeNull();
    // the task union covers the dot of state t2 and the one only the replays saw
    const union = await loadMask(s3.masks!.task!, blobs);
    expect(union.data[45]).toBe(1);
    expect(union.data[300]).toBe(1);
    expect(maskFraction(union)).toBeCloseTo(s3.masks!.taskFraction, 6);
  });
});
