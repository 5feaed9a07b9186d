/**
 * LangGraph's PostgreSQL checkpointer (`@langchain/langgraph-checkpoint-postgres`) on a pool with
 * an error listener, set up once. With it an episode's thread survives its worker: another
 * worker (on another machine) resumes the same thread id from its last checkpoint.
 */
import { BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConfigError, describeError } from "../../../src/errors.ts";
import { redactCheckpointer } from "../../../src/store/redacting-serde.ts";
import { importOptional } from "../../../src/optional-import.ts";
import { checkPostgresUrl, connectPostgres, withPgRetry } from "./connect.ts";

type CheckpointListOptions = NonNullable<Parameters<BaseCheckpointSaver["list"]>[1]>;
type ChannelVersions = Parameters<BaseCheckpointSaver["put"]>[3];
type PendingWrite = Parameters<BaseCheckpointSaver["putWrites"]>[1][number];

/** A durable checkpointer in PostgreSQL at `url` (tables created on first use), and its closer. `connectBudgetMs`: how long to retry an unreachable server (default 60 s). */
export async function createPostgresCheckpointer(url: string, connectBudgetMs?: number): Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }> {
  const { PostgresSaver } = await importOptional("@langchain/langgraph-checkpoint-postgres", "the PostgreSQL checkpointer", () => import("@langchain/langgraph-checkpoint-postgres"));
  const pg = await connectPostgres(url, { setup: false, max: 5, asyncCommit: true });
  // Every blob, write and metadata row passes the secret filter of file writes.
  const saver = redactCheckpointer(new PostgresSaver(pg.pool));
  try {
    // Workers start together: serialise the saver's migrations with an advisory lock.
    await withPgRetry(pg.where, async () => {
      const c = await pg.pool.connect();
      try {
        await c.query("SELECT pg_advisory_lock(7301014)");
        await saver.setup();
      } finally {
        await c.query("SELECT pg_advisory_unlock(7301014)").catch(() => {});
        c.release();
      }
    }, connectBudgetMs);
  } catch (err) {
    await pg.close().catch(() => {});
    throw new ConfigError(`--checkpoint: cannot set up the PostgreSQL checkpointer at ${pg.where}: ${describeError(err)}`, { field: "checkpoint", cause: err });
  }
  return { saver, close: () => pg.close() };
}

/**
 * A PostgreSQL checkpointer for a synchronous factory (`--checkpoint postgres://...` on local
 * runs): it connects and creates its tables on first use (or on {@link LazyPostgresSaver.ready},
 * which a run awaits before its first episode so a bad URL fails up front), then delegates every
 * call to LangGraph's PostgresSaver. {@link LazyPostgresSaver.close} ends its pool.
 */
export class LazyPostgresSaver extends BaseCheckpointSaver {
  private opened?: Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }>;
  /** @param url postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (checked here: a ConfigError naming `--checkpoint`). */
  constructor(private readonly url: string) {
    super();
    checkPostgresUrl(url, "--checkpoint");
  }
  private inner(): Promise<BaseCheckpointSaver> {
    // A local run fails within 10 s on an unreachable server (distributed workers wait 60 s).
    this.opened ??= createPostgresCheckpointer(this.url, 10_000);
    return this.opened.then((o) => o.saver);
  }
  /** Connect and set up the tables now; rejects with a ConfigError naming `--checkpoint` when the server cannot be used. */
  async ready(): Promise<void> {
    await this.inner();
  }
  /** End the pool (no-op when never opened). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened.catch(() => undefined))?.close();
  }
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return (await this.inner()).getTuple(config);
  }
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    yield* (await this.inner()).list(config, options);
  }
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    return (await this.inner()).put(config, checkpoint, metadata, newVersions);
  }
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return (await this.inner()).putWrites(config, writes, taskId, taskPath);
  }
  async deleteThread(threadId: string): Promise<void> {
    return (await this.inner()).deleteThread(threadId);
  }
}
