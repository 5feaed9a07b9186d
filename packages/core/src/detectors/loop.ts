/**
 * Loop detector (heuristic, no model): the trajectory repeats a cycle of (screen, action) pairs.
 * With pairs p_j = (o_j, a_j), a cycle of length L seen `repeats` times means the last L*repeats
 * pairs are periodic with period L (screens judged by SSIM, actions equal) and the current screen
 * o_t matches o_{t-L}. The first repetition is blamed: E = t - L*(repeats-1).
 */
import { z } from "zod";
import type { Detection, DetectorInput, ErrorDetector } from "../detector.ts";
import { ConfigError } from "../errors.ts";
import { stableStringify } from "../hash.ts";
import { ScreenComparator } from "./screen-compare.ts";

/** Options of {@link createLoopDetector}. */
export interface LoopDetectorOptions {
  /** Shortest cycle length looked for. @default 1 */
  minCycle?: number;
  /** Longest cycle length looked for. @default 4 */
  maxCycle?: number;
  /** How many times the cycle must occur in a row. @default 3 */
  repeats?: number;
  /** SSIM at or above this counts as the same screen. @default 0.99 */
  ssimThreshold?: number;
}

const OptionsSchema = z
  .object({
    minCycle: z.number().int().min(1).default(1),
    maxCycle: z.number().int().min(1).default(4),
    repeats: z.number().int().min(2).default(3),
    ssimThreshold: z.number().min(0).max(1).default(0.99),
  })
  .strict()
  .refine((o) => o.maxCycle >= o.minCycle, { message: "maxCycle must be >= minCycle", path: ["maxCycle"] });

/** A detector that fires when the agent goes round the same cycle of screens and actions. */
export function createLoopDetector(options: LoopDetectorOptions = {}): ErrorDetector {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`loop detector: ${issue.path.join(".") || "options"}: ${issue.message}`, {
      field: issue.path.join("."),
    });
  }
  const { minCycle, maxCycle, repeats, ssimThreshold } = parsed.data;
  const screens = new ScreenComparator(ssimThreshold);
  return {
    name: `loop(${minCycle}..${maxCycle}x${repeats})`,
    async detect(input: DetectorInput): Promise<Detection> {
      const { history, observation, blobs } = input;
      const t = history.length;
      const actionKeys = history.map((h) => stableStringify(h.actions));
      const screenAt = (j: number) => (j === t ? observation.screenshot : history[j].observation.screenshot);
      for (let L = minCycle; L <= maxCycle; L++) {
        const span = L * repeats;
        if (span > t) break;
        let periodic = true;
        for (let j = t - span; j < t - L && periodic; j++) {
          if (actionKeys[j] !== actionKeys[j + L]) periodic = false;
        }
        if (!periodic) continue;
        for (let j = t - span; j <= t - L && periodic; j++) {
          if (!(await screens.same(blobs, screenAt(j), screenAt(j + L)))) periodic = false;
        }
        if (periodic) {
          const errorStep = t - L * (repeats - 1);
          return {
            isError: true,
            errorStep,
            reason: `the same ${L}-step cycle of screens and actions repeated ${repeats} times since step ${t - span}`,
            confidence: 0.75,
          };
        }
      }
      return { isError: false, errorStep: null, reason: "no repeated cycle", confidence: 0.75 };
    },
  };
}
