/** The library's logger (pino). Library code logs here; only the CLI writes to the terminal. */
import { pino, destination, type Logger } from "pino";
import { runtimeSettings } from "./settings.ts";

/** Root logger; level from RETRACE_LOG_LEVEL (default "warn"), written to stderr. */
export const logger: Logger = pino({ name: "retrace", level: runtimeSettings().logLevel }, destination(2));

export type { Logger };
