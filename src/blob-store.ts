/**
 * Content-addressed storage for screenshots and other large blobs. Bytes are written once
 * under their sha256; everything else (trajectories, graph state, results) holds only the
 * reference. Checkpointed graph state must never contain image bytes.
 */
import { mkdirSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile, access } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./hash.ts";
import { ConfigError } from "./errors.ts";

/** A blob's identity: the lower-case hex sha256 of its bytes. */
export type BlobRef = string;

const REF_RE = /^[0-9a-f]{64}$/;
const FN_RE = /^[A-Za-z0-9._-]{1,100}$/;

/** Checks the arguments of {@link BlobStore.derived} / {@link BlobStore.remember}. */
export function checkDerivedKey(fn: string, key: string): void {
  if (!FN_RE.test(fn)) throw new ConfigError(`derived-blob function name "${fn}" must be 1-100 of [A-Za-z0-9._-]`);
  if (!REF_RE.test(key)) throw new ConfigError(`derived-blob key "${key}" must be 64 hex chars (a sha256 of the input)`);
}

/** Read access to blobs, the part policies and detectors need. */
export interface BlobReader {
  get(ref: BlobRef): Promise<Buffer>;
  has(ref: BlobRef): Promise<boolean>;
}

/** Options for {@link BlobStore}. */
export interface BlobStoreOptions {
  /** Directory holding the blobs (created if missing). */
  dir: string;
  /** File extension for stored blobs. @default ".png" */
  extension?: string;
}

/** Blobs on disk at `<dir>/<ref[0:2]>/<ref>.png`, written atomically, never overwritten. */
export class BlobStore implements BlobReader {
  readonly dir: string;
  private readonly ext: string;
  private readonly known = new Set<string>();

  constructor(options: BlobStoreOptions) {
    this.dir = options.dir;
    this.ext = options.extension ?? ".png";
    mkdirSync(this.dir, { recursive: true });
  }

  /** The file path of a blob (it may not exist yet). */
  path(ref: BlobRef): string {
    if (!REF_RE.test(ref)) throw new ConfigError(`not a blob reference: "${ref}" (expected 64 hex chars of a sha256)`);
    return join(this.dir, ref.slice(0, 2), ref + this.ext);
  }

  /** Store bytes and return their reference; storing the same bytes twice writes once. */
  async put(bytes: Uint8Array): Promise<BlobRef> {
    const ref = sha256Hex(bytes);
    if (this.known.has(ref)) return ref;
    const file = this.path(ref);
    if (!(await exists(file))) {
      await mkdir(join(this.dir, ref.slice(0, 2)), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, file);
    }
    this.known.add(ref);
    return ref;
  }

  /** Synchronous variant of {@link put}, for code paths that cannot await. */
  putSync(bytes: Uint8Array): BlobRef {
    const ref = sha256Hex(bytes);
    if (this.known.has(ref)) return ref;
    const file = this.path(ref);
    if (!existsSync(file)) {
      mkdirSync(join(this.dir, ref.slice(0, 2)), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, file);
    }
    this.known.add(ref);
    return ref;
  }

  /** The bytes of a stored blob; throws a ConfigError naming the reference if it is missing. */
  async get(ref: BlobRef): Promise<Buffer> {
    try {
      return await readFile(this.path(ref));
    } catch (cause) {
      throw new ConfigError(`blob ${ref} is not in ${this.dir}: was the run's blob folder moved or deleted?`, { cause });
    }
  }

  /** Synchronous variant of {@link get}. */
  getSync(ref: BlobRef): Buffer {
    try {
      return readFileSync(this.path(ref));
    } catch (cause) {
      throw new ConfigError(`blob ${ref} is not in ${this.dir}: was the run's blob folder moved or deleted?`, { cause });
    }
  }

  async has(ref: BlobRef): Promise<boolean> {
    return this.known.has(ref) || exists(this.path(ref));
  }

  /**
   * A store for another kind of blob (e.g. environment snapshots as JSON) in the sub-folder `sub`.
   * Shared backends (the PostgreSQL store) override it so the child is shared too.
   */
  child(sub: string, extension: string): BlobStore {
    return new BlobStore({ dir: join(this.dir, sub), extension });
  }

  /**
   * The blob a deterministic function `fn` made from an input whose sha256 is `key`, if any
   * worker sharing this store remembered it (see {@link remember}); undefined otherwise. Lets N
   * workers of one run compute each derived blob once (e.g. a SimDesk screen's PNG from its SVG:
   * rasterising costs ~10-20 ms, this lookup ~20 us). Include the producer's version in `fn`.
   */
  async derived(fn: string, key: string): Promise<BlobRef | undefined> {
    checkDerivedKey(fn, key);
    let ref: string;
    try {
      ref = (await readFile(this.derivedPath(fn, key), "utf8")).trim();
    } catch {
      return undefined;
    }
    return REF_RE.test(ref) && (await this.has(ref)) ? ref : undefined;
  }

  /** Record that `fn(input with sha256 key)` is the stored blob `ref` (written atomically; the first writer wins, equal anyway). */
  async remember(fn: string, key: string, ref: BlobRef): Promise<void> {
    checkDerivedKey(fn, key);
    if (!REF_RE.test(ref)) throw new ConfigError(`not a blob reference: "${ref}" (expected 64 hex chars of a sha256)`);
    const file = this.derivedPath(fn, key);
    await mkdir(join(file, ".."), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(tmp, ref);
    await rename(tmp, file);
  }

  private derivedPath(fn: string, key: string): string {
    return join(this.dir, "derived", fn, key.slice(0, 2), key);
  }

  /**
   * A store for another kind of blob beside this one, in `<dir>/../<name>` (SimDesk keeps its state
   * snapshots in `simdesk-states/` beside `blobs/`). Shared backends override it like {@link child}.
   */
  sibling(name: string, extension: string): BlobStore {
    return new BlobStore({ dir: join(dirname(this.dir), name), extension });
  }

  /** Wait until every blob stored so far is durable in the backend (a no-op on the filesystem). */
  async flush(): Promise<void> {}
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
