/**
 * Seeded randomness. Everything stochastic in retrace draws from an `Rng` derived from the
 * run seed and a label, so the same config and seed give the same results file.
 */
import { InternalError } from "./errors.ts";
import { createHash } from "node:crypto";

/** A seedable pseudo-random generator (sfc32). */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A uniformly chosen element; throws on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** A new independent generator derived from this one's seed and a label. */
  fork(label: string | number): Rng;
  /** The 128-bit seed material as hex, for the record. */
  readonly seedHex: string;
}

/** Create a generator from a seed and optional labels: `createRng(7, "task-3", "policy")`. */
export function createRng(seed: number | string, ...labels: Array<string | number>): Rng {
  const material = createHash("sha256")
    .update([String(seed), ...labels.map(String)].join("\u0000"))
    .digest();
  return fromWords(
    material.readUInt32LE(0),
    material.readUInt32LE(4),
    material.readUInt32LE(8),
    material.readUInt32LE(12),
    material.toString("hex").slice(0, 32),
  );
}

function fromWords(a0: number, b0: number, c0: number, d0: number, seedHex: string): Rng {
  let a = a0 >>> 0,
    b = b0 >>> 0,
    c = c0 >>> 0,
    d = d0 >>> 0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const rng: Rng = {
    seedHex,
    next,
    int(lo, hi) {
      if (hi < lo) throw new InternalError(`Rng.int: empty range [${lo}, ${hi}]`);
      return lo + Math.floor(next() * (hi - lo + 1));
    },
    chance(p) {
      return next() < p;
    },
    pick(items) {
      if (items.length === 0) throw new InternalError("Rng.pick: empty array");
      return items[Math.floor(next() * items.length)];
    },
    fork(label) {
      return createRng(seedHex, label);
    },
  };
  return rng;
}
