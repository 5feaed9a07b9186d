/**
 * A finished folder of small blobs packed into one file: `<dir>/pack.tsv.gz`, one `<ref>\t<base64>`
 * line per blob. A folder of ~3,000 SimDesk state snapshots of ~2 KB each takes ~13 MB of disk
 * blocks as files and ~1 MB as a pack. {@link BlobStore} reads a packed blob when its file is
 * missing, so packing changes no reference and no reader; new blobs are written as files again.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { sha256Hex } from "./hash.ts";
import { writeFileAtomic } from "./store/write-file.ts";
import { withFileLock } from "./store/file-lock.ts";
import { ConfigError } from "./errors.ts";
import { realInside } from "./store/safe-path.ts";

/** The pack file inside a blob folder. */
export const PACK_FILE = "pack.tsv.gz";
/** The pack of a screen folder's `.svgz` files (SimDesk screens kept as gzipped SVG). */
export const SVGZ_PACK_FILE = "svgz-pack.tsv.gz";

const REF_RE = /^[0-9a-f]{64}$/;
const SUB_RE = /^[0-9a-f]{2}$/;

/** The blobs packed in `dir` (ref -> bytes), or undefined when it holds no pack. */
export function readPack(dir: string, name = PACK_FILE, confined = false): Map<string, Buffer> | undefined {
  const file = join(dir, name);
  if (!existsSync(file)) return undefined;
  if (confined && !realInside(dir, file))
    throw new ConfigError(`${file} leads outside ${dir} (a link); only blobs inside the run's blob folder are read`);
  const out = new Map<string, Buffer>();
  let text: string;
  try {
    text = gunzipSync(readFileSync(file)).toString("latin1");
  } catch (cause) {
    const cut =
      (cause as NodeJS.ErrnoException).code === "Z_BUF_ERROR" || /unexpected end/i.test((cause as Error).message);
    throw new ConfigError(
      `blob pack ${file} is damaged (${cut ? "cut off: unexpected end of the data" : "not gzip data"}); restore it from a copy or re-run the run`,
      { cause },
    );
  }
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab === 64) out.set(line.slice(0, 64), Buffer.from(line.slice(65), "base64"));
  }
  return out;
}

/**
 * Check every entry of the packs in `dir` before a run is resumed from it (issue 41: a tampered
 * states pack was used on `--resume`, exit 0, with other continuations). Each line must be
 * `<sha256>\t<base64>` and, in a {@link PACK_FILE}, the bytes must hash to the name the run's
 * records refer to them by; a {@link SVGZ_PACK_FILE} entry is named by its render's hash, so
 * only its form is checked here (its render is checked when read). A ConfigError names the pack,
 * the line and what to do. Returns the number of entries checked.
 */
export function verifyPacks(dir: string): number {
  let n = 0;
  for (const name of [PACK_FILE, SVGZ_PACK_FILE]) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    let text: string;
    try {
      text = gunzipSync(readFileSync(file)).toString("latin1");
    } catch (cause) {
      const cut =
        (cause as NodeJS.ErrnoException).code === "Z_BUF_ERROR" || /unexpected end/i.test((cause as Error).message);
      throw new ConfigError(
        `--resume: blob pack ${file} is damaged (${cut ? "cut off" : "not gzip data"}); restore it from a copy or start a new run (--out)`,
        { field: "resume", cause },
      );
    }
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    lines.forEach((line, i) => {
      const ref = line.slice(0, 64);
      const ok = line.charAt(64) === "\t" && REF_RE.test(ref) && /^[A-Za-z0-9+/]*={0,2}$/.test(line.slice(65));
      if (!ok || (name === PACK_FILE && sha256Hex(Buffer.from(line.slice(65), "base64")) !== ref))
        throw new ConfigError(
          `--resume: blob pack ${file} line ${i + 1} ${ok ? `(entry ${ref}) does not match its sha256` : "is not <sha256>\\t<base64>"}: the pack was changed or damaged since the run wrote it; restore it from a copy or start a new run (--out)`,
          { field: "resume" },
        );
      n++;
    });
  }
  return n;
}

/**
 * Move every `<dir>/<ab>/<ref><extension>` file into the folder's pack (merged with the pack already
 * there), then delete the files and their emptied sub-folders. Each blob is checked against its
 * reference first (not `.svgz` screens: their reference is their PNG's), and a file that does not
 * match is left in place. The pack is written before any file is deleted, so an interrupted call
 * loses nothing. Returns the number of blobs packed. `.svgz` files go to {@link SVGZ_PACK_FILE}.
 * Processes packing one folder at once take turns (`<pack>.lock`, packages/core/src/store/file-lock.ts).
 */
export function packBlobFolder(dir: string, extension: string): number {
  if (!existsSync(dir)) return 0;
  const svgz = extension === ".svgz";
  const pack = svgz ? SVGZ_PACK_FILE : PACK_FILE;
  // One packer per folder at a time (two `demo --resume`s): the other waits, then merges what is left.
  return withFileLock(join(dir, `${pack}.lock`), () => packLocked(dir, extension, svgz, pack));
}

function packLocked(dir: string, extension: string, svgz: boolean, pack: string): number {
  const blobs = readPack(dir, pack) ?? new Map<string, Buffer>();
  const moved: string[] = [];
  for (const sub of readdirSync(dir)
    .filter((n) => SUB_RE.test(n))
    .sort()) {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const ref = name.slice(0, -extension.length);
      if (!name.endsWith(extension) || !REF_RE.test(ref)) continue;
      const bytes = readFileSync(join(dir, sub, name));
      if (!svgz && sha256Hex(bytes) !== ref) continue;
      blobs.set(ref, bytes);
      moved.push(join(dir, sub, name));
    }
  }
  if (!moved.length) return 0;
  const text = [...blobs.keys()]
    .sort()
    .map((ref) => `${ref}\t${blobs.get(ref)!.toString("base64")}\n`)
    .join("");
  writeFileAtomic(join(dir, pack), gzipSync(text, { level: 9 }));
  for (const f of moved) unlinkSync(f);
  for (const sub of readdirSync(dir).filter((n) => SUB_RE.test(n))) {
    try {
      rmdirSync(join(dir, sub));
    } catch {
      // not empty: other files stay
    }
  }
  return moved.length;
}
