/**
 * Minimal ustar writer/reader for the Docker archive API (putArchive / getArchive): regular
 * files and directories only, which is all a desktop's home needs.
 */
import { ConfigError } from "@retrace-cua/core/errors";

/** One regular file to pack. */
export interface TarEntry {
  /** Path inside the archive (relative, "/"-separated). */
  path: string;
  data: Buffer;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: Date;
}

function header(
  name: string,
  size: number,
  type: "0" | "5",
  mode: number,
  uid: number,
  gid: number,
  mtime: Date,
): Buffer {
  const h = Buffer.alloc(512);
  let prefix = "";
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf("/", 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new ConfigError(`tar: path too long: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  const oct = (v: number, len: number) => v.toString(8).padStart(len - 1, "0") + "\0";
  h.write(base, 0, 100);
  h.write(oct(mode, 8), 100);
  h.write(oct(uid, 8), 108);
  h.write(oct(gid, 8), 116);
  h.write(oct(size, 12), 124);
  h.write(oct(Math.floor(mtime.getTime() / 1000), 12), 136);
  h.write("        ", 148);
  h.write(type, 156);
  h.write("ustar\u000000", 257);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

/** Pack files (their parent directories are added) into a tar buffer. */
export function packTar(entries: TarEntry[], defaults: { uid?: number; gid?: number; mtime?: Date } = {}): Buffer {
  const parts: Buffer[] = [];
  const dirs = new Set<string>();
  const mtime = defaults.mtime ?? new Date(0);
  for (const e of entries) {
    const segs = e.path.split("/");
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join("/") + "/";
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      parts.push(header(dir, 0, "5", 0o755, e.uid ?? defaults.uid ?? 0, e.gid ?? defaults.gid ?? 0, e.mtime ?? mtime));
    }
    parts.push(
      header(
        e.path,
        e.data.length,
        "0",
        e.mode ?? 0o644,
        e.uid ?? defaults.uid ?? 0,
        e.gid ?? defaults.gid ?? 0,
        e.mtime ?? mtime,
      ),
    );
    parts.push(e.data);
    const pad = (512 - (e.data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Regular files of a tar buffer, by path. */
export function unpackTar(buf: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let off = 0;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, n: number) =>
      h
        .subarray(a, a + n)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const size = parseInt(str(124, 12).trim() || "0", 8);
    const type = str(156, 1) || "0";
    const prefix = str(345, 155);
    const name = prefix ? `${prefix}/${str(0, 100)}` : str(0, 100);
    off += 512;
    if (type === "0" || type === "\0") files.set(name, Buffer.from(buf.subarray(off, off + size)));
    off += Math.ceil(size / 512) * 512;
  }
  return files;
}
