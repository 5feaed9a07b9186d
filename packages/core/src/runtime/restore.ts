/**
 * The restore routine of the vendor-neutral loop (the LangChain middleware and the SDK wrappers):
 * what it is asked (a {@link RestoreRequest}), what it answers (a {@link RestoreResult}), and the
 * typed check of that answer. A user's routine is user code: its result is checked at the attempt
 * function (./attempt.ts), and a malformed one (null, `restored: "false"`, negative steps, ...) is a
 * ConfigError-class failure of that recovery attempt, recorded as `refused` with a one-line reason
 * naming the routine; the run continues (like a restore routine that throws).
 */
import { z } from "zod";
import type { Detection } from "../detector.ts";
import type { Observation } from "../observation.ts";
import type { HistoryEntry } from "../policy.ts";
import type { Selection } from "../selector.ts";
import type { TaskSpec } from "../task.ts";
import type { ModelUsage } from "../usage.ts";
import { RESTORATION_CONFIRMATIONS, type RestorationConfirmation } from "./confirm.ts";
import { checkUserResult } from "./user-results.ts";

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
  /**
   * Whether it believes the target was reached (a boolean; the agent's history is cut or kept by option
   * `unconfirmedRestoration`).
   */
  restored: boolean;
  /**
   * How it was confirmed (packages/core/src/runtime/confirm.ts). @default "claimed" when `restored`, else
   * "refused" (a routine that says it restored, with nothing checking it, claims).
   */
  confirmation?: RestorationConfirmation;
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

/** A restore routine. */
export type RestoreRoutine = (request: RestoreRequest) => Promise<RestoreResult>;

const ResultSchema = z
  .object({
    restored: z.boolean({ message: "must be a boolean (true or false, not a string)" }),
    confirmation: z.enum(RESTORATION_CONFIRMATIONS).optional(),
    steps: z.number().int().min(0).optional(),
    observation: z
      .object({ screenshot: z.string().min(1) })
      .passthrough()
      .optional(),
    detail: z.string().optional(),
    usage: z.array(z.object({}).passthrough()).optional(),
    prompts: z.array(z.string()).optional(),
  })
  .passthrough();

/** A checked restore result: its confirmation resolved (and consistent with `restored`). */
export type CheckedRestoreResult = RestoreResult & { confirmation: RestorationConfirmation; steps: number };

/**
 * Check what a restore routine returned. Returns the result with `confirmation` and `steps`
 * resolved, or a one-line reason (naming `routine`) why it is malformed.
 */
export function checkRestoreResult(
  raw: unknown,
  routine: string,
): { ok: true; result: CheckedRestoreResult } | { ok: false; reason: string } {
  const checked = checkUserResult(
    `restore() (${routine})`,
    raw,
    ResultSchema,
    "{ restored: boolean, confirmation?, steps?, observation?, detail? }",
  );
  if (!checked.ok) return checked;
  const where = `restore() (${routine}) returned`;
  const r = raw as RestoreResult;
  const confirmation = r.confirmation ?? (r.restored ? "claimed" : "refused");
  if ((confirmation !== "refused") !== r.restored)
    return {
      ok: false,
      reason: `${where} restored: ${r.restored} with confirmation "${confirmation}"; restored must be (confirmation !== "refused")`,
    };
  return { ok: true, result: { ...r, confirmation, steps: r.steps ?? 0 } };
}
