/**
 * The simulated error-step detector: knows from SimDesk's ground truth whether the trajectory is
 * off track and where it left the path, and reports it with a configured recall, false-positive
 * rate and localisation noise. Draws come from (seed, task id, input.tick).
 */
import { noDetection, type Detection, type ErrorDetector } from "@retrace-cua/core/detector";
import { createRng } from "@retrace-cua/core/rng";
import type { SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";
import {
  SimDetectorOptionsSchema,
  formatParams,
  parseSimOptions,
  requireGroundTruth,
  requireTask,
  round3 as round,
  simulated,
  type Simulated,
} from "./options.ts";
import { trajectoryTruth } from "./truth.ts";

/** Options of {@link createSimDetector}. */
export interface SimDetectorOptions {
  /** SimDesk's ground truth for the running environment. */
  groundTruth: SimGroundTruth;
  /** The task being run (its reference path defines "on track"). */
  task: SimDeskTask;
  /** Seed of every draw (combined with the task id and the episode tick). @default 0 */
  seed?: number | string;
  /** Probability of reporting a true off-track state. @default 0.9 */
  recall?: number;
  /** Probability of a false alarm on an on-track state. @default 0.02 */
  falsePositiveRate?: number;
  /** Probability that a reported E is off by 1 or 2 steps (kept within 0..t-1). @default 0.1 */
  localisationNoise?: number;
}

/** A seeded simulated detector; `label` describes its configuration for reports. */
export type SimDetector = Simulated<ErrorDetector>;

/** Create the simulated detector for one SimDesk task. */
export function createSimDetector(options: SimDetectorOptions): SimDetector {
  const factory = "createSimDetector";
  const task = requireTask(factory, options?.task);
  const gt = requireGroundTruth(factory, options?.groundTruth);
  const { seed, recall, falsePositiveRate, localisationNoise } = parseSimOptions(factory, SimDetectorOptionsSchema, {
    seed: options.seed,
    recall: options.recall,
    falsePositiveRate: options.falsePositiveRate,
    localisationNoise: options.localisationNoise,
  });
  const label = `sim-detector(${formatParams({ seed, recall, falsePositiveRate, localisationNoise })})`;

  const detect = async (input: Parameters<ErrorDetector["detect"]>[0]): Promise<Detection> => {
    if (input.observation.stateId === undefined) {
      return noDetection(
        "simulated detector: observation has no stateId",
        "sim-detector needs SimDesk observations (stateId missing)",
      );
    }
    const rng = createRng(seed, task.id, "sim-detector", input.tick);
    const truth = trajectoryTruth(gt, task, input.history, input.observation);
    const t = input.history.length;
    if (truth.offTrack) {
      if (!rng.chance(recall))
        return {
          isError: false,
          errorStep: null,
          reason: "simulated: looks on track (missed)",
          confidence: round(0.5 + 0.3 * rng.next()),
        };
      let errorStep = truth.errorStep!;
      let reason = `simulated: ${truth.reason}`;
      if (rng.chance(localisationNoise)) {
        const shifts = [-2, -1, 1, 2].filter((d) => errorStep + d >= 0 && errorStep + d <= t - 1);
        if (shifts.length > 0) {
          errorStep += rng.pick(shifts);
          reason += `; reported E off by ${errorStep - truth.errorStep!}`;
        }
      }
      return { isError: true, errorStep, reason, confidence: round(0.8 + 0.2 * rng.next()) };
    }
    if (t > 0 && rng.chance(falsePositiveRate)) {
      const errorStep = rng.int(0, t - 1);
      return {
        isError: true,
        errorStep,
        reason: `simulated: false alarm (${truth.reason})`,
        confidence: round(0.6 + 0.3 * rng.next()),
      };
    }
    return {
      isError: false,
      errorStep: null,
      reason: `simulated: ${truth.reason}`,
      confidence: round(0.8 + 0.2 * rng.next()),
    };
  };

  return simulated("sim-detector", label, { detect });
}
