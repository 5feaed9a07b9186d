/**
 * Runs and their results in PostgreSQL: one `retrace_runs` row per distributed run (its config,
 * so workers need nothing but the run id), one `retrace_results` row per episode key with a
 * UNIQUE (run_id, key) constraint, and the episode folder's files beside it. A result and its
 * files are stored in one transaction and only when no row for that key exists yet, so an episode
 * counts exactly once even when two workers race after a stall.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { withPgRetry, type PgHandle } from "./connect.ts";

/** A registered run. */
export interface RunRow {
  runId: string;
  experiment: string;
  /** The experiment config as JSON text. */
  config: string;
  seedBase: number;
  total: number;
  cancelled: boolean;
}

/** One stored episode result. */
export interface StoredResult {
  key: string;
  index: number;
  condition: string;
  status: string;
  /** The results.jsonl line (JSON text, no newline), byte for byte what a local run writes. */
  line: string;
  /** timings.jsonl entry (JSON text). */
  timing: string;
  worker: string;
}

/**
 * A file of an episode folder, relative to the run folder: its bytes, or the ref of an identical stored blob
 * (screenshot copies).
 */
export type EpisodeFile =
  { path: string; bytes: Buffer; ref?: undefined } | { path: string; ref: string; bytes?: undefined };

/** Results and runs in PostgreSQL. */
export class PgRunStore {
  constructor(readonly pg: PgHandle) {}

  private q<T extends object = Record<string, unknown>>(sql: string, params: unknown[] = []) {
    return withPgRetry(this.pg.where, () => this.pg.pool.query<T & import("pg").QueryResultRow>(sql, params));
  }

  /** Register a run (idempotent: an existing row is kept, its cancel flag cleared). */
  async registerRun(run: Omit<RunRow, "cancelled">): Promise<void> {
    await this.q(
      `INSERT INTO retrace_runs (run_id, experiment, config, seed_base, total) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id) DO UPDATE SET cancelled = false, total = EXCLUDED.total`,
      [run.runId, run.experiment, run.config, run.seedBase, run.total],
    );
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    const r = await this.q<{
      run_id: string;
      experiment: string;
      config: string;
      seed_base: number;
      total: number;
      cancelled: boolean;
    }>("SELECT * FROM retrace_runs WHERE run_id = $1", [runId]);
    const row = r.rows[0];
    return (
      row && {
        runId: row.run_id,
        experiment: row.experiment,
        config: row.config,
        seedBase: row.seed_base,
        total: row.total,
        cancelled: row.cancelled,
      }
    );
  }

  async setCancelled(runId: string): Promise<boolean> {
    const r = await this.q("UPDATE retrace_runs SET cancelled = true WHERE run_id = $1", [runId]);
    return (r.rowCount ?? 0) > 0;
  }

  /**
   * Store one result with its files, exactly once. Returns false (and stores nothing) when the
   * key already has a row.
   */
  async storeResult(runId: string, result: StoredResult, files: readonly EpisodeFile[]): Promise<boolean> {
    // One statement (atomic on its own, one round trip): the files go in only if the row did.
    // The pool given to PgRunStore must commit synchronously: this commit is the acknowledgement
    // (and, WAL being flushed in order, it makes the episode's earlier blobs and checkpoints durable).
    const r = await this.q<{ n: number }>(
      `WITH ins AS (
         INSERT INTO retrace_results (run_id, key, idx, condition, status, line, timing, worker) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (run_id, key) DO NOTHING RETURNING 1),
       f AS (
         INSERT INTO retrace_episode_files (run_id, key, path, bytes, ref)
         SELECT $1, $2, p, b, r FROM unnest($9::text[], $10::bytea[], $11::text[]) AS x(p, b, r) WHERE EXISTS (SELECT 1 FROM ins)
         ON CONFLICT DO NOTHING)
       SELECT count(*)::int AS n FROM ins`,
      [
        runId,
        result.key,
        result.index,
        result.condition,
        result.status,
        result.line,
        result.timing,
        result.worker,
        files.map((f) => f.path),
        files.map((f) => f.bytes ?? null),
        files.map((f) => f.ref ?? null),
      ],
    );
    return r.rows[0].n === 1;
  }

  /** Whether `key` of `runId` has a row. */
  async hasResult(runId: string, key: string): Promise<boolean> {
    const r = await this.q("SELECT 1 FROM retrace_results WHERE run_id = $1 AND key = $2", [runId, key]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Keys of `runId` that have a row (optionally only those with this status). */
  async storedKeys(runId: string, status?: string): Promise<Set<string>> {
    const r = await this.q<{ key: string }>(
      `SELECT key FROM retrace_results WHERE run_id = $1${status ? " AND status = $2" : ""}`,
      status ? [runId, status] : [runId],
    );
    return new Set(r.rows.map((x) => x.key));
  }

  /** Finished episodes per condition (and how many were environment errors). */
  async countsByCondition(runId: string): Promise<Map<string, { done: number; envErrors: number }>> {
    const r = await this.q<{ condition: string; status: string; n: string }>(
      "SELECT condition, status, count(*) AS n FROM retrace_results WHERE run_id = $1 GROUP BY condition, status",
      [runId],
    );
    const out = new Map<string, { done: number; envErrors: number }>();
    for (const row of r.rows) {
      const c = out.get(row.condition) ?? { done: 0, envErrors: 0 };
      c.done += Number(row.n);
      if (row.status !== "ok") c.envErrors += Number(row.n);
      out.set(row.condition, c);
    }
    return out;
  }

  /** Every result of a run in expansion order (by index). */
  async results(runId: string): Promise<StoredResult[]> {
    const r = await this.q<{
      key: string;
      idx: number;
      condition: string;
      status: string;
      line: string;
      timing: string;
      worker: string;
    }>("SELECT key, idx, condition, status, line, timing, worker FROM retrace_results WHERE run_id = $1 ORDER BY idx", [
      runId,
    ]);
    return r.rows.map((x) => ({
      key: x.key,
      index: x.idx,
      condition: x.condition,
      status: x.status,
      line: x.line,
      timing: x.timing,
      worker: x.worker,
    }));
  }

  /**
   * Store a run-level file that the workers of a later phase read (ideal recovery's frozen
   * plan.json). Written once: a plan is frozen, so a second write with other bytes is an error.
   */
  async putRunFile(runId: string, path: string, bytes: Buffer): Promise<void> {
    const r = await this.q<{ same: boolean }>(
      `WITH ins AS (INSERT INTO retrace_run_files (run_id, path, bytes) VALUES ($1, $2, $3) ON CONFLICT (run_id, path) DO NOTHING RETURNING true AS same)
       SELECT same FROM ins UNION ALL SELECT bytes = $3 AS same FROM retrace_run_files WHERE run_id = $1 AND path = $2 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [runId, path, bytes],
    );
    if (r.rows[0]?.same === false)
      throw new ConfigError(
        `run ${runId} already has a different ${path} in PostgreSQL: a frozen file cannot change (start a new run folder)`,
      );
  }

  /** The run-level files of a run (see {@link putRunFile}). */
  async runFiles(runId: string): Promise<Array<{ path: string; bytes: Buffer }>> {
    const r = await this.q<{ path: string; bytes: Buffer }>(
      "SELECT path, bytes FROM retrace_run_files WHERE run_id = $1 ORDER BY path",
      [runId],
    );
    return r.rows;
  }

  /** The stored files of one episode. */
  async files(runId: string, key: string): Promise<EpisodeFile[]> {
    const r = await this.q<{ path: string; bytes: Buffer | null; ref: string | null }>(
      "SELECT path, bytes, ref FROM retrace_episode_files WHERE run_id = $1 AND key = $2 ORDER BY path",
      [runId, key],
    );
    return r.rows.map((x) =>
      x.ref ? { path: x.path, ref: x.ref } : { path: x.path, bytes: x.bytes ?? Buffer.alloc(0) },
    );
  }

  /** Milliseconds between an episode's finish (`finishedAt`, epoch ms) and its row's commit time. */
  async storedAt(runId: string): Promise<Map<string, number>> {
    const r = await this.q<{ key: string; t: string }>(
      "SELECT key, (extract(epoch from stored_at) * 1000)::float8 AS t FROM retrace_results WHERE run_id = $1",
      [runId],
    );
    return new Map(r.rows.map((x) => [x.key, Number(x.t)]));
  }
}
