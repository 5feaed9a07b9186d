/**
 * Options of {@link recoveryMiddleware}, validated with zod at the boundary. Numeric knobs use the
 * runtime's names and defaults (src/episode.ts): freezeWindow 5, maxRecoveryIterations 3,
 * recoveryStep "error-minus-1", minConfidence 0 (the paper's: no confidence gate), transition "short", seed 0.
 */
import { z } from "zod";
import type { BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { Action } from "../../src/action.ts";
import type { BlobReader } from "../../src/blob-store.ts";
import type { Detection, ErrorDetector } from "../../src/detector.ts";
import type { Observation } from "../../src/observation.ts";
import type { HistoryEntry } from "../../src/policy.ts";
import { RECOVERY_STEP_STRATEGIES, type Selection } from "../../src/selector.ts";
import type { TaskSpec } from "../../src/task.ts";
import type { ModelUsage } from "../../src/usage.ts";
import { ConfigError } from "../../src/errors.ts";
import { TRANSITION_STRINGS } from "../../src/episode.ts";
import type { RecoveryKnobs } from "../recovery-knobs.ts";

/** What the restore routine is asked to do: bring the environment back to the state before step R. */
export interface RestoreRequest {
  /** R: restore s_R (the state the agent saw before taking step R). */
  step: number;
  /** E: the step the detector blamed. */
  errorStep: number;
  /** The target observation o_R as recorded. */
  target: { step: number; observation: Observation };
  /** The full forward history 0..t-1 before truncation. */
  history: readonly HistoryEntry[];
  detection: Detection;
  selection: Selection;
  /** Recovery attempt number, 1-based. */
  attempt: number;
  task: TaskSpec;
  signal?: AbortSignal;
}

/** What the restore routine reports. */
export interface RestoreResult {
  /** Whether it believes the target was reached (the agent's history is truncated either way). */
  restored: boolean;
  /** Steps it executed (recovery actions, replayed actions), for accounting. @default 0 */
  steps?: number;
  /** The observation after restoring; when absent, `observe()` is called. */
  observation?: Observation;
  detail?: string;
  /** Model calls the routine made (recoverer, summarizer, verifier), for accounting. */
  usage?: ModelUsage[];
  /** `id@version` of the prompts the routine used. */
  prompts?: string[];
}

/** Options of {@link recoveryMiddleware}. */
export interface RecoveryMiddlewareOptions extends RecoveryKnobs {
  /** Queried once per agent step (after the step's tool results), outside the freeze window. */
  detector: ErrorDetector;
  /** The current observation of the environment the tools act on (called once per step and after a restore). */
  observe: () => Promise<Observation>;
  /** Brings the environment back to step R: replay, snapshot, or a recovery sub-agent (see `recoverWithPolicy`). */
  restore: (request: RestoreRequest) => Promise<RestoreResult>;
  /** Where screenshots are read from (handed to the detector and selector). */
  blobs: BlobReader;
  /** The task; @default the text of the first human message, id "langchain-task" */
  task?: TaskSpec;
  /** Maps one tool call to the actions it performs, for the detector's history. @default the Action(s) in `args.action`/`args.actions`, else `{ type: NAME, ...args }` when valid, else none */
  toActions?: (toolCall: ToolCall) => Action[];
  /** Builds the message placed after the truncated history. @default a HumanMessage with the post-restoration transition prompt */
  transitionMessage?: (info: { text: string; step: number; observation: Observation }) => BaseMessage | Promise<BaseMessage>;
}

const fn = (name: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: `must be a function (${name})` });
const withMethod = (method: string) =>
  z.custom<object>((v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function", {
    message: `must be an object with ${method}()`,
  });

/** zod schema of the options. */
export const RecoveryMiddlewareOptionsSchema = z
  .object({
    detector: withMethod("detect"),
    observe: fn("() => Promise<Observation>"),
    restore: fn("(request) => Promise<RestoreResult>"),
    blobs: withMethod("get"),
    task: z.object({ id: z.string(), instruction: z.string() }).optional(),
    toActions: fn("(toolCall) => Action[]").optional(),
    selector: withMethod("select").optional(),
    transitionMessage: fn("(info) => BaseMessage").optional(),
    freezeWindow: z.number().int().min(0).default(5),
    maxRecoveryIterations: z.number().int().min(0).default(3),
    recoveryStep: z.enum(RECOVERY_STEP_STRATEGIES).default("error-minus-1"),
    minConfidence: z.number().min(0).max(1).default(0),
    transition: z.enum(TRANSITION_STRINGS).default("short"),
    seed: z.number().int().default(0),
    restoration: z.enum(["model", "replay", "snapshot"]).default("model"),
    detectorTimeoutMs: z.number().int().min(0).default(120_000),
    events: withMethod("emit").optional(),
    instanceKey: z.string().min(1).optional(),
  })
  .strict();

/** Options with defaults resolved. */
type Defaulted = "freezeWindow" | "maxRecoveryIterations" | "recoveryStep" | "minConfidence" | "transition" | "seed" | "restoration" | "detectorTimeoutMs";
export type ResolvedRecoveryMiddlewareOptions = Omit<RecoveryMiddlewareOptions, Defaulted> & Required<Pick<RecoveryMiddlewareOptions, Defaulted>>;

/** Validate; a ConfigError names the first bad field. */
export function resolveOptions(options: RecoveryMiddlewareOptions): ResolvedRecoveryMiddlewareOptions {
  const r = RecoveryMiddlewareOptionsSchema.safeParse(options ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.join(".") || "options";
    throw new ConfigError(`recoveryMiddleware: option "${field}" ${issue.message}`, { field });
  }
  if (r.data.recoveryStep === "llm" && !options.selector) {
    throw new ConfigError('recoveryMiddleware: option "selector" is required when recoveryStep is "llm"', { field: "selector" });
  }
  // zod validated the shapes; keep the caller's function and object identities.
  return { ...options, ...r.data } as ResolvedRecoveryMiddlewareOptions;
}
