/**
 * Maps retrace `Action`s to xdotool command lines. Pure: the desktop backends run the argv.
 * Key names are pyautogui's (see packages/core/src/action.ts) and become X keysyms here.
 */
import type { Action, MouseButton } from "@retrace-cua/core/action";

/** What to run for one action: xdotool command lines run in order, or a plain wait. */
export type XdoPlan =
  | { kind: "xdotool"; argvs: string[][] }
  | { kind: "wait"; ms: number }
  | { kind: "none" }
  /** The action cannot be executed as given (unknown key): a no-op with a reason, not a crash. */
  | { kind: "invalid"; reason: string };

const BUTTONS: Record<MouseButton, string> = { left: "1", middle: "2", right: "3" };

const KEYSYMS: Record<string, string> = {
  enter: "Return",
  return: "Return",
  "\n": "Return",
  "\r": "Return",
  tab: "Tab",
  "\t": "Tab",
  space: "space",
  " ": "space",
  esc: "Escape",
  escape: "Escape",
  backspace: "BackSpace",
  delete: "Delete",
  del: "Delete",
  insert: "Insert",
  home: "Home",
  end: "End",
  pageup: "Prior",
  pgup: "Prior",
  pagedown: "Next",
  pgdn: "Next",
  up: "Up",
  down: "Down",
  left: "Left",
  right: "Right",
  ctrl: "ctrl",
  ctrlleft: "Control_L",
  ctrlright: "Control_R",
  control: "ctrl",
  alt: "alt",
  altleft: "Alt_L",
  altright: "Alt_R",
  option: "alt",
  shift: "shift",
  shiftleft: "Shift_L",
  shiftright: "Shift_R",
  win: "super",
  winleft: "Super_L",
  winright: "Super_R",
  super: "super",
  command: "super",
  cmd: "super",
  meta: "super",
  capslock: "Caps_Lock",
  numlock: "Num_Lock",
  scrolllock: "Scroll_Lock",
  printscreen: "Print",
  prtsc: "Print",
  pause: "Pause",
  menu: "Menu",
  apps: "Menu",
  "+": "plus",
  "-": "minus",
  "*": "asterisk",
  "/": "slash",
  "\\": "backslash",
  "=": "equal",
  ".": "period",
  ",": "comma",
  ";": "semicolon",
  ":": "colon",
  "'": "apostrophe",
  '"': "quotedbl",
  "`": "grave",
  "~": "asciitilde",
  "!": "exclam",
  "@": "at",
  "#": "numbersign",
  $: "dollar",
  "%": "percent",
  "^": "asciicircum",
  "&": "ampersand",
  "(": "parenleft",
  ")": "parenright",
  "[": "bracketleft",
  "]": "bracketright",
  "{": "braceleft",
  "}": "braceright",
  "<": "less",
  ">": "greater",
  "?": "question",
  "|": "bar",
  _: "underscore",
  volumeup: "XF86AudioRaiseVolume",
  volumedown: "XF86AudioLowerVolume",
  volumemute: "XF86AudioMute",
};

/** The X keysym for a pyautogui key name, or undefined when it has none. */
export function keysym(key: string): string | undefined {
  const k = key.length === 1 ? key : key.toLowerCase();
  if (KEYSYMS[k]) return KEYSYMS[k];
  if (/^[a-zA-Z0-9]$/.test(k)) return k;
  const f = /^f([1-9]|1[0-9]|2[0-4])$/.exec(k);
  if (f) return `F${f[1]}`;
  const num = /^num([0-9])$/.exec(k);
  if (num) return `KP_${num[1]}`;
  return undefined;
}

/** Options of {@link planXdotool}. */
export interface XdoOptions {
  /** Delay between typed characters in ms. @default 12 */
  typeDelayMs?: number;
  /** Delay between repeated clicks in ms. @default 60 */
  clickDelayMs?: number;
  /** Largest accepted WAIT in ms. @default 10000 */
  maxWaitMs?: number;
}

const r = (v: number): string => String(Math.round(v));

/** The xdotool command line (or wait) that performs `action`. */
export function planXdotool(action: Action, options: XdoOptions = {}): XdoPlan {
  const typeDelay = String(options.typeDelayMs ?? 12);
  const clickDelay = String(options.clickDelayMs ?? 60);
  const move = (x?: number, y?: number): string[] =>
    x === undefined || y === undefined ? [] : ["mousemove", r(x), r(y)];
  const click = (button: MouseButton, n: number): string[] =>
    n > 1 ? ["click", "--repeat", String(n), "--delay", clickDelay, BUTTONS[button]] : ["click", BUTTONS[button]];
  const keys = (names: string[]): string[] | string => {
    const syms: string[] = [];
    for (const name of names) {
      const s = keysym(name);
      if (!s) return `unknown key "${name}"`;
      syms.push(s);
    }
    return syms;
  };
  const xdo = (...argv: string[]): XdoPlan => ({ kind: "xdotool", argvs: [["xdotool", ...argv]] });

  switch (action.type) {
    case "MOVE_TO":
      return xdo(...move(action.x, action.y));
    case "CLICK":
      // Defaults again here: actions built in code may skip ActionSchema's defaults.
      return xdo(...move(action.x, action.y), ...click(action.button ?? "left", action.numClicks ?? 1));
    case "RIGHT_CLICK":
      return xdo(...move(action.x, action.y), ...click("right", 1));
    case "DOUBLE_CLICK":
      return xdo(...move(action.x, action.y), ...click("left", 2));
    case "MOUSE_DOWN":
      return xdo("mousedown", BUTTONS[action.button ?? "left"]);
    case "MOUSE_UP":
      return xdo("mouseup", BUTTONS[action.button ?? "left"]);
    case "DRAG_TO":
      return xdo("mousedown", "1", "mousemove", r(action.x), r(action.y), "mouseup", "1");
    case "SCROLL": {
      const argv = [...move(action.x, action.y)];
      if (action.dy !== 0)
        argv.push("click", "--repeat", String(Math.abs(action.dy)), "--delay", "20", action.dy > 0 ? "4" : "5");
      if (action.dx !== 0)
        argv.push("click", "--repeat", String(Math.abs(action.dx)), "--delay", "20", action.dx > 0 ? "7" : "6");
      return argv.length ? xdo(...argv) : { kind: "none" };
    }
    case "TYPING": {
      // Newlines are Enter presses, as in pyautogui.write; `xdotool type` would send a
      // Linefeed that spreadsheets and dialogs ignore.
      const argvs: string[][] = [];
      action.text.split(/\r?\n/).forEach((part, i) => {
        if (i > 0) argvs.push(["xdotool", "key", "Return"]);
        if (part) argvs.push(["xdotool", "type", "--delay", typeDelay, "--", part]);
      });
      return argvs.length ? { kind: "xdotool", argvs } : { kind: "none" };
    }
    case "PRESS":
    case "KEY_DOWN":
    case "KEY_UP": {
      const syms = keys([action.key]);
      if (typeof syms === "string") return { kind: "invalid", reason: syms };
      const verb = action.type === "PRESS" ? "key" : action.type === "KEY_DOWN" ? "keydown" : "keyup";
      return xdo(verb, "--clearmodifiers", syms[0]);
    }
    case "HOTKEY": {
      const syms = keys(action.keys);
      if (typeof syms === "string") return { kind: "invalid", reason: syms };
      return xdo("key", "--clearmodifiers", syms.join("+"));
    }
    case "WAIT":
      return { kind: "wait", ms: Math.min((action.seconds ?? 1) * 1000, options.maxWaitMs ?? 10_000) };
    case "DONE":
    case "FAIL":
      return { kind: "none" };
  }
}
