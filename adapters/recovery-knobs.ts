/**
 * The recovery knobs every wrapper of an agent loop takes (the LangChain middleware and the agent-SDK
 * wrappers): one definition, so the options and their defaults cannot drift apart.
 */
import type { TransitionString } from "../src/episode.ts";
import type { EpisodeEvents } from "../src/runtime/events.ts";
import type { RECOVERY_STEP_STRATEGIES, RecoveryStepSelector } from "../src/selector.ts";

/** Detection, step selection and truncation options shared by the loop wrappers. */
export interface RecoveryKnobs {
  /** The model-backed selector, needed (and used) for `recoveryStep: "llm"`. */
  selector?: RecoveryStepSelector;
  /** Detector is not consulted for this many steps after a recovery. @default 5 */
  freezeWindow?: number;
  /** At most this many recoveries per run; then the agent continues without detection. @default 3 */
  maxRecoveryIterations?: number;
  /** How R is chosen. @default "error-minus-1" */
  recoveryStep?: (typeof RECOVERY_STEP_STRATEGIES)[number];
  /** Minimum detector confidence that triggers a recovery (0 = the paper's: every off-track verdict triggers; retrace's gated variant: 0.5). @default 0 */
  minConfidence?: number;
  /** The transition string after a restoration: "short" (the paper's) or "detailed" (retrace's variant; see src/episode.ts). @default "short" */
  transition?: TransitionString;
  /** Seed for `error-random`. @default 0 */
  seed?: number;
  /** What the restore routine does, as reported in events ("model", "replay", "snapshot"). @default "model" */
  restoration?: "model" | "replay" | "snapshot";
  /** Time limit of one detector call in ms (0 = none). @default 120000 */
  detectorTimeoutMs?: number;
  /** The runtime's typed episode events. @default a new EpisodeEvents */
  events?: EpisodeEvents;
  /** Stable key of the task instance, so `error-random` reuses its draw. @default the task id */
  instanceKey?: string;
}
