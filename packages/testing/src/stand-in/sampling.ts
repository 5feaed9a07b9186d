/**
 * How the stand-in samples: every answer is a draw from a small distribution over candidate
 * answers, made with an RNG derived from the request's `seed` (or the server's own stream) and the
 * text of the prompt. `temperature` reshapes the distribution the way it reshapes a model's
 * logits: weights are raised to 1/T and renormalised, so T = 1 keeps the configured rates, lower
 * T sharpens towards the most likely answer, and T = 0 always gives it (argmax).
 */
import { createHash } from "node:crypto";
import { createRng, type Rng } from "@retrace-cua/core/rng";
import { InternalError } from "@retrace-cua/core/errors";

/** One candidate answer and its weight at temperature 1. */
export interface Candidate<T> {
  weight: number;
  value: T;
}

/** The sampling state of one request. */
export interface Draw {
  rng: Rng;
  /** Sampling temperature (OpenAI's default 1 when the request gives none). */
  temperature: number;
  /** True at temperature 0: every choice is the argmax and no jitter is added. */
  greedy: boolean;
}

/** The draw of one request: `seed` (request or server stream) + the prompt's text. */
export function drawFor(seed: string, promptText: string, temperature: number): Draw {
  const digest = createHash("sha256").update(promptText).digest("hex");
  return { rng: createRng(seed, digest), temperature, greedy: temperature <= 0 };
}

/** Choose one candidate: argmax at T = 0, else proportional to weight^(1/T). */
export function choose<T>(draw: Draw, candidates: readonly Candidate<T>[]): T {
  const live = candidates.filter((c) => c.weight > 0);
  if (live.length === 0) throw new InternalError("stand-in: nothing to choose from");
  if (draw.greedy) return live.reduce((a, b) => (b.weight > a.weight ? b : a)).value;
  const w = live.map((c) => Math.pow(c.weight, 1 / draw.temperature));
  const total = w.reduce((a, b) => a + b, 0);
  let u = draw.rng.next() * total;
  for (let i = 0; i < live.length; i++) {
    u -= w[i];
    if (u < 0) return live[i].value;
  }
  return live[live.length - 1].value;
}

/** True with probability p (sharpened by temperature like a two-way choice). */
export function happens(draw: Draw, p: number): boolean {
  return choose(draw, [
    { weight: p, value: true },
    { weight: 1 - p, value: false },
  ]);
}

/** A uniform pick among equals (the first at T = 0). */
export function pickOne<T>(draw: Draw, items: readonly T[]): T {
  if (items.length === 0) throw new InternalError("stand-in: nothing to pick from");
  return draw.greedy ? items[0] : items[Math.floor(draw.rng.next() * items.length)];
}

/** A uniform number in [lo, hi] (the midpoint at T = 0). */
export function uniform(draw: Draw, lo: number, hi: number): number {
  return draw.greedy ? (lo + hi) / 2 : lo + draw.rng.next() * (hi - lo);
}
