/**
 * Content-addressed storage for screenshots and other large blobs. Bytes are written once
 * under their sha256; everything else (trajectories, graph state, results) holds only the
 * reference. Checkpointed graph state must never contain image bytes.
 *
 * A screen rendered from SVG (SimDesk's) can be kept as its gzipped SVG, `<ref>.svgz`, about 1 KB
 * instead of a ~45 KB PNG: the reference is still the sha256 of the PNG bytes, and `get` renders
 * the SVG again with the same rasteriser and checks the hash, so every reader (the SSIM oracles
 * included) gets the exact PNG bytes, never an approximation.
 */
import { copyFileSync, mkdirSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile, access } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { sha256Hex } from "./hash.ts";
import { ConfigError } from "./errors.ts";
import { realInside } from "./store/safe-path.ts";
import { svgPngRenderer, svgToPng } from "./image/svg-png.ts";
import { PACK_FILE, readPack, SVGZ_PACK_FILE } from "./blob-pack.ts";
import { tempNameFor, writeFailure, writeFileAtomic } from "./store/write-file.ts";

/** A blob's identity: the lower-case hex sha256 of its bytes. */
export type BlobRef = string;

/** A blob reference: the SHA-256 of the content, in lower-case hex. */
export const BLOB_REF_RE = /^[0-9a-f]{64}$/;
const REF_RE = BLOB_REF_RE;
const FN_RE = /^[A-Za-z0-9._-]{1,100}$/;

/** Checks the arguments of {@link BlobStore.derived} / {@link BlobStore.remember}. */
export function checkDerivedKey(fn: string, key: string): void {
  if (!FN_RE.test(fn)) throw new ConfigError(`derived-blob function name "${fn}" must be 1-100 of [A-Za-z0-9._-]`);
  if (!REF_RE.test(key))
    throw new ConfigError(`derived-blob key "${key}" must be 64 hex chars (a sha256 of the input)`);
}

/** Read access to blobs, the part policies and detectors need. */
export interface BlobReader {
  get(ref: BlobRef): Promise<Buffer>;
  has(ref: BlobRef): Promise<boolean>;
}

/** Options for {@link BlobStore}. */
export interface BlobStoreOptions {
  /** Directory holding the blobs (created if missing, unless `confined`). */
  dir: string;
  /** File extension for stored blobs. @default ".png" */
  extension?: string;
  /**
   * Read only files that are inside `dir` with links followed (the report and export read a run
   * folder someone else wrote: a blob that is a link to a file elsewhere is refused). @default false
   */
  confined?: boolean;
}

/** The file extension of a blob kept as its gzipped SVG (see {@link BlobStore.putRendered}). */
export const SVGZ_EXTENSION = ".svgz";

/** Recently rendered or re-rendered PNGs kept in memory per store: a screen is mostly read soon after it is written. */
const RENDERED_MEMO = 64;

/**
 * Blobs on disk at `<dir>/<ref[0:2]>/<ref>.png` (or `.svgz`, see {@link putRendered}), written atomically, never
 * overwritten.
 */
export class BlobStore implements BlobReader {
  readonly dir: string;
  private readonly ext: string;
  private readonly confined: boolean;
  private readonly known = new Set<string>();
  private readonly rendered = new Map<string, Buffer>();
  private pack?: Map<string, Buffer> | null;
  private svgzPack?: Map<string, Buffer> | null;

  constructor(options: BlobStoreOptions) {
    this.dir = options.dir;
    this.ext = options.extension ?? ".png";
    this.confined = options.confined === true;
    // A confined store reads a folder someone else wrote (report, export): it creates nothing.
    if (!this.confined) mkdirSync(this.dir, { recursive: true });
  }

  /** The file path of a blob (it may not exist yet). */
  path(ref: BlobRef): string {
    if (!REF_RE.test(ref)) throw new ConfigError(`not a blob reference: "${ref}" (expected 64 hex chars of a sha256)`);
    return join(this.dir, ref.slice(0, 2), ref + this.ext);
  }

  /** The file of a blob kept as gzipped SVG (it may not exist). */
  svgzPath(ref: BlobRef): string {
    if (!REF_RE.test(ref)) throw new ConfigError(`not a blob reference: "${ref}" (expected 64 hex chars of a sha256)`);
    return join(this.dir, ref.slice(0, 2), ref + SVGZ_EXTENSION);
  }

  /** The file that holds a blob as stored (`.png` or `.svgz`), or undefined when neither exists. */
  storedPath(ref: BlobRef): string | undefined {
    const file = this.path(ref);
    if (existsSync(file)) return file;
    const svgz = this.svgzPath(ref);
    return existsSync(svgz) ? svgz : undefined;
  }

  /** Store bytes and return their reference; storing the same bytes twice writes once. */
  async put(bytes: Uint8Array): Promise<BlobRef> {
    const ref = sha256Hex(bytes);
    if (this.known.has(ref)) return ref;
    const file = this.path(ref);
    if (!this.packed(ref) && !this.packedSvgz(ref) && !(await exists(file)) && !(await exists(this.svgzPath(ref))))
      await writeAtomic(file, bytes);
    this.known.add(ref);
    return ref;
  }

  /**
   * Store a PNG that `svgToPng(svg)` (packages/core/src/image/svg-png.ts) rendered, as its gzipped SVG; the
   * reference is the PNG's sha256 as with {@link put}, and {@link get} returns the same PNG bytes.
   * The caller vouches that `png` is that render (SimDesk just made it).
   */
  async putRendered(png: Uint8Array, svg: string): Promise<BlobRef> {
    const ref = sha256Hex(png);
    this.memo(ref, Buffer.from(png));
    if (this.known.has(ref)) return ref;
    if (!this.packedSvgz(ref) && !(await exists(this.path(ref))) && !(await exists(this.svgzPath(ref))))
      await writeAtomic(this.svgzPath(ref), gzipSync(svg));
    this.known.add(ref);
    return ref;
  }

  /** Copy a blob into `target` as it is stored here (a `.svgz` stays one), without rendering it. */
  copyTo(ref: BlobRef, target: BlobStore): void {
    const from = this.storedPath(ref);
    const packed = from ? undefined : this.packed(ref);
    if (packed) {
      target.putSync(packed);
      return;
    }
    const packedSvgz = from ? undefined : this.packedSvgz(ref);
    if (packedSvgz) {
      if (!existsSync(target.svgzPath(ref)) && !existsSync(target.path(ref)))
        writeFileAtomicSync(target.svgzPath(ref), packedSvgz);
      return;
    }
    if (!from) throw new ConfigError(`blob ${ref} is not in ${this.dir}: was the run's blob folder moved or deleted?`);
    const to = from.endsWith(SVGZ_EXTENSION) ? target.svgzPath(ref) : target.path(ref);
    if (existsSync(to) || existsSync(target.path(ref))) return;
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }

  /** Synchronous variant of {@link put}, for code paths that cannot await. */
  putSync(bytes: Uint8Array): BlobRef {
    const ref = sha256Hex(bytes);
    if (this.known.has(ref)) return ref;
    const file = this.path(ref);
    if (!this.packed(ref) && !this.packedSvgz(ref) && !existsSync(file) && !existsSync(this.svgzPath(ref))) {
      writeFileAtomicSync(file, bytes);
    }
    this.known.add(ref);
    return ref;
  }

  /**
   * The bytes of a stored blob (a `.svgz` one rendered back to its PNG); throws a ConfigError naming the reference if
   * it is missing.
   */
  async get(ref: BlobRef): Promise<Buffer> {
    const hit = this.rendered.get(ref);
    if (hit) return hit;
    let svgz: Buffer;
    let from: string;
    try {
      return checkedBlob(await readFile(this.guard(this.path(ref))), ref, this.path(ref));
    } catch (cause) {
      if (cause instanceof ConfigError) throw cause;
      try {
        from = this.svgzPath(ref);
        svgz = await readFile(this.guard(from));
      } catch (cause2) {
        if (cause2 instanceof ConfigError) throw cause2;
        const packed = this.packed(ref);
        if (packed) return packed;
        const inPack = this.packedSvgz(ref);
        if (!inPack)
          throw new ConfigError(`blob ${ref} is not in ${this.dir}: was the run's blob folder moved or deleted?`, {
            cause,
          });
        svgz = inPack;
        from = `${join(this.dir, SVGZ_PACK_FILE)} (entry ${ref})`;
      }
    }
    const png = await svgToPng(gunzipNamed(svgz, from));
    if (sha256Hex(png) !== ref)
      throw new ConfigError(
        `blob ${from} does not render to the screen it names (sha256 ${ref.slice(0, 16)}...): the file was replaced or damaged, or this machine's rasteriser (${await svgPngRenderer()}) differs from the one that wrote it (package-lock.json); restore the file or re-run the episode`,
      );
    this.memo(ref, png);
    return png;
  }

  /**
   * The gzipped SVG of a screen kept as SVG, checked: it unzips and renders to the PNG its reference
   * names (what the report ships in its screen packs); undefined for any other blob.
   */
  async checkedSvgz(ref: BlobRef): Promise<Buffer | undefined> {
    const svgz = this.svgzSync(ref);
    if (!svgz) return undefined;
    this.rendered.delete(ref); // render from the stored bytes, never from a memo of what was written
    // A render memo of this run (BlobStore.remember, written by the worker that rendered this very
    // SVG text to this PNG) stands for the render: a damaged or replaced file gunzips to other text
    // (another sha256, no memo) or not at all, and is rendered and checked below. The demo builds
    // its report before it drops the memos; that render check was ~2/3 of the demo's CPU regression.
    try {
      const key = sha256Hex(gunzipSync(svgz));
      if ((await this.derived(await svgPngRenderer(), key)) === ref) return svgz;
    } catch {
      // not gzip: the render below names the file
    }
    await this.get(ref);
    return svgz;
  }

  /**
   * `file` when reading it stays inside the store's folder (links followed) or the store is not confined; a ConfigError
   * otherwise.
   */
  private guard(file: string): string {
    if (this.confined && existsSync(file) && !realInside(this.dir, file))
      throw new ConfigError(
        `${file} leads outside ${this.dir} (a link); only blobs inside the run's blob folder are read`,
      );
    return file;
  }

  /** Synchronous variant of {@link get}. */
  getSync(ref: BlobRef): Buffer {
    try {
      return checkedBlob(readFileSync(this.guard(this.path(ref))), ref, this.path(ref));
    } catch (cause) {
      if (cause instanceof ConfigError) throw cause;
      const packed = this.packed(ref);
      if (packed) return packed;
      throw new ConfigError(`blob ${ref} is not in ${this.dir}: was the run's blob folder moved or deleted?`, {
        cause,
      });
    }
  }

  async has(ref: BlobRef): Promise<boolean> {
    return (
      this.known.has(ref) ||
      (await exists(this.path(ref))) ||
      (await exists(this.svgzPath(ref))) ||
      this.packed(ref) !== undefined ||
      this.packedSvgz(ref) !== undefined
    );
  }

  /**
   * A blob from the folder's pack (packages/core/src/blob-pack.ts), read once per store when first asked, checked against its
   * reference.
   */
  private packed(ref: BlobRef): Buffer | undefined {
    if (!this.pack && (this.pack === undefined || existsSync(join(this.dir, PACK_FILE))))
      this.pack = readPack(this.guard(this.dir), PACK_FILE, this.confined) ?? null;
    const bytes = this.pack?.get(ref);
    return bytes && checkedBlob(bytes, ref, `${join(this.dir, PACK_FILE)} (entry ${ref})`);
  }

  private packedSvgz(ref: BlobRef): Buffer | undefined {
    if (!this.svgzPack && (this.svgzPack === undefined || existsSync(join(this.dir, SVGZ_PACK_FILE))))
      this.svgzPack = readPack(this.guard(this.dir), SVGZ_PACK_FILE, this.confined) ?? null;
    return this.svgzPack?.get(ref);
  }

  /**
   * The gzipped SVG of a screen kept as SVG (its `.svgz` file or the folder's pack), unchecked (see {@link
   * checkedSvgz}); undefined for any other blob.
   */
  svgzSync(ref: BlobRef): Buffer | undefined {
    try {
      return readFileSync(this.guard(this.svgzPath(ref)));
    } catch (cause) {
      if (cause instanceof ConfigError) throw cause;
      return this.packedSvgz(ref);
    }
  }

  private memo(ref: BlobRef, png: Buffer): void {
    this.rendered.delete(ref);
    if (this.rendered.size >= RENDERED_MEMO) this.rendered.delete(this.rendered.keys().next().value!);
    this.rendered.set(ref, png);
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

  /**
   * Record that `fn(input with sha256 key)` is the stored blob `ref` (written atomically; the first writer wins, equal
   * anyway).
   */
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

/**
 * `bytes` when their sha256 is `ref`; a ConfigError naming `file` otherwise (a replaced, truncated or damaged blob).
 */
function checkedBlob(bytes: Buffer, ref: BlobRef, file: string): Buffer {
  if (sha256Hex(bytes) !== ref)
    throw new ConfigError(
      `blob ${file} does not match its sha256 (${bytes.length} bytes): the file was replaced or damaged; restore it or re-run the episode`,
    );
  return bytes;
}

/** The SVG text of gzipped bytes; a ConfigError naming `file` when they are not gzip or are cut off. */
function gunzipNamed(svgz: Buffer, file: string): string {
  try {
    return gunzipSync(svgz).toString("utf8");
  } catch (cause) {
    throw new ConfigError(
      `blob ${file} is not a gzipped SVG (${describeZlib(cause)}): the file was replaced or damaged; restore it or re-run the episode`,
      { cause },
    );
  }
}

/** "cut off" / "not gzip" for zlib's errors. */
export function describeZlib(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "Z_BUF_ERROR" || /unexpected end/i.test(String((err as Error)?.message)))
    return "cut off: unexpected end of the data";
  if (code === "Z_DATA_ERROR") return "not gzip data";
  return String((err as Error)?.message ?? err);
}

function writeFileAtomicSync(file: string, bytes: Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, bytes);
}

async function writeAtomic(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = tempNameFor(file);
  try {
    await writeFile(tmp, bytes);
    await rename(tmp, file);
  } catch (cause) {
    await rm(tmp, { force: true });
    throw writeFailure(file, cause);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
