/**
 * A {@link BlobStore} shared by every worker: content-addressed blobs in PostgreSQL
 * (`retrace_blobs`, bytea keyed by sha256, so a blob stored twice is kept once), with the
 * filesystem store as a local write-through cache. Synchronous writes (SimDesk renders with
 * `putSync`) land on disk at once and reach PostgreSQL in the background; {@link PgBlobStore.flush}
 * waits for them, and a worker flushes before it acknowledges an episode. Reads look in the
 * local cache first and fetch (and cache) what another machine stored. Derived-blob memos
 * (`retrace_blob_derived`) are shared the same way, so N workers render each SimDesk screen once.
 */
import { dirname, join } from "node:path";
import { BlobStore, type BlobRef } from "@retrace-cua/core/blob-store";
import { ConfigError, describeError, DataError } from "@retrace-cua/core/errors";
import { sha256Hex } from "@retrace-cua/core/hash";
import { logger } from "@retrace-cua/core/logger";
import { withPgRetry, type PgHandle } from "./connect.ts";

/** Options of {@link PgBlobStore}. */
export interface PgBlobStoreOptions {
  /** Local cache folder (created if missing). */
  dir: string;
  /** The PostgreSQL pool (see connectPostgres). */
  pg: PgHandle;
  /** File extension in the local cache. @default ".png" */
  extension?: string;
}

/** Blobs in PostgreSQL, cached on the local disk. */
export class PgBlobStore extends BlobStore {
  private readonly pg: PgHandle;
  private readonly uploaded = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly children = new Map<string, PgBlobStore>();
  private failure: unknown;

  constructor(options: PgBlobStoreOptions) {
    super({ dir: options.dir, extension: options.extension });
    this.pg = options.pg;
  }

  /** Bytes sent to PostgreSQL by this store (its children excluded); for the benchmark. */
  uploadedBytes = 0;

  override async put(bytes: Uint8Array): Promise<BlobRef> {
    const ref = await super.put(bytes);
    await this.upload(ref, bytes);
    return ref;
  }

  /** PostgreSQL keeps the PNG itself (a screen's SVG form is a local-filesystem saving only). */
  override async putRendered(png: Uint8Array): Promise<BlobRef> {
    return this.put(png);
  }

  override putSync(bytes: Uint8Array): BlobRef {
    const ref = super.putSync(bytes);
    if (!this.uploaded.has(ref) && !this.pending.has(ref)) {
      const copy = Buffer.from(bytes);
      const p = this.upload(ref, copy)
        .catch((err) => {
          this.failure ??= err;
          logger.warn({ ref, err: describeError(err) }, "blob upload to PostgreSQL failed");
        })
        .finally(() => this.pending.delete(ref));
      this.pending.set(ref, p);
    }
    return ref;
  }

  override async get(ref: BlobRef): Promise<Buffer> {
    if (await super.has(ref)) return super.get(ref);
    const res = await withPgRetry(this.pg.where, () =>
      this.pg.pool.query<{ bytes: Buffer }>("SELECT bytes FROM retrace_blobs WHERE ref = $1", [ref]),
    );
    const bytes = res.rows[0]?.bytes;
    if (!bytes) throw new ConfigError(`blob ${ref} is neither in ${this.dir} nor in PostgreSQL at ${this.pg.where}`);
    if (sha256Hex(bytes) !== ref)
      throw new DataError(`blob ${ref} in PostgreSQL is corrupt (its bytes hash differently)`);
    super.putSync(bytes);
    this.uploaded.add(ref);
    return bytes;
  }

  override async has(ref: BlobRef): Promise<boolean> {
    if (await super.has(ref)) return true;
    const res = await withPgRetry(this.pg.where, () =>
      this.pg.pool.query("SELECT 1 FROM retrace_blobs WHERE ref = $1", [ref]),
    );
    return (res.rowCount ?? 0) > 0;
  }

  override child(sub: string, extension: string): BlobStore {
    let c = this.children.get(sub);
    if (!c) {
      c = new PgBlobStore({ dir: join(this.dir, sub), pg: this.pg, extension });
      this.children.set(sub, c);
    }
    return c;
  }

  /** Shared too: a SimDesk state stored by one worker can be read on the coordinator (ideal recovery's annotation). */
  override sibling(name: string, extension: string): BlobStore {
    const key = `../${name}`;
    let c = this.children.get(key);
    if (!c) {
      c = new PgBlobStore({ dir: join(dirname(this.dir), name), pg: this.pg, extension });
      this.children.set(key, c);
    }
    return c;
  }

  override async derived(fn: string, key: string): Promise<BlobRef | undefined> {
    const local = await super.derived(fn, key);
    if (local) return local;
    const res = await withPgRetry(this.pg.where, () =>
      this.pg.pool.query<{ ref: string }>("SELECT ref FROM retrace_blob_derived WHERE fn = $1 AND key = $2", [fn, key]),
    );
    const ref = res.rows[0]?.ref;
    if (!ref) return undefined;
    await super.remember(fn, key, ref).catch(() => {}); // only a local shortcut
    return ref;
  }

  /** Remembered in PostgreSQL after the blob itself is there, so no worker sees a memo whose blob it cannot fetch. */
  override async remember(fn: string, key: string, ref: BlobRef): Promise<void> {
    await super.remember(fn, key, ref);
    await this.pending.get(ref);
    if (!this.uploaded.has(ref)) {
      if (await super.has(ref)) await this.upload(ref, await super.get(ref));
      else if (!(await this.has(ref)))
        throw new ConfigError(
          `remember: blob ${ref} is neither in ${this.dir} nor in PostgreSQL at ${this.pg.where}; store it first`,
        );
    }
    await withPgRetry(this.pg.where, () =>
      this.pg.pool.query(
        "INSERT INTO retrace_blob_derived (fn, key, ref) VALUES ($1, $2, $3) ON CONFLICT (fn, key) DO NOTHING",
        [fn, key, ref],
      ),
    );
  }

  /** Whether this process has stored `ref` in PostgreSQL (after {@link flush}, durably so). */
  isUploaded(ref: BlobRef): boolean {
    return this.uploaded.has(ref);
  }

  /** Wait for background uploads (this store and its children); rethrows the first failure. */
  override async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
    for (const c of this.children.values()) await c.flush();
    if (this.failure !== undefined) {
      const err = this.failure;
      this.failure = undefined;
      this.uploaded.clear(); // re-upload on the next put: some may be missing
      throw err;
    }
  }

  private async upload(ref: string, bytes: Uint8Array): Promise<void> {
    if (this.uploaded.has(ref)) return;
    await withPgRetry(this.pg.where, () =>
      this.pg.pool.query(
        "INSERT INTO retrace_blobs (ref, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (ref) DO NOTHING",
        [ref, Buffer.from(bytes), bytes.length],
      ),
    );
    this.uploaded.add(ref);
    this.uploadedBytes += bytes.length;
  }
}
