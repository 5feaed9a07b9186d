/**
 * Pure transitions: (state, action, screen size) -> (state, info). Pixel coordinates are
 * hit-tested against the UI tree built from the state; keys go to the focused window.
 * An input that hits nothing is a no-op (`info.noop = true`), never an exception.
 */
import type { Action } from "@retrace-cua/core/action";
import { createRng } from "@retrace-cua/core/rng";
import type { AppId, DeskState } from "./types.ts";
import { TASKBAR_H, type Cmd, type UiNode } from "./ui-types.ts";
import { buildUi, hitPath, interactive, topWindow, windowOfPath } from "./ui.ts";
import { APP_MODULES } from "./apps/registry.ts";
import type { InputEvent } from "./apps/app.ts";
import { closeWindow, dialogButton, dialogKey, dialogType } from "./apps/dialogs.ts";
import { openApp, raise } from "./apps/open.ts";
import { readSettings, writeSetting } from "./settings-schema.ts";
import { redactText } from "@retrace-cua/core/secrets";

/** What happened when an action was applied. */
export interface ActionInfo {
  /** Nothing was hit or handled. */
  noop: boolean;
  /** Id of the widget the pointer action hit. */
  hit?: string;
  /** DONE or FAIL. */
  terminal?: boolean;
}

const MODIFIERS = new Set(["ctrl", "alt", "shift", "win", "cmd", "super"]);
const ALIASES: Record<string, string> = {
  return: "enter",
  esc: "escape",
  del: "delete",
  control: "ctrl",
  ctrlleft: "ctrl",
  ctrlright: "ctrl",
  shiftleft: "shift",
  shiftright: "shift",
  altleft: "alt",
  altright: "alt",
  command: "cmd",
  pgup: "pageup",
  pgdn: "pagedown",
  " ": "space",
  arrowleft: "left",
  arrowright: "right",
  arrowup: "up",
  arrowdown: "down",
};

/** Normalise a key name to SimDesk's lower-case form. */
export function normKey(k: string): string {
  const low = k.length === 1 ? k : k.toLowerCase();
  return ALIASES[low.toLowerCase()] ?? (low.length === 1 ? low : low);
}

/** A key combo in canonical order: "ctrl+alt+shift+key". */
export function combo(keys: string[]): string {
  const ks = keys.map(normKey);
  const mods = ["ctrl", "alt", "shift"].filter((m) => ks.includes(m));
  const rest = ks.filter((k) => !MODIFIERS.has(k));
  const main = rest[rest.length - 1];
  let key = main ?? "";
  // Shortcuts are case-insensitive ("ctrl+A" = "ctrl+a"); a bare "A" still types a capital.
  if (key.length === 1 && mods.length > 0) key = key.toLowerCase();
  return [...mods, key].filter(Boolean).join("+");
}

function ev(s: DeskState, x: number, y: number, clicks = 1): InputEvent {
  return { x, y, clicks, shift: s.held.includes("shift"), ctrl: s.held.includes("ctrl") };
}

/** Run a widget command. */
function runCmd(s: DeskState, cmd: Cmd, e: InputEvent): boolean {
  switch (cmd.op) {
    case "win.focus":
      raise(s, cmd.a as AppId);
      return true;
    case "win.close":
      return closeWindow(s, cmd.a as AppId);
    case "win.min": {
      const w = s.windows.find((x) => x.id === cmd.a);
      if (!w) return false;
      w.minimized = true;
      return true;
    }
    case "launch":
      openApp(s, cmd.a as AppId);
      return true;
    case "task": {
      const w = s.windows.find((x) => x.id === cmd.a);
      if (!w) return false;
      if (topWindow(s) === w) w.minimized = true;
      else raise(s, w.id);
      return true;
    }
    case "menu.open":
      s.menu = s.menu?.win === cmd.a && s.menu?.name === cmd.b ? undefined : { win: cmd.a as AppId, name: cmd.b! };
      return true;
    case "menu.none":
      return true;
    case "popup.dismiss":
      if (s.noise) s.noise.popup = undefined;
      return true;
    case "dlg": {
      const w = topWindow(s);
      return w?.dialog ? dialogButton(s, w, cmd.a!, cmd.b) : false;
    }
  }
  const app = cmd.op.slice(0, cmd.op.indexOf(".")) as AppId;
  const win = s.windows.find((w) => w.id === app);
  if (!win || !APP_MODULES[app]) return false;
  return APP_MODULES[app].command(s, win, cmd, e);
}

function clickAt(s: DeskState, ui: UiNode, x: number, y: number, button: string, clicks: number): ActionInfo {
  const path = hitPath(ui, x, y);
  let node: UiNode | undefined;
  for (let i = path.length - 1; i > 0; i--)
    if (interactive(path[i])) {
      node = path[i];
      break;
    }
  if (s.menu) {
    const inMenu = path.some((n) => n.style === "menu");
    const menuLabel = node?.click?.op === "menu.open";
    if (!inMenu && !menuLabel) {
      s.menu = undefined;
      return { noop: false, hit: node?.id };
    }
  }
  if (!node) return { noop: true };
  if (node.id === "popup") {
    runCmd(s, node.click!, ev(s, x, y));
    return { noop: false, hit: node.id };
  }
  const owner = windowOfPath(path);
  const inMenu = path.some((n) => n.style === "menu");
  if (owner && !inMenu && topWindow(s)?.id !== owner) raise(s, owner);
  const e = ev(s, x, y, clicks);
  let handled = false;
  if (button === "right") {
    if (node.ctx) handled = runCmd(s, node.ctx, e);
    else handled = owner !== undefined;
  } else if (button === "middle") handled = owner !== undefined;
  else {
    if (node.click) handled = runCmd(s, node.click, { ...e, clicks: 1 });
    if (clicks >= 2 && node.dbl) handled = runCmd(s, node.dbl, e) || handled;
    else if (clicks >= 2 && node.click && node.click.op.endsWith(".click"))
      handled = runCmd(s, node.click, e) || handled;
  }
  if (inMenu && node.click && node.click.op !== "menu.none") s.menu = undefined;
  return { noop: !handled, hit: node.id };
}

function dragFrom(s: DeskState, ui: UiNode, fx: number, fy: number, tx: number, ty: number): ActionInfo {
  if (s.menu) {
    s.menu = undefined;
    return { noop: false };
  }
  if (Math.abs(fx - tx) + Math.abs(fy - ty) < 4) return clickAt(s, ui, tx, ty, "left", 1);
  const from = hitPath(ui, fx, fy);
  let src: UiNode | undefined;
  for (let i = from.length - 1; i > 0; i--)
    if (from[i].drag) {
      src = from[i];
      break;
    }
  if (!src) return { noop: true };
  const owner = windowOfPath(from);
  if (owner && topWindow(s)?.id !== owner) raise(s, owner);
  if (src.drag!.startsWith("title:")) {
    const w = s.windows.find((x) => x.id === src!.drag!.slice(6));
    if (!w) return { noop: true };
    w.x = Math.round(w.x + tx - fx);
    w.y = Math.max(TASKBAR_H, Math.round(w.y + ty - fy));
    return { noop: false, hit: src.id };
  }
  const to = hitPath(ui, tx, ty);
  let dst: string | undefined;
  for (let i = to.length - 1; i > 0; i--)
    if (to[i].drop) {
      dst = to[i].drop;
      break;
    }
  const win = owner ? s.windows.find((w) => w.id === owner) : undefined;
  const mod = owner ? APP_MODULES[owner] : undefined;
  const handled = win && mod?.drag ? mod.drag(s, win, src.drag!, dst, ev(s, fx, fy), ev(s, tx, ty)) : false;
  return { noop: !handled, hit: src.id };
}

function keyPress(s: DeskState, c: string): boolean {
  if (!c) return false;
  if (s.menu) {
    s.menu = undefined;
    if (c === "escape") return true;
  }
  const top = topWindow(s);
  if (c === "alt+f4" || c === "ctrl+w" || c === "ctrl+q") return top ? closeWindow(s, top.id) : false;
  // System-wide shortcuts with no visible effect (a classic source of latent mistakes).
  if (c === "ctrl+alt+d" || c === "ctrl+alt+l") {
    const key = c === "ctrl+alt+d" ? "notifications.dnd" : "privacy.location";
    s.fs = writeSetting(s.fs, key, readSettings(s.fs)[key] !== true);
    return true;
  }
  if (c === "alt+tab") {
    const visible = s.windows.filter((w) => !w.minimized || s.windows.length > 0);
    if (visible.length < 2) return false;
    raise(s, visible[0].id);
    return true;
  }
  if (!top) return false;
  if (top.dialog) {
    const printable = typedChar(c);
    return printable !== undefined ? dialogType(s, top, printable) : dialogKey(s, top, c);
  }
  const printable = typedChar(c);
  const mod = APP_MODULES[top.id];
  if (printable !== undefined) return mod.type(s, top, printable);
  return mod.key(s, top, c);
}

/** A combo that types one character ("a", "shift+a", "space"), or undefined. */
function typedChar(c: string): string | undefined {
  if (c === "space") return " ";
  if (c.length === 1) return c;
  if (c.startsWith("shift+") && c.length === 7) return c[6].toUpperCase();
  return undefined;
}

function typeText(s: DeskState, text: string): boolean {
  if (s.menu) s.menu = undefined;
  const top = topWindow(s);
  if (!top) return false;
  if (top.dialog) return dialogType(s, top, text);
  return APP_MODULES[top.id].type(s, top, text);
}

/** Advance the seeded noise by one step: the clock ticks, pop-ups come and go. */
function advanceNoise(s: DeskState): void {
  const n = s.noise;
  if (!n) return;
  n.tick += 1;
  if (n.popup && n.tick >= n.popup.until) n.popup = undefined;
  if (!n.popups || n.popup || readSettings(s.fs)["notifications.dnd"] === true) return;
  const rng = createRng(n.seed, "simdesk-popup", n.tick);
  if (rng.chance(0.18)) {
    const texts = [
      "Update available: restart to install",
      "Battery at 20%",
      "New message from Sam",
      "Backup finished",
      "Wi-Fi: connected",
      "Calendar: stand-up in 5 min",
    ];
    n.popup = { text: rng.pick(texts), until: n.tick + rng.int(2, 4) };
  }
}

/** Apply one action. The input state is not modified. */
export function applyAction(
  state: DeskState,
  action: Action,
  width: number,
  height: number,
): { state: DeskState; info: ActionInfo } {
  const s = structuredClone(state);
  let info: ActionInfo = { noop: false };
  const ui = () => buildUi(s, width, height);
  const pt = (x?: number, y?: number) => {
    if (x !== undefined && y !== undefined) s.pointer = { x: Math.round(x), y: Math.round(y) };
    return s.pointer;
  };
  switch (action.type) {
    case "MOVE_TO":
      pt(action.x, action.y);
      break;
    case "CLICK": {
      const p = pt(action.x, action.y);
      info = clickAt(s, ui(), p.x, p.y, action.button, action.numClicks);
      break;
    }
    case "RIGHT_CLICK": {
      const p = pt(action.x, action.y);
      info = clickAt(s, ui(), p.x, p.y, "right", 1);
      break;
    }
    case "DOUBLE_CLICK": {
      const p = pt(action.x, action.y);
      info = clickAt(s, ui(), p.x, p.y, "left", 2);
      break;
    }
    case "MOUSE_DOWN":
      s.mouseDown = { ...s.pointer, button: action.button };
      break;
    case "MOUSE_UP": {
      const down = s.mouseDown;
      s.mouseDown = undefined;
      if (!down) info = { noop: true };
      else if (down.button !== "left") info = clickAt(s, ui(), s.pointer.x, s.pointer.y, down.button, 1);
      else info = dragFrom(s, ui(), down.x, down.y, s.pointer.x, s.pointer.y);
      break;
    }
    case "DRAG_TO": {
      const from = { ...s.pointer };
      pt(action.x, action.y);
      info = dragFrom(s, ui(), from.x, from.y, s.pointer.x, s.pointer.y);
      break;
    }
    case "SCROLL": {
      const p = pt(action.x, action.y);
      const path = hitPath(ui(), p.x, p.y);
      const target = [...path].reverse().find((n) => n.scroll);
      const owner = windowOfPath(path);
      const win = owner ? s.windows.find((w) => w.id === owner) : undefined;
      const mod = owner ? APP_MODULES[owner] : undefined;
      const handled =
        target && win && !win.dialog && mod?.scroll ? mod.scroll(s, win, target.scroll!, action.dy) : false;
      info = { noop: !handled, hit: target?.id };
      break;
    }
    case "TYPING":
      // A secret the agent types (a registered API key, anything key-like) never enters the desk:
      // the state, its snapshots (simdesk-states/), its screens (.svgz/.png, rendered from the state)
      // and its accessibility tree all hold "[redacted]" instead (docs/reliability.md).
      info = { noop: !typeText(s, redactText(action.text)) };
      break;
    case "PRESS":
      info = { noop: !keyPress(s, combo([...s.held, action.key])) };
      break;
    case "HOTKEY":
      info = { noop: !keyPress(s, combo([...s.held, ...action.keys])) };
      break;
    case "KEY_DOWN": {
      const k = normKey(action.key);
      if (MODIFIERS.has(k)) {
        if (!s.held.includes(k)) s.held = [...s.held, k].sort();
      } else info = { noop: !keyPress(s, combo([...s.held, k])) };
      break;
    }
    case "KEY_UP": {
      const k = normKey(action.key);
      info = { noop: !s.held.includes(k) };
      s.held = s.held.filter((h) => h !== k);
      break;
    }
    case "WAIT":
      break;
    case "DONE":
    case "FAIL":
      info = { noop: true, terminal: true };
      break;
  }
  advanceNoise(s);
  return { state: s, info };
}
