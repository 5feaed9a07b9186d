/**
 * The library's logger: one JSON line per record on stderr, pino's shape
 * (`{"level":40,"time":...,"name":"retrace","msg":"...",...fields}`), so log tooling that reads
 * pino reads it. A dozen lines instead of pino's twelve packages: the middleware logs only
 * warnings. Library code logs here; only the CLI writes to the terminal.
 */
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
    if (LEVELS[lvl] < threshold) return;
    let line: string;
    try {
      line = JSON.stringify({ level: LEVELS[lvl], time: Date.now(), name, ...fields, ...(msg !== undefined && { msg }) });
    } catch {
      line = JSON.stringify({ level: LEVELS[lvl], time: Date.now(), name, msg, unserializable: true });
    }
    process.stderr.write(`${line}\n`);
  };
  return { level, trace: write("trace"), debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), fatal: write("fatal") };
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
