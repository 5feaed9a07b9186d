/**
 * Stagnation detector (heuristic, no model): the screen has not changed for `k` forward steps,
 * i.e. the last k actions had no visible effect. Blames the first of those actions:
 * with observations o_{t-k} .. o_t all the same screen, E = t - k.
 * Steps whose actions are all WAIT are expected to leave the screen alone and break no streak,
 * but do not count towards it either.
 */
import { z } from "zod";
import type { Detection, DetectorInput, ErrorDetector } from "../detector.ts";
import { ConfigError } from "../errors.ts";
import { ScreenComparator } from "./screen-compare.ts";

/** Options of {@link createStagnationDetector}. */
export interface StagnationDetectorOptions {
  /** Unchanged screens for this many forward steps count as stagnation. @default 3 */
  k?: number;
  /** SSIM at or above this counts as an unchanged screen. @default 0.99 */
  ssimThreshold?: number;
}

const OptionsSchema = z
  .object({ k: z.number().int().min(1).default(3), ssimThreshold: z.number().min(0).max(1).default(0.99) })
  .strict();

/** A detector that fires when the last `k` actions changed nothing on screen. */
export function createStagnationDetector(options: StagnationDetectorOptions = {}): ErrorDetector {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`stagnation detector: ${issue.path.join(".") || "options"}: ${issue.message}`, {
      field: issue.path.join("."),
    });
  }
  const { k, ssimThreshold } = parsed.data;
  const screens = new ScreenComparator(ssimThreshold);
  return {
    name: `stagnation(k=${k})`,
    async detect(input: DetectorInput): Promise<Detection> {
      const { history, observation, blobs } = input;
      let streak = 0;
      let current = observation.screenshot;
      for (let j = history.length - 1; j >= 0 && streak < k; j--) {
        const entry = history[j];
        const waitOnly = entry.actions.length > 0 && entry.actions.every((a) => a.type === "WAIT");
        if (!(await screens.same(blobs, entry.observation.screenshot, current))) break;
        if (!waitOnly) streak++;
        current = entry.observation.screenshot;
        if (streak >= k) {
          return {
            isError: true,
            errorStep: j,
            reason: `screen unchanged for ${k} steps since step ${j}: the actions had no visible effect`,
            confidence: 0.7,
          };
        }
      }
      return {
        isError: false,
        errorStep: null,
        reason: streak ? `screen unchanged for ${streak} step(s)` : "screen changed",
        confidence: 0.7,
      };
    },
  };
}
