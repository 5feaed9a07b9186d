/**
 * LangGraph's PostgreSQL checkpointer (`@langchain/langgraph-checkpoint-postgres`) on a pool with
 * an error listener, set up once. With it an episode's thread survives its worker: another
 * worker (on another machine) resumes the same thread id from its last checkpoint.
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { ConfigError, describeError } from "../../../src/errors.ts";
import { connectPostgres, withPgRetry } from "./connect.ts";

/** A durable checkpointer in PostgreSQL at `url` (tables created on first use), and its closer. */
export async function createPostgresCheckpointer(url: string): Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }> {
  const pg = await connectPostgres(url, { setup: false, max: 5, asyncCommit: true });
  const saver = new PostgresSaver(pg.pool);
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
    });
  } catch (err) {
    await pg.close().catch(() => {});
    throw new ConfigError(`--checkpoint: cannot set up the PostgreSQL checkpointer at ${pg.where}: ${describeError(err)}`, { field: "checkpoint", cause: err });
  }
  return { saver, close: () => pg.close() };
}
