/**
 * The viewer's "target vs restored" heat maps: SSIM per 8x8 block of two 160x96 greyscale
 * thumbnails, for each recovery-end event whose attempt recorded a target and a restored screen.
 */
import sharp from "sharp";
import { BLOB_REF_RE, type BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeRecord } from "../runner/episode.ts";

const REF = BLOB_REF_RE;

const MAP_W = 160;
const MAP_H = 96;
const BLOCK = 8;

/** SSIM of two thumbnails per 8x8 block (the heat map under "target vs restored"). */
export function blockSsim(a: Uint8Array, b: Uint8Array, width = MAP_W, height = MAP_H, block = BLOCK): number[] {
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  const out: number[] = [];
  for (let by = 0; by + block <= height; by += block)
    for (let bx = 0; bx + block <= width; bx += block) {
      let sa = 0,
        sb = 0,
        saa = 0,
        sbb = 0,
        sab = 0;
      for (let y = by; y < by + block; y++)
        for (let x = bx; x < bx + block; x++) {
          const p = a[y * width + x],
            q = b[y * width + x];
          sa += p;
          sb += q;
          saa += p * p;
          sbb += q * q;
          sab += p * q;
        }
      const n = block * block;
      const ma = sa / n,
        mb = sb / n;
      const va = saa / n - ma * ma,
        vb = sbb / n - mb * mb,
        cov = sab / n - ma * mb;
      const ssim = ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      out.push(Math.round(Math.max(0, Math.min(1, ssim)) * 1000) / 1000);
    }
  return out;
}

async function thumbnail(blobs: BlobStore, ref: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(
      await sharp(await blobs.get(ref))
        .resize(MAP_W, MAP_H, { fit: "fill" })
        .greyscale()
        .raw()
        .toBuffer(),
    );
  } catch {
    return undefined;
  }
}

/** Fill in the SSIM heat maps of the recovery-end events (target vs restored), memoised by pair. */
export async function addSsimMaps(
  ep: { events: Array<{ afterSeq: number; kind: string; ssimMap?: number[] }> },
  blobs: BlobStore | undefined,
  refs: Map<string, [string, string]>,
  memo: Map<string, number[] | undefined>,
): Promise<void> {
  for (const e of ep.events) {
    const pair = refs.get(`${e.afterSeq}:${e.kind}`);
    if (!pair || !blobs || e.kind !== "recovery-end") continue;
    const key = pair.join(":");
    if (!memo.has(key)) {
      const [a, b] = await Promise.all(pair.map((r) => thumbnail(blobs, r)));
      memo.set(key, a && b ? blockSsim(a, b) : undefined);
    }
    const map = memo.get(key);
    if (map) e.ssimMap = map;
  }
}

/** The (target, restored) blob refs of each recovery-end event, keyed "afterSeq:kind". */
export function restorePairs(rec: EpisodeRecord): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  const targets = new Map<number, string>();
  for (const e of rec.trajectory.events) {
    const d = e.detail ?? {};
    if (e.kind === "recovery-start" && typeof d.target === "string" && REF.test(d.target))
      targets.set(Number(d.attempt), d.target);
    if (e.kind === "recovery-end" && typeof d.observation === "string" && REF.test(d.observation)) {
      const t = targets.get(Number(d.attempt));
      if (t) out.set(`${e.afterSeq}:${e.kind}`, [t, d.observation]);
    }
  }
  return out;
}
