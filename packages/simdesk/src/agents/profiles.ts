/**
 * Named configurations of the simulated components for experiments, and a helper that builds a
 * full set for one task. Every label starts with "simulated:" so results can never pass for a
 * model's.
 */
import type { SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";
import { ConfigError } from "@retrace-cua/core/errors";
import { createSimDetector, type SimDetector, type SimDetectorOptions } from "./detector.ts";
import { createSimForwardPolicy, type SimForwardPolicy, type SimForwardPolicyOptions } from "./forward.ts";
import { createSimRecoveryPolicy, type SimRecoveryPolicy, type SimRecoveryPolicyOptions } from "./recovery.ts";
import { createSimStepSelector, type SimStepSelector, type SimStepSelectorOptions } from "./selector.ts";

/** Skill of the skilled simulated recoverer: takes the right restorative action 90% of the time. */
export const SIM_RECOVERER_SKILLED = 0.9;
/** Skill of the weak simulated recoverer: 30% right, otherwise a plausible wrong action (makes things worse). */
export const SIM_RECOVERER_WEAK = 0.3;
/** Skill of the flailing simulated recoverer (EvoCUA-like: almost never restores, acts for its whole budget). */
export const SIM_RECOVERER_FLAILING = 0.05;

type ForwardProfile = Omit<SimForwardPolicyOptions, "task" | "seed">;
type RecovererProfile = Omit<SimRecoveryPolicyOptions, "groundTruth" | "seed" | "task">;
type DetectorProfile = Omit<SimDetectorOptions, "groundTruth" | "task" | "seed">;
type SelectorProfile = Omit<SimStepSelectorOptions, "groundTruth" | "task" | "seed">;

/**
 * Documented presets:
 * - forward.default: slips at 10% of steps, notices 5% of visible slips (the factory defaults);
 *   forward.careful: 3% / 10%; forward.sloppy: 20% / 2%.
 * - recoverer.skilled: skill 0.9 (false "restored" 2.5% per step); recoverer.weak: skill 0.3
 *   (false "restored" 17.5% per step), half of its wrong steps destructive (over-undo, close
 *   without saving, select-all + delete, flipping a setting; harm.ts) and followed at once by a
 *   false "restored" claim 60% of the time (it assumes its action put the target back), 35% of
 *   the time it acts destructively on a state that already matches the target (spurious
 *   perception), and 70% of its attempts over-undo 1-3 plan steps past the target before
 *   claiming it restored;
 *   recoverer.flailing: skill 0.05 and never declares restored
 *   early, so it spends its whole budget acting (the regime where more attempts derail).
 * - detector.decent: recall 0.9, false positives 2%, E off by 1-2 steps 10% of the time;
 *   detector.noisy: recall 0.6, false positives 10%, localisation noise 40%;
 *   detector.perfect: recall 1, no false positives, exact E.
 * - selector.accurate: right step 80% of the time; selector.poor: 40%.
 */
export const SIM_PROFILES = {
  forward: {
    default: { slipRate: 0.1, noticeRate: 0.05 },
    careful: { slipRate: 0.03, noticeRate: 0.1 },
    sloppy: { slipRate: 0.2, noticeRate: 0.02 },
  },
  recoverer: {
    skilled: { skill: SIM_RECOVERER_SKILLED },
    weak: { skill: SIM_RECOVERER_WEAK, harmRate: 0.5, assumeRestoredRate: 0.6, overUndoRate: 0.7 },
    flailing: { skill: SIM_RECOVERER_FLAILING, falseDoneRate: 0 },
  },
  detector: {
    decent: { recall: 0.9, falsePositiveRate: 0.02, localisationNoise: 0.1 },
    noisy: { recall: 0.6, falsePositiveRate: 0.1, localisationNoise: 0.4 },
    perfect: { recall: 1, falsePositiveRate: 0, localisationNoise: 0 },
  },
  selector: {
    accurate: { accuracy: 0.8 },
    poor: { accuracy: 0.4 },
  },
} as const satisfies {
  forward: Record<string, ForwardProfile>;
  recoverer: Record<string, RecovererProfile>;
  detector: Record<string, DetectorProfile>;
  selector: Record<string, SelectorProfile>;
};

export type SimForwardProfileName = keyof typeof SIM_PROFILES.forward;
export type SimRecovererProfileName = keyof typeof SIM_PROFILES.recoverer;
export type SimDetectorProfileName = keyof typeof SIM_PROFILES.detector;
export type SimSelectorProfileName = keyof typeof SIM_PROFILES.selector;

/** Something that may be a simulated component. */
export interface MaybeSimulated {
  name: string;
  simulated?: boolean;
  label?: string;
}

/**
 * The label for a run's simulated components, e.g.
 * `simulated: sim-forward(seed=1, slipRate=0.1, noticeRate=0.05) + sim-detector(...)`.
 * Non-simulated and absent components are left out; "" when none is simulated.
 */
export function describeSimulated(...parts: Array<MaybeSimulated | null | undefined>): string {
  const sims = parts.filter((p): p is MaybeSimulated => !!p && p.simulated === true);
  if (sims.length === 0) return "";
  return `simulated: ${sims.map((p) => p.label ?? p.name).join(" + ")}`;
}

/** Options of {@link createSimAgents}: a profile name or explicit options per component. */
export interface SimAgentsOptions {
  task: SimDeskTask;
  /** Ground truth of the environment the agents act in. */
  groundTruth: SimGroundTruth;
  /** One seed for all components (each draws from its own labelled stream). @default 0 */
  seed?: number | string;
  /** @default "default" */
  forward?: SimForwardProfileName | ForwardProfile;
  /** @default "skilled" */
  recoverer?: SimRecovererProfileName | RecovererProfile;
  /** @default "decent" */
  detector?: SimDetectorProfileName | DetectorProfile;
  /** @default "accurate" */
  selector?: SimSelectorProfileName | SelectorProfile;
}

/** A full set of simulated components for one task, plus its "simulated: ..." label. */
export interface SimAgents {
  policy: SimForwardPolicy;
  recoverer: SimRecoveryPolicy;
  detector: SimDetector;
  selector: SimStepSelector;
  label: string;
}

function profile<T>(kind: string, table: Record<string, T>, value: string | T | undefined, fallback: string): T {
  if (value === undefined || typeof value === "string") {
    const name: string = typeof value === "string" ? value : fallback;
    const found = table[name];
    if (!found)
      throw new ConfigError(
        `createSimAgents: unknown ${kind} profile "${name}" (one of ${Object.keys(table).join(", ")})`,
        { field: kind },
      );
    return found;
  }
  return value;
}

/** Build the simulated forward policy, recoverer, detector and selector for one task. */
export function createSimAgents(options: SimAgentsOptions): SimAgents {
  const { task, groundTruth, seed = 0 } = options;
  const policy = createSimForwardPolicy({
    task,
    seed,
    ...profile("forward", SIM_PROFILES.forward as Record<string, ForwardProfile>, options.forward, "default"),
  });
  const recoverer = createSimRecoveryPolicy({
    groundTruth,
    task,
    seed,
    ...profile("recoverer", SIM_PROFILES.recoverer as Record<string, RecovererProfile>, options.recoverer, "skilled"),
  });
  const detector = createSimDetector({
    groundTruth,
    task,
    seed,
    ...profile("detector", SIM_PROFILES.detector as Record<string, DetectorProfile>, options.detector, "decent"),
  });
  const selector = createSimStepSelector({
    groundTruth,
    task,
    seed,
    ...profile("selector", SIM_PROFILES.selector as Record<string, SelectorProfile>, options.selector, "accurate"),
  });
  return { policy, recoverer, detector, selector, label: describeSimulated(policy, recoverer, detector, selector) };
}
