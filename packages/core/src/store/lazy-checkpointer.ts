/**
 * A LangGraph checkpointer that opens its real saver on first use. Synchronous factories
 * (`createSqliteCheckpointer`, `createMemoryCheckpointer`, `--checkpoint sqlite:...`) return it so
 * that the saver's package (LangGraph's own for MemorySaver, an optional peer such as
 * `@langchain/langgraph-checkpoint-sqlite`) loads only when a checkpoint is read or written.
 *
 * It does not extend LangGraph's `BaseCheckpointSaver` (that would load LangGraph with the module,
 * and with `import "retrace-cua"`); it implements that class's whole public surface instead, each
 * method delegating to the opened saver, so it type-checks as a `BaseCheckpointSaver` and LangGraph
 * calls it like one. LangGraph reads a saver before it writes one (`getTuple` opens it), so the
 * synchronous `getNextVersion` meets an opened saver; before that it answers as LangGraph's base
 * class does (integer versions, which every saver here uses).
 */
import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata, CheckpointTuple } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConfigError } from "../errors.ts";

type CheckpointListOptions = NonNullable<Parameters<BaseCheckpointSaver["list"]>[1]>;
type ChannelVersions = Parameters<BaseCheckpointSaver["put"]>[3];
type PendingWrite = Parameters<BaseCheckpointSaver["putWrites"]>[1][number];
type Serde = BaseCheckpointSaver["serde"];
type DeltaHistory = Awaited<ReturnType<BaseCheckpointSaver["getDeltaChannelHistory"]>>;

/** What an opener may resolve to: the saver, or the saver with what releases it (a pool's end). */
export type OpenedSaver<V extends string | number = number> =
  BaseCheckpointSaver<V> | { saver: BaseCheckpointSaver<V>; close: () => Promise<void> };

/**
 * Delegates every call to the saver `open()` resolves to (called once, on first use or {@link
 * LazyCheckpointSaver.ready}).
 */
export class LazyCheckpointSaver<V extends string | number = number> implements BaseCheckpointSaver<V> {
  private opened?: Promise<BaseCheckpointSaver<V>>;
  private release?: () => Promise<void>;
  private saver?: BaseCheckpointSaver<V>;
  /**
   * The opened saver's serializer, reached through this one (it serializes nothing itself: the
   * opened saver uses its own, which the factories make redact secrets).
   */
  serde: Serde = {
    dumpsTyped: async (data) => (await this.inner()).serde.dumpsTyped(data),
    loadsTyped: async (type, data) => (await this.inner()).serde.loadsTyped(type, data),
  };

  constructor(private readonly open: () => Promise<OpenedSaver<V>>) {}

  private inner(): Promise<BaseCheckpointSaver<V>> {
    this.opened ??= this.open().then((o) => {
      if ("saver" in o && "close" in o && typeof o.close === "function") {
        this.release = o.close;
        return (this.saver = o.saver);
      }
      return (this.saver = o as BaseCheckpointSaver<V>);
    });
    return this.opened;
  }
  /** Open the saver now (loads its package); rejects with what opening it threw. */
  async ready(): Promise<void> {
    await this.inner();
  }
  toJSON(): string {
    return "[LazyCheckpointSaver]";
  }
  async get(config: RunnableConfig): Promise<Checkpoint | undefined> {
    return (await this.inner()).get(config);
  }
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return (await this.inner()).getTuple(config);
  }
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    yield* (await this.inner()).list(config, options);
  }
  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    return (await this.inner()).put(config, checkpoint, metadata, newVersions);
  }
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return (await this.inner()).putWrites(config, writes, taskId, taskPath);
  }
  async deleteThread(threadId: string): Promise<void> {
    return (await this.inner()).deleteThread(threadId);
  }
  async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<DeltaHistory> {
    return (await this.inner()).getDeltaChannelHistory(options);
  }
  getNextVersion(current: V | undefined): V {
    if (this.saver) return this.saver.getNextVersion(current);
    // LangGraph's BaseCheckpointSaver.getNextVersion (no saver is open yet to ask).
    if (typeof current === "string")
      throw new ConfigError("LazyCheckpointSaver: string channel versions need the opened saver; call ready() first");
    return ((typeof current === "number" ? current : 0) + 1) as V;
  }
  /**
   * Release what was opened, if anything; safe to call twice. An opener that gave a `close` (a
   * PostgreSQL pool) is closed and forgotten, so the next use opens again; otherwise the saver's
   * database (SQLite's `db`) is closed.
   */
  async close(): Promise<void> {
    const opened = this.opened;
    if (!opened) return;
    const inner = (await opened.catch(() => undefined)) as unknown as
      { db?: { close?: () => void; open?: boolean } } | undefined;
    if (this.release) {
      const release = this.release;
      this.opened = this.saver = this.release = undefined;
      await release();
      return;
    }
    if (inner?.db?.open !== false) inner?.db?.close?.();
  }
}
