/**
 * The one module that reads `process.env`. Everything else receives settings explicitly.
 * Secrets read here are never logged: callers pass them straight to SDK clients.
 */
import { ConfigError } from "./errors.ts";
import { parseIntFlag } from "./numeric-flags.ts";
import { registerSecret } from "./secrets.ts";

export interface RuntimeSettings {
  /** RETRACE_LOG_LEVEL. @default "warn" */
  logLevel: string;
  /** OPENAI_API_KEY / RETRACE_API_KEY, for OpenAI-compatible endpoints. */
  apiKey?: string;
  /** OPENAI_BASE_URL / RETRACE_BASE_URL. */
  baseUrl?: string;
  /** ANTHROPIC_API_KEY. */
  anthropicApiKey?: string;
  /** DOCKER_HOST, for container desktops. */
  dockerHost?: string;
  /** RETRACE_QUEUE_URL: redis:// URL of the episode queue (`--queue`). */
  queueUrl?: string;
  /** RETRACE_STORE_URL: postgres:// URL of shared results, blobs and checkpoints (`--store`). */
  storeUrl?: string;
  /**
   * RETRACE_SHARP_CONCURRENCY: libvips threads per process for sharp (SimDesk rendering). Set to 1
   * in each of N worker processes on a small machine, where N multi-threaded libvips pools only
   * contend for the cores. @default libvips' own (one per core)
   */
  sharpConcurrency?: number;
  /** CI=true. */
  ci: boolean;
}

/** One named variable, e.g. the key behind `--api-key-env VAR`. Secrets read here are never logged. */
export function envVar(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[name];
  if (/KEY|TOKEN|SECRET/i.test(name)) registerSecret(value);
  return value;
}

/**
 * RETRACE_LOG_LEVEL, read apart from {@link runtimeSettings}: the logger reads it when it loads, where
 * a bad value of another variable must not crash with a stack trace (the CLI checks them all in one line).
 */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  return env.RETRACE_LOG_LEVEL ?? "warn";
}

/**
 * Read the settings from the process environment (call at the edges, pass values inward); a bad value is a one-line
 * ConfigError.
 */
export function runtimeSettings(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  // Keys read here are redacted from everything retrace writes (packages/core/src/secrets.ts).
  for (const k of [env.RETRACE_API_KEY, env.OPENAI_API_KEY, env.ANTHROPIC_API_KEY]) registerSecret(k);
  return {
    logLevel: logLevel(env),
    apiKey: env.RETRACE_API_KEY ?? env.OPENAI_API_KEY,
    baseUrl: env.RETRACE_BASE_URL ?? env.OPENAI_BASE_URL,
    anthropicApiKey: env.ANTHROPIC_API_KEY,
    dockerHost: env.DOCKER_HOST,
    queueUrl: env.RETRACE_QUEUE_URL,
    storeUrl: env.RETRACE_STORE_URL,
    ...(env.RETRACE_SHARP_CONCURRENCY
      ? {
          sharpConcurrency: parseIntFlag("RETRACE_SHARP_CONCURRENCY", env.RETRACE_SHARP_CONCURRENCY, {
            min: 1,
            max: 1024,
            expect: "expected a whole number of threads from 1 to 1024",
          }),
        }
      : {}),
    ci: env.CI === "true" || env.CI === "1",
  };
}

/**
 * RETRACE_PG_RETRY_MS: how long one PostgreSQL read or write (checkpoints, results, blobs) keeps
 * retrying a lost or refused connection (a server restart, a failover) before the run fails with
 * one line; 0 turns retries off. Read apart from {@link runtimeSettings}, where PostgreSQL is first
 * used, so a library caller without PostgreSQL never trips on it; parsed like every numeric flag.
 * @default 60000
 */
export function pgRetryMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.RETRACE_PG_RETRY_MS;
  if (value === undefined) return 60_000;
  return parseIntFlag("RETRACE_PG_RETRY_MS", value, {
    min: 0,
    max: 86_400_000,
    expect: "expected a whole number of milliseconds from 0 to 86400000 (one day)",
  });
}
