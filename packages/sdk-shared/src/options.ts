/**
 * Options shared by the SDK wrappers (`runWithRecovery` for the OpenAI Agents SDK, `executeWithRecovery` for Stagehand,
 * `generateTextWithRecovery` for the Vercel AI SDK), validated at the boundary by the runtime's one
 * resolver (resolveRecoveryOptions, through packages/models/src/recovery-knobs.ts), with their own fields layered on top. The
 * knobs
 * and defaults are the runtime's and the LangChain middleware's (packages/langchain/src/options.ts):
 * freezeWindow 5, maxRecoveryIterations 3, recoveryStep "error-minus-1", minConfidence 0,
 * transition "short", seed 0. Instead of a restore routine the caller may pass a `recoverer`
 * (the budgeted recovery sub-agent, run by `recoverWithPolicy`).
 */
import { z } from "zod";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { Environment } from "@retrace-cua/core/environment";
import type { RecoveryPolicy } from "@retrace-cua/core/recovery";
import type { TaskSpec } from "@retrace-cua/core/task";
import { ConfigError } from "@retrace-cua/core/errors";
import type { UserLogger } from "@retrace-cua/core/logger";
import { renameDeprecatedKeys } from "@retrace-cua/core/deprecation";
import { postRestoration } from "@retrace-cua/core/prompts/index";
import type { PostRestorationFn } from "@retrace-cua/core/runtime/attempt";
import { recoverWithPolicy, type RecoverySubAgentOptions } from "@retrace-cua/core/runtime/recover-with-policy";
import type { RestoreRequest, RestoreResult } from "@retrace-cua/core/runtime/restore";
import { resolveDetectorOption, type DetectionPresetOptions } from "@retrace-cua/models/llm/detection-preset";
import {
  detectorField,
  fn,
  userLoggerSchema,
  parseKnobOptions,
  WRAPPER_KNOBS,
  withMethod,
  type DefaultedKnob,
  type RecoveryKnobs,
  type ResolvedKnobs,
} from "@retrace-cua/models/recovery-knobs";
import { envMeter, meteredEnvironment, type EnvMeter } from "./env-meter.ts";

/** Options of the SDK wrappers; how `recoverer` runs is {@link RecoverySubAgentOptions}. */
export interface SdkRecoveryOptions extends RecoveryKnobs, RecoverySubAgentOptions {
  /** The retrace environment the agent's computer acts on (the same one its `Computer` wraps). */
  env: Environment;
  /** Where the environment stores screenshots (handed to detector, selector, recoverer). */
  blobs: BlobReader;
  /**
   * Consulted once per agent step outside the freeze window: an ErrorDetector, or a detection preset
   * (`{ preset: "production", model: judge }`).
   */
  detector: ErrorDetector | DetectionPresetOptions;
  /** The recovery sub-agent; used (through `recoverWithPolicy`) when `restore` is not given. */
  recoverer?: RecoveryPolicy;
  /** A custom restore routine (replay, snapshot, ...) instead of `recoverer`. */
  restore?: (request: RestoreRequest) => Promise<RestoreResult>;
  /** The task; @default the run's input text, id "sdk-task" */
  task?: TaskSpec;
  /** Evaluate the environment's task after the run (needs a task loaded with `env.reset`). @default true */
  evaluate?: boolean;
  /** Aborts the run (SDK call, detector, recoverer). */
  signal?: AbortSignal;
  /**
   * When the verdict on step t is computed: "overlapped" = while the model produces step t+1,
   * retrace's computer holding that action until the verdict (dropped when step t was off track);
   * "sequential" = before the model call; "auto" = overlapped for a model-latency detector
   * (`latency: "model"`). Needs retrace's computer (`retraceComputer`, `retraceComputerTool`):
   * with a computer of your own, detection stays sequential. Decisions are the same either way
   * (docs/cost.md, "Latency on the SDK path"). @default "auto"
   */
  detection?: "auto" | "sequential" | "overlapped";
  /**
   * Your pino-compatible logger ({ debug, info, warn, error } taking (obj, msg)): retrace's records go there instead of
   * stderr.
   */
  logger?: UserLogger;
}

/** The runtime knobs the SDK wrappers take: the loop wrappers' and the recovery sub-agent's. */
const SDK_KNOBS = [
  ...WRAPPER_KNOBS,
  "recoveryBudget",
  "recoveryContext",
  "onAbstain",
  "onRecoveryRepeat",
  "detection",
] as const;

/** The SDK wrappers' own fields, layered on the runtime knobs by the one resolver. */
const SDK_EXTRAS = {
  env: withMethod("step"),
  blobs: withMethod("get"),
  detector: detectorField(),
  recoverer: withMethod("propose").optional(),
  summarizer: withMethod("summarize").optional(),
  verifier: withMethod("verify").optional(),
  restore: fn().optional(),
  task: z
    .object({ id: z.string().min(1), instruction: z.string() })
    .passthrough()
    .optional(),
  evaluate: z.boolean().default(true),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, { message: "must be an AbortSignal" }).optional(),
  logger: userLoggerSchema().optional(),
};

/**
 * Options with defaults resolved and the restore routine built; `env` is the caller's environment
 * with its step/observe/restore time metered into `meter` (see ./env-meter.ts).
 */
export type ResolvedSdkRecoveryOptions = Omit<
  SdkRecoveryOptions,
  DefaultedKnob | "evaluate" | "restore" | "detector" | "detection"
> & { detector: ErrorDetector } & ResolvedKnobs &
  Required<Pick<SdkRecoveryOptions, "evaluate" | "restore" | "detection">> & {
    meter: EnvMeter;
    routine: string;
    postRestoration: PostRestorationFn;
  };

/** Deprecated option names (old -> new), accepted with a warning until the next release. */
export const DEPRECATED_SDK_OPTIONS = { budget: "recoveryBudget" } as const;

/** Validate; a ConfigError names the first bad field (prefixed with the wrapper's name). */
export function resolveSdkOptions(where: string, given: SdkRecoveryOptions): ResolvedSdkRecoveryOptions {
  const options = renameDeprecatedKeys(where, given, DEPRECATED_SDK_OPTIONS);
  const parsed = parseKnobOptions(where, SDK_KNOBS, SDK_EXTRAS, options, () => {
    if (!options.restore && !options.recoverer)
      throw new ConfigError(
        `${where}: give option "recoverer" (the recovery sub-agent) or "restore" (a restore routine)`,
        { field: "recoverer" },
      );
  });
  const env = meteredEnvironment(options.env);
  const restore =
    options.restore ??
    recoverWithPolicy({
      recoverer: options.recoverer!,
      env,
      blobs: options.blobs,
      recoveryBudget: parsed.recoveryBudget,
      recoveryContext: parsed.recoveryContext,
      ...(options.summarizer && { summarizer: options.summarizer }),
      ...(options.verifier && { verifier: options.verifier }),
      onAbstain: parsed.onAbstain,
      onRecoveryRepeat: parsed.onRecoveryRepeat,
      settleMs: parsed.settleMs,
    });
  const routine = options.restore ? `${where} option "restore"` : "recoverWithPolicy";
  const detector = resolveDetectorOption(options.detector, `${where}: option detector`);
  return {
    ...parsed,
    detector,
    env,
    meter: envMeter(options.env),
    restore,
    routine,
    postRestoration,
  } as ResolvedSdkRecoveryOptions;
}
