/**
 * Options of {@link recoveryMiddleware}, validated at the boundary by the runtime's one resolver
 * (resolveRecoveryOptions via packages/models/src/recovery-knobs.ts). Knobs use the runtime's names, bounds,
 * defaults and messages (packages/core/src/episode.ts): freezeWindow 5, maxRecoveryIterations 3,
 * recoveryStep "error-minus-1", minConfidence 0 (the paper's: no confidence gate), transition "short", seed 0.
 */
import { z } from "zod";
import type { BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { Action } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Detection, ErrorDetector } from "@retrace-cua/core/detector";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { Selection } from "@retrace-cua/core/selector";
import type { TaskSpec } from "@retrace-cua/core/task";
import type { UserLogger } from "@retrace-cua/core/logger";
import type { RestoreRequest, RestoreResult } from "@retrace-cua/core/runtime/restore";
import type { RestorationConfirmation } from "@retrace-cua/core/runtime/confirm";
import type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
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

export type { RestoreRequest, RestoreResult } from "@retrace-cua/core/runtime/restore";

/** Options of {@link recoveryMiddleware}. */
export interface RecoveryMiddlewareOptions extends RecoveryKnobs {
  /**
   * Queried once per agent step (after the step's tool results), outside the freeze window: an
   * ErrorDetector, or a detection preset (`{ preset: "production", model: judge }`,
   * packages/models/src/llm/detection-preset.ts).
   */
  detector: ErrorDetector | DetectionPresetOptions;
  /** The current observation of the environment the tools act on (called once per step and after a restore). */
  observe: () => Promise<Observation>;
  /** Brings the environment back to step R: replay, snapshot, or a recovery sub-agent (see `recoverWithPolicy`). */
  restore: (request: RestoreRequest) => Promise<RestoreResult>;
  /** Where screenshots are read from (handed to the detector and selector). */
  blobs: BlobReader;
  /** The task; @default the text of the first human message, id "langchain-task" */
  task?: TaskSpec;
  /**
   * Maps one tool call to the actions it performs, for the detector's history. @default the Action(s) in
   * `args.action`/`args.actions`, else `{ type: NAME, ...args }` when valid, else none
   */
  toActions?: (toolCall: ToolCall) => Action[];
  /** Called once per recovery with what the `retrace.recovery` callback event carries. */
  onRecovery?: (report: RecoveryReport) => void | Promise<void>;
  /**
   * Builds the message placed after the truncated history. @default a HumanMessage with the post-restoration transition
   * prompt
   */
  /**
   * Your pino-compatible logger ({ debug, info, warn, error } taking (obj, msg)): retrace's records go there instead of
   * stderr.
   */
  logger?: UserLogger;
  transitionMessage?: (info: {
    text: string;
    step: number;
    observation: Observation;
    restored: boolean;
    confirmation: RestorationConfirmation;
  }) => BaseMessage | Promise<BaseMessage>;
}

/** zod shape of the middleware's own options, layered on the runtime knobs (WRAPPER_KNOBS) by the one resolver. */
export const RecoveryMiddlewareOptionsShape = {
  detector: detectorField(),
  observe: fn("() => Promise<Observation>"),
  restore: fn("(request) => Promise<RestoreResult>"),
  blobs: withMethod("get"),
  task: z.object({ id: z.string(), instruction: z.string() }).optional(),
  toActions: fn("(toolCall) => Action[]").optional(),
  transitionMessage: fn("(info) => BaseMessage").optional(),
  onRecovery: fn("(report) => void").optional(),
  logger: userLoggerSchema().optional(),
};

/** Options with defaults resolved. */
export type ResolvedRecoveryMiddlewareOptions = Omit<RecoveryMiddlewareOptions, DefaultedKnob | "detector"> &
  ResolvedKnobs & { detector: ErrorDetector };

/** Validate; a ConfigError names the first bad field. */
export function resolveOptions(options: RecoveryMiddlewareOptions): ResolvedRecoveryMiddlewareOptions {
  const parsed = parseKnobOptions("recoveryMiddleware", WRAPPER_KNOBS, RecoveryMiddlewareOptionsShape, options);
  return {
    ...parsed,
    detector: resolveDetectorOption(options.detector, "recoveryMiddleware: option detector"),
  } as ResolvedRecoveryMiddlewareOptions;
}
