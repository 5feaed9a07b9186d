/**
 * A planted landscape: a simulated outcome model over freeze window x recovery budget in which one
 * pair is best by a known margin, for proving the racing tuner finds it (tests, the
 * `tune-efficiency` bench). Success probability falls by `margin` per grid step away from the
 * planted best (L1 distance over the two knobs' value lists), floored at `floor`. Outcomes are
 * paired like real ones: with probability `sharing` a unit's draw is the unit's own difficulty
 * (shared by every candidate, as tasks and seeds are), otherwise the candidate's own draw.
 * Deterministic under the landscape seed. Pure: no I/O.
 */
import { createRng } from "@retrace-cua/core/rng";
import type { UnitOutcome } from "./objective.ts";
import type { Knob, KnobValue } from "./space.ts";

export interface PlantedLandscape {
  knobs: Knob[];
  /** The planted best setting. */
  best: Record<string, KnobValue>;
  /** Success probability of a setting. */
  probability(setting: Record<string, KnobValue>): number;
  /** The outcome of a setting on unit `unit`. */
  outcome(setting: Record<string, KnobValue>, unit: number): UnitOutcome;
}

export interface PlantedOptions {
  seed: number | string;
  /** Success probability of the best pair. @default 0.75 */
  top?: number;
  /** Points lost per grid step from the best. @default 0.12 */
  margin?: number;
  /** @default 0.1 */
  floor?: number;
  /** @default 0.6 */
  sharing?: number;
  /** Tokens per episode: a setting's cost grows with its budget (for cost charts). @default 1000 per budget step */
  tokensPerBudget?: number;
  /**
   * Spread of a planted cost: each episode costs its setting's mean cost times a uniform draw in
   * [1 - costNoise, 1 + costNoise] (its own stream, so success draws do not change). @default 0
   */
  costNoise?: number;
}

export const PLANTED_FREEZE_WINDOWS = [0, 1, 3, 5, 10] as const;
export const PLANTED_BUDGETS = [1, 3, 5, 10, 20] as const;

/** The planted landscape: freeze window 3 x recovery budget 5 is best. */
export function plantedLandscape(options: PlantedOptions): PlantedLandscape {
  const top = options.top ?? 0.75,
    margin = options.margin ?? 0.12,
    floor = options.floor ?? 0.1,
    sharing = options.sharing ?? 0.6;
  const perBudget = options.tokensPerBudget ?? 1000;
  const fw = "options.freezeWindow",
    rb = "options.recoveryBudget";
  const knobs: Knob[] = [
    { path: fw, values: [...PLANTED_FREEZE_WINDOWS] },
    { path: rb, values: [...PLANTED_BUDGETS] },
  ];
  const best = { [fw]: 3, [rb]: 5 };
  const probability = (s: Record<string, KnobValue>) => {
    const d =
      Math.abs(PLANTED_FREEZE_WINDOWS.indexOf(s[fw] as 3) - 2) + Math.abs(PLANTED_BUDGETS.indexOf(s[rb] as 5) - 2);
    return Math.max(floor, top - margin * d);
  };
  return {
    knobs,
    best,
    probability,
    outcome(s, unit) {
      const u = createRng(options.seed, "unit", unit);
      const shared = u.next();
      const own = createRng(options.seed, "unit", unit, String(s[fw]), String(s[rb]));
      const draw = own.next() < sharing ? shared : own.next();
      const noise = options.costNoise
        ? 1 + options.costNoise * (2 * createRng(options.seed, "cost", unit, String(s[fw]), String(s[rb])).next() - 1)
        : 1;
      return { success: draw < probability(s), cost: perBudget * Number(s[rb]) * noise };
    },
  };
}
