/**
 * The recovery knobs every wrapper of an agent loop takes (the LangChain middleware and the agent-SDK
 * wrappers): one definition, one zod shape and one validation, so the options, their defaults and
 * their error messages cannot drift apart.
 */
import { z } from "zod";
import { DEFAULT_UNCONFIRMED_RESTORATION, RecoveryOptionsSchema, TRANSITION_STRINGS, UNCONFIRMED_RESTORATION, type TransitionString, type UnconfirmedRestoration } from "../src/episode.ts";
import { ConfigError } from "../src/errors.ts";
import type { UserLogger } from "../src/logger.ts";
import type { EpisodeEvents } from "../src/runtime/events.ts";
import { RECOVERY_STEP_STRATEGIES, type RecoveryStepSelector } from "../src/selector.ts";

/** Detection, step selection and truncation options shared by the loop wrappers. */
export interface RecoveryKnobs {
  /** The model-backed selector, needed (and used) for `recoveryStep: "llm"`. */
  selector?: RecoveryStepSelector;
  /**
   * Settle window in ms (paper App. A.1/B.2: wait before capturing the next observation; OSWorld
   * 10000): after the steps an agent turn executed, wait this long and observe again before the
   * detector and the next model call see the screen; the built-in restore routine waits after each
   * recovery step too (src/settle.ts). @default 0
   */
  settleMs?: number;
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
  /**
   * After a restoration that was not confirmed (`restored: false`: the recoverer gave up or ran out
   * of budget, the verifier rejected or abstained): "disclose-and-keep" keeps the agent's context
   * and tells it the return to step R could not be confirmed; "disclose-and-cut" cuts to R and
   * says the same; "claim-recovered" is the paper's (cut, "the environment has been recovered").
   * See src/episode.ts. @default "disclose-and-keep"
   */
  unconfirmedRestoration?: UnconfirmedRestoration;
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

/** The knobs that always have a value once resolved. */
export type DefaultedKnob = "settleMs" | "freezeWindow" | "maxRecoveryIterations" | "recoveryStep" | "minConfidence" | "transition" | "unconfirmedRestoration" | "seed" | "restoration" | "detectorTimeoutMs";

/** The knobs with their defaults filled in. */
export type ResolvedKnobs = Omit<RecoveryKnobs, DefaultedKnob> & Required<Pick<RecoveryKnobs, DefaultedKnob>>;

/** zod: an object with a `method()` (a detector's `detect`, a blob reader's `get`...). */
export const withMethod = (method: string) =>
  z.custom<object>((v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function", { message: `must be an object with ${method}()` });

/** zod: a function; `what` names its signature in the error message. */
export const fn = (what?: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: what ? `must be a function (${what})` : "must be a function" });

/** Seeds of the wrappers are bounded like the experiment configs' seeds, so that sums stay safe integers. */
const MAX_KNOB_SEED = 1_000_000_000_000_000;

/** zod shape of {@link RecoveryKnobs} with the runtime's defaults and bounds (src/episode.ts). */
/** The `logger` option of every integration: a pino-compatible logger (src/logger.ts `UserLogger`). */
export const userLoggerSchema = () =>
  z.custom<UserLogger>((v) => ["debug", "info", "warn", "error"].every((m) => typeof (v as Record<string, unknown> | null)?.[m] === "function"), { message: "must be a pino-compatible logger { debug, info, warn, error } taking (obj, msg)" });

export const RECOVERY_KNOBS_SHAPE = {
  selector: withMethod("select").optional(),
  settleMs: z.number().int().min(0).max(60_000, "at most 60000 ms (one minute) after each step (OSWorld waits 10000)").default(0),
  // The same fields, bounds and messages as the runtime's own options (src/episode.ts): one parser.
  freezeWindow: RecoveryOptionsSchema.shape.freezeWindow,
  maxRecoveryIterations: RecoveryOptionsSchema.shape.maxRecoveryIterations,
  recoveryStep: z.enum(RECOVERY_STEP_STRATEGIES).default("error-minus-1"),
  minConfidence: z.number().min(0).max(1).default(0),
  transition: z.enum(TRANSITION_STRINGS).default("short"),
  unconfirmedRestoration: z.enum(UNCONFIRMED_RESTORATION).default(DEFAULT_UNCONFIRMED_RESTORATION),
  seed: z.number().int().min(-MAX_KNOB_SEED, `at least -${MAX_KNOB_SEED}`).max(MAX_KNOB_SEED, `at most ${MAX_KNOB_SEED}`).default(0),
  restoration: z.enum(["model", "replay", "snapshot"]).default("model"),
  detectorTimeoutMs: z.number().int().min(0).max(3_600_000, "at most 3600000 ms (one hour)").default(120_000),
  events: withMethod("emit").optional(),
  instanceKey: z.string().min(1).optional(),
};

/**
 * Validate a wrapper's options against its strict schema (built on {@link RECOVERY_KNOBS_SHAPE}); a
 * ConfigError prefixed with `where` names the first bad field; then `check` (the wrapper's own
 * rules) runs; last, `recoveryStep: "llm"` needs a `selector`. Returns the caller's options with the
 * defaults filled in, keeping the caller's function and object identities (zod validated the shapes).
 */
export function parseKnobOptions<T extends RecoveryKnobs, S extends z.ZodType>(where: string, schema: S, options: T, check?: () => void): T & z.output<S> {
  const r = schema.safeParse(options ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.join(".") || "options";
    throw new ConfigError(`${where}: option "${field}" ${issue.message}`, { field });
  }
  check?.();
  if ((r.data as RecoveryKnobs).recoveryStep === "llm" && !options.selector) throw new ConfigError(`${where}: option "selector" is required when recoveryStep is "llm"`, { field: "selector" });
  return { ...options, ...(r.data as object) } as T & z.output<S>;
}
