/**
 * Every error retrace throws. Errors mean the runtime (or its configuration) failed;
 * agent mistakes are data (a `Detection`), never exceptions.
 */

/** Base class: sets `name` from the concrete class and keeps `cause`. */
export abstract class RetraceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The user's input or configuration is wrong. The message says what to fix. */
export class ConfigError extends RetraceError {
  /** Dotted path of the offending field, when there is one (e.g. `recovery.budget`). */
  readonly field?: string;
  constructor(message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options);
    this.field = options?.field;
  }
}

/** A model/vendor adapter failed (HTTP error, unusable response). `retryable` says whether trying again may help. */
export class AdapterError extends RetraceError {
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.retryable = options?.retryable ?? false;
  }
}

/** A model said something that cannot be used (unparseable or unsafe output). Recorded as a failed step, not a crash. */
export class ModelBehaviorError extends RetraceError {
  /** The raw text the model produced, for the record. */
  readonly output?: string;
  constructor(message: string, options?: { cause?: unknown; output?: string }) {
    super(message, options);
    this.output = options?.output;
  }
}

/** The environment (desktop, container, VM) crashed, timed out or returned something broken. */
export class EnvironmentError extends RetraceError {
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
  readonly desyncs: number;
  constructor(message: string, options: { desyncs: number; cause?: unknown }) {
    super(message, { cause: options.cause, retryable: false });
    this.desyncs = options.desyncs;
  }
}

/** A hard budget (steps, tokens, recovery attempts) was exceeded where the caller asked for an error. */
export class BudgetExhaustedError extends RetraceError {}

/**
 * A service the run stores into (PostgreSQL) stayed unreachable past its retry budget. Lost
 * connections are retried until then; the message names the service, the budget and how to raise it.
 */
export class ServiceUnavailableError extends RetraceError {}

/** An operation exceeded its time limit. */
export class StepTimeoutError extends RetraceError {
  readonly timeoutMs: number;
  constructor(message: string, options: { cause?: unknown; timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/** One-line description of any thrown value, for logs and records. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.split("\n")[0];
  return String(err).split("\n")[0];
}
