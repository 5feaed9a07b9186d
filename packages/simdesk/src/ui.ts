/** Builds the UI tree (taskbar, windows, menus, dialogs, pop-ups) from the state. */
import { APPS, type AppId, type DeskState, type Win } from "./types.ts";
import {
  APP_TITLES,
  contains,
  MENU_ITEM_H,
  MENU_W,
  MENUBAR_H,
  TASKBAR_H,
  TITLE_H,
  type Rect,
  type UiContext,
  type UiNode,
} from "./ui-types.ts";
import { APP_MODULES } from "./apps/registry.ts";
import { bodyRect, HAS_MENUBAR, windowRect } from "./apps/geometry.ts";
import { dialogUi } from "./apps/dialogs.ts";
import { ACCENTS, readSettings } from "./settings-schema.ts";

const LAUNCHER_W = 96;
const TASK_X = 8 + APPS.length * (LAUNCHER_W + 6) + 20;
const TASK_W = 170;

/** Rendering context for a state at a screen size. */
export function uiContext(s: DeskState, width: number, height: number): UiContext {
  const values = readSettings(s.fs);
  return {
    width,
    height,
    accent: ACCENTS[String(values["appearance.accent"])] ?? ACCENTS.blue,
    largeTitles: values["appearance.largeText"] === true,
  };
}

/** The topmost visible window (it has the keyboard focus). */
export function topWindow(s: DeskState): Win | undefined {
  for (let i = s.windows.length - 1; i >= 0; i--) if (!s.windows[i].minimized) return s.windows[i];
  return undefined;
}

function menubarLabelRect(win: Win, index: number): Rect {
  const [x, y] = windowRect(win);
  return [x + 6 + index * 64, y + TITLE_H + 2, 60, MENUBAR_H - 4];
}

function stripHandlers(n: UiNode): UiNode {
  return {
    ...n,
    click: undefined,
    dbl: undefined,
    ctx: undefined,
    drag: undefined,
    drop: undefined,
    scroll: undefined,
    states: [...(n.states ?? []), "inert"],
    children: n.children?.map(stripHandlers),
  };
}

function windowUi(s: DeskState, win: Win, ctx: UiContext): UiNode {
  const mod = APP_MODULES[win.id];
  const rect = windowRect(win);
  const [x, y, w] = rect;
  const focused = topWindow(s) === win;
  const title = mod.title(s, win);
  const children: UiNode[] = [
    {
      id: `${win.id}.titlebar`,
      role: "title bar",
      name: title,
      text: title,
      rect: [x, y, w, TITLE_H],
      style: "titlebar",
      states: focused ? ["active"] : undefined,
      click: { op: "win.focus", a: win.id },
      drag: `title:${win.id}`,
      children: [
        {
          id: `${win.id}.minimize`,
          role: "button",
          name: "Minimize",
          text: "–",
          rect: [x + w - 66, y + 4, 28, 22],
          style: "winbtn",
          click: { op: "win.min", a: win.id },
        },
        {
          id: `${win.id}.close`,
          role: "button",
          name: "Close",
          text: "×",
          rect: [x + w - 34, y + 4, 28, 22],
          style: "winbtn close",
          click: { op: "win.close", a: win.id },
        },
      ],
    },
  ];
  let body: UiNode[] = [];
  if (HAS_MENUBAR[win.id]) {
    const names = Object.keys(mod.menus(s, win)).filter((n) => n !== "context");
    body.push({
      id: `${win.id}.menubar`,
      role: "menu bar",
      name: "Menu",
      rect: [x, y + TITLE_H, w, MENUBAR_H],
      style: "menubar",
      children: names.map((name, i) => ({
        id: `${win.id}.menu.${name}`,
        role: "menu",
        name,
        text: name,
        rect: menubarLabelRect(win, i),
        style: "menulabel",
        states: s.menu?.win === win.id && s.menu.name === name ? ["expanded"] : undefined,
        click: { op: "menu.open", a: win.id, b: name },
      })),
    });
  }
  body.push(...mod.body(s, win, ctx, bodyRect(win)));
  if (win.dialog) body = body.map(stripHandlers);
  children.push(...body);
  if (win.dialog) children.push(dialogUi(win));
  return {
    id: `${win.id}.window`,
    role: "window",
    name: title,
    rect,
    style: "window",
    states: focused ? ["active", "focused"] : undefined,
    click: { op: "win.focus", a: win.id },
    children,
    data: { app: win.id },
  };
}

function menuUi(s: DeskState, ctx: UiContext): UiNode | undefined {
  const m = s.menu;
  if (!m) return undefined;
  const win = s.windows.find((w) => w.id === m.win);
  if (!win) return undefined;
  const items = APP_MODULES[win.id].menus(s, win)[m.name];
  if (!items) return undefined;
  let x: number;
  let y: number;
  if (m.name === "context") {
    x = Math.min(m.x ?? 0, ctx.width - MENU_W - 2);
    y = Math.min(m.y ?? 0, ctx.height - items.length * MENU_ITEM_H - 10);
  } else {
    const names = Object.keys(APP_MODULES[win.id].menus(s, win)).filter((n) => n !== "context");
    const r = menubarLabelRect(win, names.indexOf(m.name));
    x = r[0];
    y = r[1] + r[3] + 2;
  }
  return {
    id: `menu.${m.name}`,
    role: "menu",
    name: m.name === "context" ? "Context menu" : m.name,
    rect: [x, y, MENU_W, items.length * MENU_ITEM_H + 8],
    style: "menu",
    states: ["expanded"],
    click: { op: "menu.none" },
    children: items.map((it, i) => ({
      id: `menu.item.${it.label.replace(/…$/, "")}`,
      role: "menu item",
      name: it.label,
      text: it.label,
      rect: [x + 4, y + 4 + i * MENU_ITEM_H, MENU_W - 8, MENU_ITEM_H] as Rect,
      style: "menuitem",
      states: it.disabled ? ["disabled"] : undefined,
      click: it.disabled ? undefined : it.cmd,
      data: { shortcut: it.shortcut ?? "" },
    })),
  };
}

function taskbarUi(s: DeskState, ctx: UiContext): UiNode {
  const top = topWindow(s);
  const children: UiNode[] = APPS.map((app, i) => ({
    id: `taskbar.launch.${app}`,
    role: "button",
    name: `Launch ${APP_TITLES[app]}`,
    text: APP_TITLES[app] === "Text Editor" ? "Editor" : APP_TITLES[app],
    rect: [8 + i * (LAUNCHER_W + 6), 4, LAUNCHER_W, TASKBAR_H - 8] as Rect,
    style: "launcher",
    click: { op: "launch", a: app },
  }));
  const open = APPS.filter((a) => s.windows.some((w) => w.id === a));
  open.forEach((app, i) => {
    const win = s.windows.find((w) => w.id === app)!;
    children.push({
      id: `taskbar.task.${app}`,
      role: "button",
      name: APP_MODULES[app].title(s, win),
      text: APP_MODULES[app].title(s, win),
      rect: [TASK_X + i * (TASK_W + 6), 4, TASK_W, TASKBAR_H - 8],
      style: "taskitem",
      states: [top === win ? "active" : "", win.minimized ? "minimized" : ""].filter(Boolean),
      click: { op: "task", a: app },
    });
  });
  if (s.noise?.clock) {
    const minutes = 9 * 60 + s.noise.tick;
    const text = `${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
    children.push({
      id: "taskbar.clock",
      role: "label",
      name: "Clock",
      text,
      rect: [ctx.width - 80, 4, 72, TASKBAR_H - 8],
      style: "clock",
    });
  }
  return {
    id: "taskbar",
    role: "tool bar",
    name: "Taskbar",
    rect: [0, 0, ctx.width, TASKBAR_H],
    style: "taskbar",
    children,
  };
}

/** Rect of the notification pop-up (bottom right). */
export function popupRect(ctx: { width: number; height: number }): Rect {
  return [ctx.width - 340, ctx.height - 90, 320, 70];
}

/** The whole screen's UI tree, in paint order. */
export function buildUi(s: DeskState, width: number, height: number): UiNode {
  const ctx = uiContext(s, width, height);
  const children: UiNode[] = [];
  for (const win of s.windows) if (!win.minimized) children.push(windowUi(s, win, ctx));
  const menu = menuUi(s, ctx);
  if (menu) children.push(menu);
  children.push(taskbarUi(s, ctx));
  if (s.noise?.popup) {
    children.push({
      id: "popup",
      role: "alert",
      name: "Notification",
      text: s.noise.popup.text,
      rect: popupRect(ctx),
      style: "popup",
      click: { op: "popup.dismiss" },
    });
  }
  return {
    id: "desktop",
    role: "desktop frame",
    name: "Desktop",
    rect: [0, 0, width, height],
    style: "desktop",
    children,
    data: { ctx },
  };
}

/** Does a node react to input? */
export function interactive(n: UiNode): boolean {
  return Boolean(n.click || n.dbl || n.ctx || n.drag);
}

/** The path from the root to the deepest interactive node at (x, y), topmost first-painted-last. */
export function hitPath(root: UiNode, x: number, y: number): UiNode[] {
  const visit = (n: UiNode, path: UiNode[]): UiNode[] | null => {
    if (n !== root && !contains(n.rect, x, y)) return null;
    const here = [...path, n];
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) {
      const r = visit(kids[i], here);
      if (r) return r;
    }
    return n === root ? here : interactive(n) || n.drop || n.scroll ? here : null;
  };
  return visit(root, []) ?? [root];
}

/** The deepest interactive node at (x, y), or undefined. */
export function hitNode(root: UiNode, x: number, y: number): UiNode | undefined {
  const path = hitPath(root, x, y);
  for (let i = path.length - 1; i > 0; i--) if (interactive(path[i])) return path[i];
  return undefined;
}

/** The app window a hit path falls in. */
export function windowOfPath(path: UiNode[]): AppId | undefined {
  const w = path.find((n) => n.style === "window");
  return w?.data?.app as AppId | undefined;
}
