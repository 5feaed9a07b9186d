/**
 * PostgreSQL connections for the shared stores (blobs, results, checkpoints): one `pg.Pool` per
 * URL with an error listener (an idle connection dropped by a server restart must not crash the
 * worker), the schema, and a retry wrapper that rides out a restart or a short network cut.
 */
import type pg from "pg";
import { requireOptional } from "@retrace-cua/core/optional-import";
import { ConfigError, ServiceUnavailableError, describeError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import { redactText } from "@retrace-cua/core/secrets";
import { pgRetryMs } from "@retrace-cua/core/settings";

/** A PostgreSQL pool with the URL it came from (password redacted). */
export interface PgHandle {
  pool: pg.Pool;
  /** The URL without its password, for messages. */
  where: string;
  close(): Promise<void>;
}

/** Options of {@link connectPostgres}. */
export interface PgConnectOptions {
  /** Connections in the pool. @default 4 */
  max?: number;
  /** Create the retrace tables when missing. @default true */
  setup?: boolean;
  /** How long to keep retrying an unreachable server at setup. @default 10000 */
  connectBudgetMs?: number;
  /**
   * `synchronous_commit = off` on these connections: a commit returns before its WAL reaches the
   * disk. Safe for what a later synchronous commit covers (WAL is flushed in order): blobs and
   * checkpoints are followed by the episode's result row, which commits synchronously. A server
   * crash loses at most the last few checkpoints, and the episode resumes from an earlier one.
   * @default false
   */
  asyncCommit?: boolean;
}

/** Redact the password of a postgres:// URL. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Check a postgres:// URL; a ConfigError naming `field` otherwise. */
export function checkPostgresUrl(url: string, field: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(
      `${field}: "${redactText(url)}" is not a URL; expected postgres://USER[:PASSWORD]@HOST:PORT/DATABASE`,
      { field },
    );
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:")
    throw new ConfigError(`${field}: expected a postgres://USER@HOST:PORT/DATABASE URL, got ${u.protocol}//...`, {
      field,
    });
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS retrace_blobs (ref text PRIMARY KEY, bytes bytea NOT NULL, size integer NOT NULL);
CREATE TABLE IF NOT EXISTS retrace_blob_derived (fn text NOT NULL, key text NOT NULL, ref text NOT NULL, PRIMARY KEY (fn, key));
CREATE TABLE IF NOT EXISTS retrace_runs (
  run_id text PRIMARY KEY, experiment text NOT NULL, config text NOT NULL, seed_base integer NOT NULL,
  total integer NOT NULL, cancelled boolean NOT NULL DEFAULT false, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS retrace_results (
  run_id text NOT NULL, key text NOT NULL, idx integer NOT NULL, condition text NOT NULL, status text NOT NULL,
  line text NOT NULL, timing text NOT NULL, worker text NOT NULL, stored_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (run_id, key));
CREATE TABLE IF NOT EXISTS retrace_run_files (run_id text NOT NULL, path text NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (run_id, path));
CREATE TABLE IF NOT EXISTS retrace_episode_files (
  run_id text NOT NULL, key text NOT NULL, path text NOT NULL, bytes bytea, ref text, PRIMARY KEY (run_id, key, path));
`;

const setups = new Map<string, Promise<void>>();

/** Open a pool on `url`; creates the retrace tables once per process and URL. */
export async function connectPostgres(url: string, options: PgConnectOptions = {}): Promise<PgHandle> {
  checkPostgresUrl(url, "postgres URL");
  defaultPgRetryMs(); // a bad RETRACE_PG_RETRY_MS is a ConfigError now, before anything is written
  const where = redactUrl(url);
  const { Pool } = requireOptional<typeof pg>("pg", "PostgreSQL stores");
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 4,
    connectionTimeoutMillis: 10_000,
    ...(options.asyncCommit && { options: "-c synchronous_commit=off" }),
  });
  pool.on("error", (err) => logger.warn({ where, err: describeError(err) }, "idle PostgreSQL connection dropped"));
  // A checked-out client (e.g. LangGraph's PostgresSaver between the statements of a transaction)
  // has no pool listener: when the server restarts, its 'error' event would be unhandled and kill
  // the worker. With this listener the client's pending query fails instead and is retried.
  pool.on("connect", (client) =>
    client.on("error", (err) => logger.warn({ where, err: describeError(err) }, "PostgreSQL connection dropped")),
  );
  const handle: PgHandle = { pool, where, close: () => pool.end() };
  if (options.setup !== false) {
    let done = setups.get(url);
    if (!done) {
      // Concurrent CREATE TABLE IF NOT EXISTS can race on the catalog: serialise with an advisory lock.
      done = withPgRetry(
        where,
        async () => {
          const c = await pool.connect();
          try {
            await c.query("SELECT pg_advisory_lock(7301013)");
            await c.query(SCHEMA);
          } finally {
            await c.query("SELECT pg_advisory_unlock(7301013)").catch(() => {});
            c.release();
          }
        },
        options.connectBudgetMs ?? 10_000,
      );
      setups.set(url, done);
      done.catch(() => setups.delete(url));
    }
    try {
      await done;
    } catch (err) {
      await pool.end().catch(() => {});
      throw new ConfigError(
        `cannot reach PostgreSQL at ${where}: ${describeError(pgCause(err))} (start it, or pass another URL)`,
        { cause: err },
      );
    }
  }
  return handle;
}

const TRANSIENT = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
  "53300",
]);

/** Whether an error is a lost or refused connection (worth retrying) rather than a bad query. */
export function isTransientPgError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && TRANSIENT.has(e.code)) return true;
  // "not queryable": a statement (e.g. a ROLLBACK after the lost one) on a client whose connection died.
  return /Connection terminated|connection timeout|terminating connection|the database system is (starting up|shutting down|in recovery mode)|not queryable/i.test(
    e.message ?? "",
  );
}

/** How long a PostgreSQL operation retries lost connections by default (RETRACE_PG_RETRY_MS, else 60 s). */
export function defaultPgRetryMs(): number {
  return pgRetryMs();
}

/**
 * Run `fn`, retrying lost or refused connections (a server restart, a failover, a network cut) with
 * backoff (100 ms doubling up to 2 s) for up to `budgetMs` (default {@link defaultPgRetryMs}). `fn`
 * must be safe to run again: every retrace statement is an upsert or a read, and a transaction
 * cut off before its COMMIT answered is rolled back or committed whole. Any other error is thrown
 * at once; a connection still lost after the budget ends in a {@link ServiceUnavailableError}
 * (its `cause` is the last error).
 */
export async function withPgRetry<T>(where: string, fn: () => Promise<T>, budgetMs?: number): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await fn();
      // An outage that was ridden out is worth one line; the retries themselves are info.
      if (attempt > 0)
        logger.warn(
          { where, attempts: attempt + 1, ms: Date.now() - start },
          "PostgreSQL connection lost, then re-established",
        );
      return result;
    } catch (err) {
      if (!isTransientPgError(err)) throw err;
      const budget = budgetMs ?? defaultPgRetryMs();
      const waited = Date.now() - start;
      if (waited >= budget) {
        throw new ServiceUnavailableError(
          `PostgreSQL at ${where} stayed unreachable for ${Math.round(waited / 1000)} s (${describeError(err)}); start it, or give it longer with RETRACE_PG_RETRY_MS (now ${budget} ms)`,
          { cause: err },
        );
      }
      const wait = Math.min(2_000, 100 * 2 ** attempt, Math.max(0, budget - waited));
      logger.info({ where, attempt, err: describeError(err) }, "PostgreSQL unreachable, retrying");
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** The error behind a {@link withPgRetry} failure (the connection error, not the budget's wrapper), for messages. */
export function pgCause(err: unknown): unknown {
  return err instanceof ServiceUnavailableError ? err.cause : err;
}
