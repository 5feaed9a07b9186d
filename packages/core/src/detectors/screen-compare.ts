/**
 * "Is this the same screen?" for heuristic detectors: identical blob references first (free),
 * then SSIM >= threshold on the PNGs. Results are cached per reference pair; references are
 * content hashes, so a cached answer never goes stale.
 */
import type { BlobReader, BlobRef } from "../blob-store.ts";
import { screenshotSsim } from "../image/similarity.ts";

/** Compares screenshots by reference and SSIM, with a bounded cache. */
export class ScreenComparator {
  private readonly cache = new Map<string, number>();

  constructor(
    /** SSIM at or above this counts as the same screen. */
    readonly threshold: number,
    private readonly maxEntries = 4096,
  ) {}

  /** SSIM of two screenshots (1 for the same reference). */
  async ssim(blobs: BlobReader, a: BlobRef, b: BlobRef): Promise<number> {
    if (a === b) return 1;
    const key = a < b ? `${a}:${b}` : `${b}:${a}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const [ba, bb] = await Promise.all([blobs.get(a), blobs.get(b)]);
    const value = await screenshotSsim(ba, bb);
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, value);
    return value;
  }

  /** True when the two screenshots count as the same screen. */
  async same(blobs: BlobReader, a: BlobRef, b: BlobRef): Promise<boolean> {
    return (await this.ssim(blobs, a, b)) >= this.threshold;
  }
}
