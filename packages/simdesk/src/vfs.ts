/** Virtual file system helpers (pure: they return new objects, never mutate inputs). */
import type { Fs, FsNode, TrashItem } from "./types.ts";

export const HOME = "/home/user";
export const CONFIG_PATH = `${HOME}/.config/desk/settings.json`;

/** Parent directory of an absolute path. */
export function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** Last segment of a path. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export function join(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** Expand "~" and make a path absolute relative to `cwd`. */
export function resolvePath(input: string, cwd: string): string {
  let p = input.trim();
  if (p.startsWith("~")) p = HOME + p.slice(1);
  if (!p.startsWith("/")) p = join(cwd, p);
  const parts: string[] = [];
  for (const seg of p.split("/")) {
    if (!seg || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return "/" + parts.join("/");
}

/** Display form: "~/Documents/a.txt". */
export function tildify(path: string): string {
  return path === HOME ? "~" : path.startsWith(HOME + "/") ? "~" + path.slice(HOME.length) : path;
}

/** Names directly inside `dir`, folders first then files, each alphabetical; dotfiles hidden unless asked. */
export function listDir(fs: Fs, dir: string, showHidden = false): string[] {
  const prefix = dir === "/" ? "/" : dir + "/";
  const names: string[] = [];
  for (const p of Object.keys(fs)) {
    if (!p.startsWith(prefix) || p === dir) continue;
    const rest = p.slice(prefix.length);
    if (rest.includes("/")) continue;
    if (!showHidden && rest.startsWith(".")) continue;
    names.push(rest);
  }
  return names.sort((a, b) => {
    const da = fs[join(dir, a)].type === "dir" ? 0 : 1;
    const db = fs[join(dir, b)].type === "dir" ? 0 : 1;
    return da - db || a.localeCompare(b, "en");
  });
}

/** True when `p` is `root` or inside it. */
export function isWithin(p: string, root: string): boolean {
  return p === root || p.startsWith(root + "/");
}

/** The subtree at `path` keyed by relative path ("" = the node itself). */
export function subtree(fs: Fs, path: string): Record<string, FsNode> {
  const out: Record<string, FsNode> = {};
  for (const [p, node] of Object.entries(fs)) if (isWithin(p, path)) out[p.slice(path.length)] = node;
  return out;
}

/** Remove `path` and everything below it. */
export function removeTree(fs: Fs, path: string): Fs {
  const out: Fs = {};
  for (const [p, node] of Object.entries(fs)) if (!isWithin(p, path)) out[p] = node;
  return out;
}

/** Place a subtree at `path` (parents must exist). */
export function placeTree(fs: Fs, path: string, tree: Record<string, FsNode>): Fs {
  const out: Fs = { ...fs };
  for (const [rel, node] of Object.entries(tree)) out[path + rel] = node;
  return out;
}

/** Move `from` to `to` (a full destination path). */
export function moveTree(fs: Fs, from: string, to: string): Fs {
  return placeTree(removeTree(fs, from), to, subtree(fs, from));
}

/** A name not yet used in `dir`: "New Folder", "New Folder 2", ... */
export function freeName(fs: Fs, dir: string, base: string): string {
  if (!fs[join(dir, base)]) return base;
  const dot = base.lastIndexOf(".");
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const ext = dot > 0 ? base.slice(dot) : "";
  for (let i = 2; ; i++) {
    const name = `${stem} ${i}${ext}`;
    if (!fs[join(dir, name)]) return name;
  }
}

/** Move `path` to the Trash. */
export function trashPath(fs: Fs, trash: TrashItem[], path: string): { fs: Fs; trash: TrashItem[] } {
  let key = basename(path);
  const used = new Set(trash.map((t) => t.key));
  for (let i = 2; used.has(key); i++) key = `${basename(path)} (${i})`;
  // Kept sorted by key so the Trash's order never depends on history.
  const items = [...trash, { key, from: path, tree: subtree(fs, path) }].sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  return { fs: removeTree(fs, path), trash: items };
}

/** Restore a Trash item to its original path (renamed if that path is taken; parents recreated). */
export function restoreItem(fs: Fs, trash: TrashItem[], key: string): { fs: Fs; trash: TrashItem[] } {
  const item = trash.find((t) => t.key === key);
  if (!item) return { fs, trash };
  let out = { ...fs };
  const parent = dirname(item.from);
  // Recreate missing parents so a restore never orphans a file.
  const segs = parent.split("/").filter(Boolean);
  for (let i = 1; i <= segs.length; i++) {
    const p = "/" + segs.slice(0, i).join("/");
    if (!out[p]) out[p] = { type: "dir" };
  }
  const dest = join(parent, freeName(out, parent, basename(item.from)));
  out = placeTree(out, dest, item.tree);
  return { fs: out, trash: trash.filter((t) => t.key !== key) };
}

/** Type label for the file list. */
export function fileKind(name: string, node: FsNode): string {
  if (node.type === "dir") return "Folder";
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  return ext === "csv"
    ? "Spreadsheet"
    : ext === "txt" || ext === "md"
      ? "Text"
      : ext
        ? ext.toUpperCase() + " file"
        : "File";
}

/** Which app opens a file. */
export function appFor(name: string): "editor" | "sheet" {
  return name.toLowerCase().endsWith(".csv") ? "sheet" : "editor";
}
