/**
 * A LangGraph checkpointer that opens its real saver on first use. Synchronous factories
 * (`createSqliteCheckpointer`, `--checkpoint sqlite:...`) return it so that the saver's package
 * (an optional peer such as `@langchain/langgraph-checkpoint-sqlite`) loads only when a checkpoint
 * is read or written.
 */
import { BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";

type CheckpointListOptions = NonNullable<Parameters<BaseCheckpointSaver["list"]>[1]>;
type ChannelVersions = Parameters<BaseCheckpointSaver["put"]>[3];
type PendingWrite = Parameters<BaseCheckpointSaver["putWrites"]>[1][number];

/** Delegates every call to the saver `open()` resolves to (called once, on first use or {@link LazyCheckpointSaver.ready}). */
export class LazyCheckpointSaver extends BaseCheckpointSaver {
  private opened?: Promise<BaseCheckpointSaver>;
  constructor(private readonly open: () => Promise<BaseCheckpointSaver>) {
    super();
  }
  private inner(): Promise<BaseCheckpointSaver> {
    this.opened ??= this.open();
    return this.opened;
  }
  /** Open the saver now (loads its package); rejects with what opening it threw. */
  async ready(): Promise<void> {
    await this.inner();
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
  /** Close the opened saver's database (SQLite's `db`), if it was opened; safe to call twice. */
  async close(): Promise<void> {
    if (!this.opened) return;
    const inner = (await this.opened) as unknown as { db?: { close?: () => void; open?: boolean } };
    if (inner.db?.open !== false) inner.db?.close?.();
  }
}
