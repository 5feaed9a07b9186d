/**
 * SimDesk's state model. Everything is plain JSON so a state can be hashed, snapshotted, stored
 * and restored. Transitions (engine.ts) map state -> state; rendering (render.ts) only reads it.
 */

/** A node of the virtual file system. Directories have no content. */
export type FsNode = { type: "dir" } | { type: "file"; text: string };

/** Virtual file system: absolute path -> node. Parents always exist. */
export type Fs = Record<string, FsNode>;

/** One item in the Trash: a file or a whole folder tree, with where it came from. */
export interface TrashItem {
  /** Unique key inside the Trash (the original name, suffixed on collision). */
  key: string;
  /** Original absolute path (restore puts it back there). */
  from: string;
  /** The subtree, keyed by path relative to the item ("" = the item itself). */
  tree: Record<string, FsNode>;
}

/** Clipboard content. */
export type Clipboard =
  { kind: "empty" } | { kind: "text"; text: string } | { kind: "files"; op: "cut" | "copy"; paths: string[] };

export const APPS = ["files", "editor", "settings", "sheet"] as const;
/** The four SimDesk apps; each runs as a single window (single instance). */
export type AppId = (typeof APPS)[number];

/** A modal dialog inside a window. */
export type Dialog =
  | { kind: "save-as"; name: string; dir: string; selected: boolean; then?: "close" }
  | { kind: "unsaved"; then: "close" | { open: string } }
  | { kind: "new-folder"; name: string; selected: boolean }
  | { kind: "confirm-empty-trash" }
  | { kind: "confirm-delete"; keys: string[] }
  | { kind: "message"; text: string };

/** File manager window state. `cwd` is an absolute path or "trash". */
export interface FilesView {
  cwd: string;
  /** Selected names in the current folder (Trash: item keys). */
  selected: string[];
  /** Inline rename in progress. `all` = the whole text is selected (typing replaces it). */
  rename?: { name: string; text: string; all: boolean };
  scroll: number;
}

/** Text position as an offset into the document. */
export interface EditorSnap {
  text: string;
  cursor: number;
  /** Selection anchor; the selection is [min(anchor,cursor), max(anchor,cursor)). null = none. */
  anchor: number | null;
}

/** Text editor window state. */
export interface EditorView extends EditorSnap {
  path: string | null;
  /** Text as last saved (dirty = text !== saved). */
  saved: string;
  undo: EditorSnap[];
  redo: EditorSnap[];
  scroll: number;
}

export const SETTINGS_PAGES = ["appearance", "notifications", "power", "privacy"] as const;
export type SettingsPage = (typeof SETTINGS_PAGES)[number];

/** Settings window state; the values themselves live in the config file. */
export interface SettingsView {
  page: SettingsPage;
}

/** Spreadsheet cells: "A1" -> raw input ("12", "=SUM(A1:A3)", "name"). Empty cells are absent. */
export type Cells = Record<string, string>;

/** Spreadsheet window state. */
export interface SheetView {
  path: string | null;
  cells: Cells;
  /** Cells as last saved/opened. */
  saved: Cells;
  sel: string;
  /** In-cell edit in progress. */
  edit?: { text: string };
  undo: Cells[];
  redo: Cells[];
}

/** Per-app view state. */
export type AppView =
  | { app: "files"; files: FilesView }
  | { app: "editor"; editor: EditorView }
  | { app: "settings"; settings: SettingsView }
  | { app: "sheet"; sheet: SheetView };

/** A top-level window. At most one per app; its id is the app id. */
export interface Win {
  id: AppId;
  x: number;
  y: number;
  minimized: boolean;
  view: AppView;
  dialog?: Dialog;
}

/** An open drop-down or context menu. */
export interface OpenMenu {
  win: AppId;
  /** Menubar menu name ("File", "Edit") or "context". */
  name: string;
  /** Top-left of a context menu. */
  x?: number;
  y?: number;
}

/** Seeded noise (notification pop-ups, taskbar clock). Excluded from every hash but stateId. */
export interface NoiseState {
  seed: number;
  popups: boolean;
  clock: boolean;
  /** Steps taken so far; drives the clock and pop-up draws. */
  tick: number;
  popup?: { text: string; until: number };
}

/** The whole desktop. */
export interface DeskState {
  v: 1;
  fs: Fs;
  trash: TrashItem[];
  clipboard: Clipboard;
  /** Windows in z-order, last = top. */
  windows: Win[];
  menu?: OpenMenu;
  pointer: { x: number; y: number };
  /** Mouse button held since MOUSE_DOWN, with where it went down. */
  mouseDown?: { x: number; y: number; button: string };
  /** Keys held via KEY_DOWN (lower case). */
  held: string[];
  noise: NoiseState | null;
}

/** Screen size in pixels. */
export interface ScreenSize {
  width: number;
  height: number;
}
