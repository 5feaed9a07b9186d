/**
 * The library's logger: one JSON line per record on stderr, pino's shape
 * (`{"level":40,"time":...,"name":"retrace","msg":"...",...fields}`), so log tooling that reads
 * pino reads it. A dozen lines instead of pino's twelve packages: the middleware logs only
 * warnings. Library code logs here; only the CLI writes to the terminal.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { ConfigError } from "./errors.ts";
import { logLevel } from "./settings.ts";

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
type LevelName = Exclude<keyof typeof LEVELS, "silent">;

/** What library code calls: `logger.warn({ task, step }, "what happened")`. */
export interface Logger {
  /** The threshold, as RETRACE_LOG_LEVEL names it. */
  readonly level: string;
  trace(fields: object, msg?: string): void;
  debug(fields: object, msg?: string): void;
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
  error(fields: object, msg?: string): void;
  fatal(fields: object, msg?: string): void;
}

function createLogger(name: string, level: string): Logger {
  const threshold = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.warn;
  const write = (lvl: LevelName) => (fields: object, msg?: string) => {
    const user = scopedLogger.getStore();
    if (user) {
      deliver(user, lvl, { name, ...fields }, msg); // the user's logger applies its own level
      return;
    }
    if (LEVELS[lvl] < threshold) return;
    let line: string;
    try {
      line = JSON.stringify({
        level: LEVELS[lvl],
        time: Date.now(),
        name,
        ...fields,
        ...(msg !== undefined && { msg }),
      });
    } catch {
      line = JSON.stringify({ level: LEVELS[lvl], time: Date.now(), name, msg, unserializable: true });
    }
    process.stderr.write(`${line}\n`);
  };
  return {
    level,
    trace: write("trace"),
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    fatal: write("fatal"),
  };
}

/**
 * A logger of the caller's own, pino-compatible: `{ debug, info, warn, error }`, each taking
 * `(obj, msg)` (pino, bunyan-style and winston child loggers fit). Given as the `logger` option of
 * `withRecovery`, the SDK integrations and the LangChain middleware, it receives every record that
 * path writes instead of stderr (trace goes to debug, fatal to error).
 */
export interface UserLogger {
  debug(obj: object, msg?: string): unknown;
  info(obj: object, msg?: string): unknown;
  warn(obj: object, msg?: string): unknown;
  error(obj: object, msg?: string): unknown;
}

const scopedLogger = new AsyncLocalStorage<UserLogger>();

function deliver(user: UserLogger, lvl: LevelName, fields: object, msg: string | undefined): void {
  const method = lvl === "trace" ? "debug" : lvl === "fatal" ? "error" : lvl;
  try {
    user[method](fields, msg);
  } catch {
    // a throwing user logger never ends a run
  }
}

/** Check a `logger` option: undefined, or an object with debug/info/warn/error functions. */
export function checkUserLogger(where: string, value: unknown): UserLogger | undefined {
  if (value === undefined) return undefined;
  const missing = ["debug", "info", "warn", "error"].filter(
    (m) => typeof (value as Record<string, unknown> | null)?.[m] !== "function",
  );
  if (value === null || typeof value !== "object" || missing.length)
    throw new ConfigError(
      `${where}: option "logger" must be a pino-compatible logger { debug, info, warn, error } taking (obj, msg)${value && typeof value === "object" ? ` (missing ${missing.join(", ")})` : ""}`,
      { field: "logger" },
    );
  return value as UserLogger;
}

/** Run `fn` with retrace's records going to `user` (when given) instead of stderr, through every await inside it. */
export function withLogger<T>(user: UserLogger | undefined, fn: () => T): T {
  return user ? scopedLogger.run(user, fn) : fn();
}

/** Root logger; level from RETRACE_LOG_LEVEL (default "warn"), written to stderr. */
export const logger: Logger = createLogger("retrace", logLevel());

/**
 * One plain, human-readable warning line on stderr (`retrace: warning: ...`), for the rare event
 * an operator must see (recovery degraded) rather than parse: not JSON, not repeated per step.
 * Silenced only by RETRACE_LOG_LEVEL above warn.
 */
export function plainWarning(text: string): void {
  const threshold = LEVELS[logger.level as keyof typeof LEVELS] ?? LEVELS.warn;
  if (LEVELS.warn < threshold) return;
  process.stderr.write(`retrace: warning: ${text.replace(/\s*\n\s*/g, " ")}\n`);
}
