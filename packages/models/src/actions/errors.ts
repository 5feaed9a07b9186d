/**
 * The error every action-format converter throws on model output it cannot use. It is a
 * {@link ModelBehaviorError} (the model's fault, recorded as a failed step) that also says which
 * kind of failure it is, so policies can turn it into a `PolicyFailure` without guessing.
 */
import { ModelBehaviorError, type RetraceErrorCode } from "@retrace-cua/core/errors";
import type { PolicyFailure } from "@retrace-cua/core/policy";

/** Which kinds of unusable output a converter reports. */
export type ActionFormatFailureKind = "unparseable" | "unsafe" | "empty";

/** Model output that does not convert to actions. `kind` maps onto `PolicyFailure.kind`. */
export class ActionFormatError extends ModelBehaviorError {
  override readonly code: RetraceErrorCode = "ACTION_FORMAT";
  readonly kind: ActionFormatFailureKind;
  constructor(message: string, options: { kind: ActionFormatFailureKind; output?: string; cause?: unknown }) {
    super(message, options);
    this.kind = options.kind;
  }
}

/** Shorthands used by the converters. */
export const unparseable = (message: string, output?: string) =>
  new ActionFormatError(message, { kind: "unparseable", output });
export const unsafe = (message: string, output?: string) => new ActionFormatError(message, { kind: "unsafe", output });
export const empty = (message: string, output?: string) => new ActionFormatError(message, { kind: "empty", output });

/** Turn a converter error into the failure a policy records (other errors are rethrown: they are runtime bugs). */
export function toPolicyFailure(err: unknown): PolicyFailure {
  if (err instanceof ActionFormatError) return { kind: err.kind, message: err.message };
  if (err instanceof ModelBehaviorError) return { kind: "unparseable", message: err.message };
  throw err;
}
