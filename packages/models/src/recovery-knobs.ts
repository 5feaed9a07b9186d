/**
 * The recovery knobs every wrapper of an agent loop takes (the LangChain middleware and the agent-SDK
 * wrappers): the runtime's own knobs, resolved by the runtime's one resolver
 * (`resolveRecoveryOptions`, packages/core/src/runtime/options.ts), plus the wrappers' extras, so the options,
 * their defaults and their error messages cannot drift apart from the graph's.
 */
import { z } from "zod";
import type { TransitionString, UnconfirmedRestoration } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import { DEFAULT_DETECTOR_TIMEOUT_MS } from "@retrace-cua/core/runtime/detection";
import {
  resolveRecoveryOptions,
  type RecoveryKnobName,
  type ResolvedRecoveryOptions,
} from "@retrace-cua/core/runtime/options";
import { presetRecoveryDefaults } from "@retrace-cua/core/runtime/preset-recovery";
import type { UserLogger } from "@retrace-cua/core/logger";
import type { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { RECOVERY_STEP_STRATEGIES, type RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import { isDetectionPresetSpec, type DetectionPresetOptions } from "./llm/detection-preset.ts";

/** Detection, step selection and truncation options shared by the loop wrappers. */
export interface RecoveryKnobs {
  /** The model-backed selector, needed (and used) for `recoveryStep: "llm"`. */
  selector?: RecoveryStepSelector;
  /**
   * Settle window in ms (paper App. A.1/B.2: wait before capturing the next observation; OSWorld
   * 10000): after the steps an agent turn executed, wait this long and observe again before the
   * detector and the next model call see the screen; the built-in restore routine waits after each
   * recovery step too (packages/core/src/settle.ts). @default 0
   */
  settleMs?: number;
  /** Detector is not consulted for this many steps after a recovery. @default 5 */
  freezeWindow?: number;
  /** At most this many recoveries per run; then the agent continues without detection. @default 3 */
  maxRecoveryIterations?: number;
  /** How R is chosen. @default "error-minus-1" */
  recoveryStep?: (typeof RECOVERY_STEP_STRATEGIES)[number];
  /**
   * Minimum detector confidence that triggers a recovery (0 = the paper's: every off-track verdict triggers; retrace's
   * gated variant: 0.5). @default 0
   */
  minConfidence?: number;
  /**
   * The transition string after a restoration: "short" (the paper's) or "detailed" (retrace's variant; see
   * packages/core/src/episode.ts). @default "short"
   */
  transition?: TransitionString;
  /**
   * After a restoration that was not confirmed (`restored: false`: the recoverer gave up or ran out
   * of budget, the verifier rejected or abstained): "disclose-and-keep" keeps the agent's context
   * and tells it the return to step R could not be confirmed; "disclose-and-cut" cuts to R and
   * says the same; "claim-recovered" is the paper's (cut, "the environment has been recovered").
   * See packages/core/src/episode.ts. @default "disclose-and-keep"
   */
  unconfirmedRestoration?: UnconfirmedRestoration;
  /** Seed for `error-random`. @default 0 */
  seed?: number;
  /** What the restore routine does, as reported in events ("model", "replay", "snapshot"). @default "model" */
  restoration?: "model" | "replay" | "snapshot";
  /** Time limit of one detector call in ms (0 = none); a timed-out call is aborted, not retried. @default 30000 */
  detectorTimeoutMs?: number;
  /**
   * Failed or timed-out detector calls in a row after which recovery reports itself degraded (docs/cost.md). @default 3
   */
  degradedAfter?: number;
  /**
   * Once degraded: "continue" unjudged (flagged), or "fail" the run with a DetectorUnavailableError. @default
   * "continue"
   */
  onDetectorFailure?: "continue" | "fail";
  /**
   * Once the recovery attempts are spent: "stop" ends the run when the agent takes the same actions 3 times in a row
   * on a screen they do not change (stop reason "stuck"; packages/core/src/runtime/stuck.ts); "continue" is the
   * paper's. The production preset's recipe sets "stop". @default "continue"
   */
  onStuck?: "continue" | "stop";
  /** The runtime's typed episode events. @default a new EpisodeEvents */
  events?: EpisodeEvents;
  /** Stable key of the task instance, so `error-random` reuses its draw. @default the task id */
  instanceKey?: string;
}

/** The knobs that always have a value once resolved. */
export type DefaultedKnob =
  | "settleMs"
  | "freezeWindow"
  | "maxRecoveryIterations"
  | "recoveryStep"
  | "minConfidence"
  | "transition"
  | "unconfirmedRestoration"
  | "seed"
  | "restoration"
  | "detectorTimeoutMs"
  | "degradedAfter"
  | "onDetectorFailure"
  | "onStuck";

/** The knobs with their defaults filled in. */
export type ResolvedKnobs = Omit<RecoveryKnobs, DefaultedKnob> & Required<Pick<RecoveryKnobs, DefaultedKnob>>;

/** zod: an object with a `method()` (a detector's `detect`, a blob reader's `get`...). */
export const withMethod = (method: string) =>
  z.custom<object>(
    (v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function",
    { message: `must be an object with ${method}()` },
  );

/** zod: a function; `what` names its signature in the error message. */
export const fn = (what?: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", {
    message: what ? `must be a function (${what})` : "must be a function",
  });

/**
 * zod: the `detector` option of every wrapper: an ErrorDetector, or a detection preset spec
 * (`{ preset: "paper" | "production", model: judgeChatModel, ... }`, packages/models/src/llm/detection-preset.ts),
 * built by {@link resolveDetectorOption} after validation.
 */
export const detectorField = () =>
  z.custom<ErrorDetector | DetectionPresetOptions>(
    (v) =>
      isDetectionPresetSpec(v) ||
      (typeof v === "object" && v !== null && typeof (v as { detect?: unknown }).detect === "function"),
    {
      message:
        'must be an ErrorDetector (an object with detect()) or a detection preset { preset: "paper" | "production", model: ChatModel }',
    },
  );

/** The `logger` option of every integration: a pino-compatible logger (packages/core/src/logger.ts `UserLogger`). */
export const userLoggerSchema = () =>
  z.custom<UserLogger>(
    (v) =>
      ["debug", "info", "warn", "error"].every((m) => typeof (v as Record<string, unknown> | null)?.[m] === "function"),
    { message: "must be a pino-compatible logger { debug, info, warn, error } taking (obj, msg)" },
  );

/**
 * The runtime knobs (packages/core/src/episode.ts) every loop wrapper takes; their bounds, defaults and messages are the runtime's.
 */
export const WRAPPER_KNOBS = [
  "settleMs",
  "freezeWindow",
  "maxRecoveryIterations",
  "recoveryStep",
  "minConfidence",
  "transition",
  "unconfirmedRestoration",
  "seed",
  "restoration",
  "degradedAfter",
  "onDetectorFailure",
  "onStuck",
] as const satisfies readonly RecoveryKnobName[];

/** The wrappers' own fields on top of the runtime knobs (a wrapper restores by model, replay or snapshot only). */
export const WRAPPER_EXTRAS_SHAPE = {
  selector: withMethod("select").optional(),
  restoration: z.enum(["model", "replay", "snapshot"]).default("model"),
  detectorTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(3_600_000, "at most 3600000 ms (one hour)")
    .default(DEFAULT_DETECTOR_TIMEOUT_MS),
  events: withMethod("emit").optional(),
  instanceKey: z.string().min(1).optional(),
};

/**
 * Validate a wrapper's options with the one resolver (`resolveRecoveryOptions`, packages/core/src/runtime/options.ts):
 * the runtime `knobs` it takes plus its `extras`, strictly; a ConfigError prefixed with `where` names the
 * first bad field; then `check` (the wrapper's own rules) runs; last, `recoveryStep: "llm"` needs a
 * `selector`. Returns the caller's options with the defaults filled in, keeping the caller's function
 * and object identities (zod validated the shapes).
 */
export function parseKnobOptions<T extends RecoveryKnobs, K extends RecoveryKnobName, X extends z.ZodRawShape>(
  where: string,
  knobs: readonly K[],
  extras: X,
  options: T,
  check?: () => void,
): T & Pick<ResolvedRecoveryOptions, K> & z.output<z.ZodObject<X>> {
  // a detection preset's recovery recipe (packages/core/src/runtime/preset-recovery.ts) under the caller's own knobs
  const defaults = presetRecoveryDefaults((options as { detector?: unknown } | undefined)?.detector, where);
  const r = resolveRecoveryOptions(options ?? {}, {
    where,
    knobs,
    extras: { ...WRAPPER_EXTRAS_SHAPE, ...extras },
    defaults,
  });
  check?.();
  if ((r as RecoveryKnobs).recoveryStep === "llm" && !options.selector)
    throw new ConfigError(`${where}: option "selector" is required when recoveryStep is "llm"`, { field: "selector" });
  return { ...options, ...(r as object) } as T & Pick<ResolvedRecoveryOptions, K> & z.output<z.ZodObject<X>>;
}
