/**
 * LangGraph's PostgreSQL checkpointer (`@langchain/langgraph-checkpoint-postgres`) on a pool with
 * an error listener, set up once. With it an episode's thread survives its worker: another
 * worker (on another machine) resumes the same thread id from its last checkpoint. Every call
 * rides out a server restart: lost or refused connections are retried (see `withPgRetry`, budget
 * RETRACE_PG_RETRY_MS), which is safe because PostgresSaver's writes are upserts in a transaction.
 */
import {
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import { redactCheckpointer } from "@retrace-cua/core/store/redacting-serde";
import { importOptional } from "@retrace-cua/core/optional-import";
import { LazyCheckpointSaver } from "@retrace-cua/core/store/lazy-checkpointer";
import { checkPostgresUrl, connectPostgres, pgCause, withPgRetry } from "./connect.ts";

type CheckpointListOptions = NonNullable<Parameters<BaseCheckpointSaver["list"]>[1]>;
type ChannelVersions = Parameters<BaseCheckpointSaver["put"]>[3];
type PendingWrite = Parameters<BaseCheckpointSaver["putWrites"]>[1][number];

/** Options of {@link createPostgresCheckpointer}. */
export interface PostgresCheckpointerOptions {
  /** How long to retry an unreachable server while setting up. @default 60000 */
  connectBudgetMs?: number;
  /** How long each later read or write retries a lost connection. @default RETRACE_PG_RETRY_MS, else 60000 */
  retryBudgetMs?: number;
}

/** A durable checkpointer in PostgreSQL at `url` (tables created on first use), and its closer. */
export async function createPostgresCheckpointer(
  url: string,
  options: PostgresCheckpointerOptions = {},
): Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }> {
  const connectBudgetMs = options.connectBudgetMs;
  const { PostgresSaver } = await importOptional(
    "@langchain/langgraph-checkpoint-postgres",
    "the PostgreSQL checkpointer",
    () => import("@langchain/langgraph-checkpoint-postgres"),
  );
  const pg = await connectPostgres(url, { setup: false, max: 5, asyncCommit: true });
  // Every blob, write and metadata row passes the secret filter of file writes.
  const saver = redactCheckpointer(new PostgresSaver(pg.pool));
  try {
    // Workers start together: serialise the saver's migrations with an advisory lock.
    await withPgRetry(
      pg.where,
      async () => {
        const c = await pg.pool.connect();
        try {
          await c.query("SELECT pg_advisory_lock(7301014)");
          await saver.setup();
        } finally {
          await c.query("SELECT pg_advisory_unlock(7301014)").catch(() => {});
          c.release();
        }
      },
      connectBudgetMs,
    );
  } catch (err) {
    await pg.close().catch(() => {});
    throw new ConfigError(
      `--checkpoint: cannot set up the PostgreSQL checkpointer at ${pg.where}: ${describeError(pgCause(err))}`,
      { field: "checkpoint", cause: err },
    );
  }
  return { saver: new RetryingSaver(saver, pg.where, options.retryBudgetMs), close: () => pg.close() };
}

/**
 * A saver whose every call retries lost PostgreSQL connections ({@link withPgRetry}). A listing
 * is read whole before its first tuple is yielded, so a retry never yields a tuple twice
 * (PostgresSaver reads every row in one query anyway).
 */
class RetryingSaver extends BaseCheckpointSaver {
  constructor(
    private readonly inner: BaseCheckpointSaver,
    private readonly where: string,
    private readonly budgetMs?: number,
  ) {
    super(inner.serde);
  }
  private retry<T>(fn: () => Promise<T>): Promise<T> {
    return withPgRetry(this.where, fn, this.budgetMs);
  }
  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.retry(() => this.inner.getTuple(config));
  }
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    yield* await this.retry(async () => {
      const all: CheckpointTuple[] = [];
      for await (const t of this.inner.list(config, options)) all.push(t);
      return all;
    });
  }
  put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    return this.retry(() => this.inner.put(config, checkpoint, metadata, newVersions));
  }
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return this.retry(() => this.inner.putWrites(config, writes, taskId, taskPath));
  }
  deleteThread(threadId: string): Promise<void> {
    return this.retry(() => this.inner.deleteThread(threadId));
  }
}

/**
 * A PostgreSQL checkpointer for a synchronous factory (`--checkpoint postgres://...` on local
 * runs): a {@link LazyCheckpointSaver} that connects and creates its tables on first use (or on
 * `ready()`, which a run awaits before its first episode so a bad URL fails up front), then
 * delegates every call to LangGraph's PostgresSaver. `close()` ends its pool; the next use reconnects.
 */
export class LazyPostgresSaver extends LazyCheckpointSaver {
  /** @param url postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (checked here: a ConfigError naming `--checkpoint`). */
  constructor(url: string) {
    checkPostgresUrl(url, "--checkpoint");
    // A local run fails within 10 s on an unreachable server (distributed workers wait 60 s);
    // once set up, its reads and writes ride out a restart like a worker's.
    super(() => createPostgresCheckpointer(url, { connectBudgetMs: 10_000 }));
  }
}
