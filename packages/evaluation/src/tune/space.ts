/**
 * The space a racing tuner searches: knobs (a config field path and the values to try) and the
 * candidates they make (one value per knob). Small spaces are enumerated as a grid; large ones are
 * sampled without replacement under a seed. Pure: no I/O.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { Rng } from "@retrace-cua/core/rng";

/** A knob value (what a YAML scalar can be). */
export type KnobValue = string | number | boolean;

/** One knob: a config field path (`options.freezeWindow`, `pair.detector.minConfidence`) and its values. */
export interface Knob {
  path: string;
  values: readonly KnobValue[];
}

/** One setting of every knob. */
export interface TuneCandidate {
  /** `c<n>`: the candidate's index in the space's enumeration order (stable under a seed). */
  id: string;
  /** Knob path -> value, in knob order. */
  setting: Record<string, KnobValue>;
}

/** Most candidates a space may hold (the product of the knobs' value counts). */
export const MAX_SPACE_SIZE = 1_000_000;

/** Check a knob list: a path is dotted names, each knob listed once, each value once. */
export function checkKnobs(knobs: readonly Knob[], field = "tune.space"): void {
  if (knobs.length === 0)
    throw new ConfigError(`${field}: name at least one knob (e.g. options.freezeWindow: [0, 1, 3, 5, 10])`, { field });
  const seen = new Set<string>();
  for (const k of knobs) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/.test(k.path))
      throw new ConfigError(
        `${field}.${k.path}: a knob is a dotted config field path, e.g. options.freezeWindow or pair.detector.minConfidence`,
        { field },
      );
    if (seen.has(k.path)) throw new ConfigError(`${field}.${k.path}: listed twice; list each knob once`, { field });
    seen.add(k.path);
    if (k.values.length === 0)
      throw new ConfigError(`${field}.${k.path}: give at least one value`, { field: `${field}.${k.path}` });
    const values = new Set<string>();
    for (const v of k.values) {
      const key = JSON.stringify(v);
      if (values.has(key))
        throw new ConfigError(`${field}.${k.path}: value ${key} is listed twice; list each value once`, {
          field: `${field}.${k.path}`,
        });
      values.add(key);
    }
  }
  const size = spaceSize(knobs);
  if (size > MAX_SPACE_SIZE)
    throw new ConfigError(
      `${field}: the space holds ${size} candidates, more than ${MAX_SPACE_SIZE}; give fewer values`,
      { field },
    );
}

/** How many candidates the knobs make (the full grid). */
export function spaceSize(knobs: readonly Knob[]): number {
  return knobs.reduce((n, k) => n * k.values.length, 1);
}

/** The candidate at grid index `i` (last knob varies fastest). */
export function candidateAt(knobs: readonly Knob[], i: number): TuneCandidate {
  const setting: Record<string, KnobValue> = {};
  let rest = i;
  const digits: number[] = [];
  for (let k = knobs.length - 1; k >= 0; k--) {
    digits[k] = rest % knobs[k].values.length;
    rest = Math.floor(rest / knobs[k].values.length);
  }
  knobs.forEach((k, j) => (setting[k.path] = k.values[digits[j]]));
  return { id: `c${i}`, setting };
}

/** Every candidate, in grid order. */
export function enumerateSpace(knobs: readonly Knob[]): TuneCandidate[] {
  return Array.from({ length: spaceSize(knobs) }, (_, i) => candidateAt(knobs, i));
}

/**
 * Random sampler: `count` candidates not in `taken` (grid indices), drawn uniformly without
 * replacement from `rng`. Fewer when the space has fewer left. The result is in draw order.
 */
export function sampleCandidates(
  knobs: readonly Knob[],
  count: number,
  rng: Rng,
  taken: ReadonlySet<number>,
): TuneCandidate[] {
  const size = spaceSize(knobs);
  const left = size - taken.size;
  const want = Math.min(count, left);
  if (want <= 0) return [];
  // Dense spaces: shuffle the remaining indices; sparse draws: rejection sampling.
  if (left <= 4 * want || size <= 4096) {
    const pool: number[] = [];
    for (let i = 0; i < size; i++) if (!taken.has(i)) pool.push(i);
    for (let i = 0; i < want; i++) {
      const j = rng.int(i, pool.length - 1);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, want).map((i) => candidateAt(knobs, i));
  }
  const out: number[] = [];
  const chosen = new Set<number>();
  while (out.length < want) {
    const i = rng.int(0, size - 1);
    if (taken.has(i) || chosen.has(i)) continue;
    chosen.add(i);
    out.push(i);
  }
  return out.map((i) => candidateAt(knobs, i));
}

/** The grid index of a candidate id (`c12` -> 12). */
export function candidateIndex(id: string): number {
  return Number(id.slice(1));
}

/** `freezeWindow=3, recoveryBudget=5` (the last path segment names each knob). */
export function settingText(setting: Record<string, KnobValue>): string {
  return Object.entries(setting)
    .map(([p, v]) => `${p}=${String(v)}`)
    .join(", ");
}
