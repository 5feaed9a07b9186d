/** Task setup (initial state) for SimDesk: files, Trash, settings, open windows, clipboard. */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import { APPS, SETTINGS_PAGES, type DeskState, type NoiseState } from "./types.ts";
import { CONFIG_PATH, dirname, HOME, join, resolvePath, subtree } from "./vfs.ts";
import { DEFAULT_SETTINGS, settingsText } from "./settings-schema.ts";
import { loadFile, openApp } from "./apps/open.ts";
import { filesOf, settingsOf } from "./apps/app.ts";

/** zod schema of {@link SimDeskSetup}. */
export const SimDeskSetupSchema = z
  .object({
    /** Files and folders to create: path ("~/Documents/a.txt") -> text, or null for a folder. */
    files: z.record(z.string(), z.string().nullable()).default({}),
    /** Items already in the Trash: original path and text (null = folder). */
    trash: z.array(z.object({ from: z.string(), text: z.string().nullable().default("") })).default([]),
    /** Settings to start from (others take their defaults). */
    settings: z.record(z.string(), z.union([z.string(), z.boolean()])).default({}),
    /** Windows open at the start, bottom to top: an app, with a file to load, a folder or a page. */
    open: z
      .array(
        z.object({
          app: z.enum(APPS),
          path: z.string().optional(),
          cwd: z.string().optional(),
          page: z.enum(SETTINGS_PAGES).optional(),
        }),
      )
      .default([]),
    /** Text on the clipboard at the start. */
    clipboard: z.string().optional(),
  })
  .strict();

/** A SimDesk task's `setup`. */
export type SimDeskSetup = z.input<typeof SimDeskSetupSchema>;

const STANDARD_DIRS = ["Desktop", "Documents", "Downloads", "Pictures"];

function mkdirs(fs: DeskState["fs"], dir: string): void {
  const segs = dir.split("/").filter(Boolean);
  for (let i = 0; i <= segs.length; i++) {
    const p = "/" + segs.slice(0, i).join("/");
    if (!fs[p]) fs[p] = { type: "dir" };
  }
}

/** Build the initial desktop state of a setup. Throws ConfigError naming the bad field. */
export function initialState(setup: unknown, noise: Omit<NoiseState, "tick" | "popup"> | null): DeskState {
  const parsed = SimDeskSetupSchema.safeParse(setup ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`task setup: ${issue.path.join(".") || "(root)"}: ${issue.message}`, {
      field: `setup.${issue.path.join(".")}`,
    });
  }
  const su = parsed.data;
  const s: DeskState = {
    v: 1,
    fs: {},
    trash: [],
    clipboard: { kind: "empty" },
    windows: [],
    pointer: { x: 640, y: 400 },
    held: [],
    noise: noise ? { ...noise, tick: 0 } : null,
  };
  mkdirs(s.fs, HOME);
  for (const d of STANDARD_DIRS) s.fs[join(HOME, d)] = { type: "dir" };
  mkdirs(s.fs, dirname(CONFIG_PATH));
  for (const key of Object.keys(su.settings)) {
    if (!(key in DEFAULT_SETTINGS))
      throw new ConfigError(
        `task setup: settings.${key} is not a SimDesk setting (known: ${Object.keys(DEFAULT_SETTINGS).join(", ")})`,
        { field: `setup.settings.${key}` },
      );
  }
  s.fs[CONFIG_PATH] = { type: "file", text: settingsText({ ...DEFAULT_SETTINGS, ...su.settings }) };
  for (const [raw, text] of Object.entries(su.files)) {
    const p = resolvePath(raw, HOME);
    mkdirs(s.fs, dirname(p));
    if (text === null) mkdirs(s.fs, p);
    else s.fs[p] = { type: "file", text };
  }
  for (const item of su.trash) {
    const from = resolvePath(item.from, HOME);
    const name = from.slice(from.lastIndexOf("/") + 1);
    const node = item.text === null ? ({ type: "dir" } as const) : ({ type: "file", text: item.text } as const);
    let key = name;
    for (let i = 2; s.trash.some((t) => t.key === key); i++) key = `${name} (${i})`;
    s.trash.push({ key, from, tree: { "": node } });
  }
  s.trash.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (su.clipboard !== undefined) s.clipboard = { kind: "text", text: su.clipboard };
  for (const o of su.open) {
    if (o.path) {
      const p = resolvePath(o.path, HOME);
      if (s.fs[p]?.type !== "file")
        throw new ConfigError(`task setup: open.path ${o.path} is not a file of the setup`, { field: "setup.open" });
      loadFile(s, p);
    } else {
      const win = openApp(s, o.app);
      if (o.cwd && o.app === "files") filesOf(win).cwd = o.cwd === "trash" ? "trash" : resolvePath(o.cwd, HOME);
      if (o.page && o.app === "settings") settingsOf(win).page = o.page;
    }
  }
  return s;
}

export { subtree };
