/**
 * Every error retrace throws. Errors mean the runtime (or its configuration) failed;
 * agent mistakes are data (a `Detection`), never exceptions.
 */

/**
 * The stable `code` of every error class (docs/reliability.md#error-codes lists them): match on
 * `err.code`, not on the message or the class name, which may change.
 */
export type RetraceErrorCode =
  | "CONFIG"
  | "ADAPTER"
  | "MODEL_BEHAVIOR"
  | "ACTION_FORMAT"
  | "ENVIRONMENT"
  | "REPLAY_DESYNC"
  | "SERVICE_UNAVAILABLE"
  | "DETECTOR_UNAVAILABLE"
  | "STEP_TIMEOUT"
  | "DATA"
  | "RUN_FAILED"
  | "INTERNAL"
  | "HTTP_REFUSAL"
  | "SIGNAL";

/** Base class: sets `name` from the concrete class, keeps `cause`, and carries a stable `code`. */
export abstract class RetraceError extends Error {
  /** Stable, machine-readable category of the error (one per class; see {@link RetraceErrorCode}). */
  abstract readonly code: RetraceErrorCode;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The user's input or configuration is wrong. The message says what to fix. */
export class ConfigError extends RetraceError {
  readonly code: RetraceErrorCode = "CONFIG";
  /** Dotted path of the offending field, when there is one (e.g. `recovery.budget`). */
  readonly field?: string;
  constructor(message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options);
    this.field = options?.field;
  }
}

/** A model/vendor adapter failed (HTTP error, unusable response). `retryable` says whether trying again may help. */
export class AdapterError extends RetraceError {
  readonly code: RetraceErrorCode = "ADAPTER";
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.retryable = options?.retryable ?? false;
  }
}

/**
 * A model said something that cannot be used (unparseable or unsafe output). Recorded as a failed step, not a crash.
 */
export class ModelBehaviorError extends RetraceError {
  readonly code: RetraceErrorCode = "MODEL_BEHAVIOR";
  /** The raw text the model produced, for the record. */
  readonly output?: string;
  constructor(message: string, options?: { cause?: unknown; output?: string }) {
    super(message, options);
    this.output = options?.output;
  }
}

/** The environment (desktop, container, VM) crashed, timed out or returned something broken. */
export class EnvironmentError extends RetraceError {
  readonly code: RetraceErrorCode = "ENVIRONMENT";
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.retryable = options?.retryable ?? true;
  }
}

/**
 * An action replay never reproduced the saved state within its attempts (paper App. B.1: replay
 * is retried up to three times, then the instance is excluded). Not retryable: the attempts are
 * spent; `desyncs` is how many replays failed their check.
 */
export class ReplayDesyncError extends EnvironmentError {
  override readonly code: RetraceErrorCode = "REPLAY_DESYNC";
  readonly desyncs: number;
  constructor(message: string, options: { desyncs: number; cause?: unknown }) {
    super(message, { cause: options.cause, retryable: false });
    this.desyncs = options.desyncs;
  }
}

/**
 * A service the run stores into (PostgreSQL) stayed unreachable past its retry budget. Lost
 * connections are retried until then; the message names the service, the budget and how to raise it.
 */
export class ServiceUnavailableError extends RetraceError {
  readonly code: RetraceErrorCode = "SERVICE_UNAVAILABLE";
}

/**
 * The error detector (the judge) failed or timed out `degradedAfter` times in a row and the run
 * asked to stop then (`onDetectorFailure: "fail"`). The message names the judge's endpoint.
 */
export class DetectorUnavailableError extends ServiceUnavailableError {
  override readonly code: RetraceErrorCode = "DETECTOR_UNAVAILABLE";
  /** The judge's endpoint (base URL and model), or the detector's name when it declares none. */
  readonly endpoint: string;
  /** Failed calls in a row when the run stopped. */
  readonly failures: number;
  constructor(message: string, options: { cause?: unknown; endpoint: string; failures: number }) {
    super(message, options);
    this.endpoint = options.endpoint;
    this.failures = options.failures;
  }
}

/** An operation exceeded its time limit. */
export class StepTimeoutError extends RetraceError {
  readonly code: RetraceErrorCode = "STEP_TIMEOUT";
  readonly timeoutMs: number;
  constructor(message: string, options: { cause?: unknown; timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * Stored or received data is corrupt or does not match what refers to it (a blob whose bytes hash
 * differently, a run or sample a record names that is not there). Not retryable: the data must be
 * rebuilt; the message says which.
 */
export class DataError extends RetraceError {
  readonly code: RetraceErrorCode = "DATA";
}

/** The run finished but its results are meaningless (e.g. every model call failed); the CLI exits 1. */
export class RunFailedError extends RetraceError {
  readonly code: RetraceErrorCode = "RUN_FAILED";
}

/** retrace broke one of its own invariants: a bug in retrace, not in the caller's input. Please report it. */
export class InternalError extends RetraceError {
  readonly code: RetraceErrorCode = "INTERNAL";
}

/**
 * Not a failure: thrown inside retrace to stop a piece of work early (a worker's phase or episode
 * is done) and always caught by retrace itself. Never reaches a caller.
 */
export abstract class ControlSignal extends RetraceError {
  readonly code: RetraceErrorCode = "SIGNAL";
}

/** One-line description of any thrown value, for logs and records. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.split("\n")[0];
  return String(err).split("\n")[0];
}
