/**
 * Our `Action` union on a Playwright page: mouse and keyboard input at viewport coordinates
 * (pyautogui key names translated to Playwright's), then waiting until any navigation the action
 * started has loaded. Nothing is evaluated in the page: a model's action stays input events.
 */
import type { Page } from "playwright-core";
import type { Action } from "@retrace-cua/core/action";

const KEYS: Record<string, string> = {
  enter: "Enter",
  return: "Enter",
  tab: "Tab",
  space: " ",
  backspace: "Backspace",
  delete: "Delete",
  del: "Delete",
  esc: "Escape",
  escape: "Escape",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  pagedown: "PageDown",
  pgup: "PageUp",
  pgdn: "PageDown",
  insert: "Insert",
  ctrl: "Control",
  ctrlleft: "Control",
  ctrlright: "Control",
  control: "Control",
  shift: "Shift",
  shiftleft: "Shift",
  shiftright: "Shift",
  alt: "Alt",
  altleft: "Alt",
  altright: "Alt",
  win: "Meta",
  winleft: "Meta",
  command: "Meta",
  cmd: "Meta",
  super: "Meta",
  meta: "Meta",
};

/** A pyautogui key name as a Playwright key ("ctrl" -> "Control", "f5" -> "F5", "a" -> "a"). */
export function playwrightKey(key: string): string {
  const k = key.toLowerCase();
  if (KEYS[k]) return KEYS[k];
  if (/^f([1-9]|1[0-2])$/.test(k)) return k.toUpperCase();
  return key.length === 1 ? key : key[0].toUpperCase() + key.slice(1);
}

/** Longest WAIT honoured, in seconds (a model asking for minutes should not stall the run). */
export const MAX_WAIT_SECONDS = 10;
/** Pixels per SCROLL click. */
export const SCROLL_PIXELS = 100;

/** Pointer position kept between actions (CLICK without coordinates clicks where the pointer is). */
export interface Pointer {
  x: number;
  y: number;
}

/** Facts about one executed action (`noop` when it could do nothing, with why). */
export interface ActionInfo {
  noop?: boolean;
  reason?: string;
  /** A navigation the action started (form post, link). */
  navigated?: boolean;
}

/**
 * In-page marker of a navigation an input event started: a form submission or a link click
 * nobody prevented, or an unload. Input events dispatch synchronously, so the flag is set by the
 * time the input call returns, even on a loaded machine where the request itself starts later.
 */
const NAV_MARKER = `(() => {
  const mark = () => { window.__retraceNav = 1; };
  addEventListener('submit', (e) => { if (!e.defaultPrevented) mark(); });
  addEventListener('click', (e) => { const a = e.target && e.target.closest && e.target.closest('a[href]'); if (a && !e.defaultPrevented && !a.getAttribute('href').startsWith('#') && a.target !== '_blank') mark(); });
  addEventListener('beforeunload', mark);
})();`;

/** Longest wait for a page an action caused to load, in ms. */
export const NAVIGATION_TIMEOUT_MS = 15_000;

/**
 * Waits for the page an action caused. Install once per page (before its first navigation).
 */
export class NavigationTracker {
  private loads = 0;
  private constructor(private readonly page: Page) {
    page.on("load", () => {
      this.loads++;
    });
  }

  /** Track navigations of `page` (adds the in-page marker to every document it loads). */
  static async install(page: Page): Promise<NavigationTracker> {
    await page.addInitScript(NAV_MARKER);
    return new NavigationTracker(page);
  }

  /** Mark the start of an action. */
  mark(): number {
    return this.loads;
  }

  /** Wait until a navigation the action started since `mark` has loaded; true when there was one. */
  async settle(mark: number): Promise<boolean> {
    let pending: boolean;
    try {
      pending = this.loads > mark || (await this.page.evaluate("window.__retraceNav === 1")) === true;
    } catch {
      pending = true; // the old document is gone: a navigation committed
    }
    if (!pending) return false;
    const deadline = Date.now() + NAVIGATION_TIMEOUT_MS;
    while (this.loads === mark && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
    return true;
  }
}

/** Execute one action on the page. Terminal actions (DONE/FAIL) never reach an environment. */
export async function performAction(
  page: Page,
  action: Action,
  pointer: Pointer,
  nav: NavigationTracker,
): Promise<ActionInfo> {
  const mark = nav.mark();
  const info: ActionInfo = {};
  const move = async (x?: number, y?: number) => {
    if (x === undefined || y === undefined) return;
    pointer.x = x;
    pointer.y = y;
    await page.mouse.move(x, y);
  };
  switch (action.type) {
    case "MOVE_TO":
      await move(action.x, action.y);
      break;
    case "CLICK":
      await move(action.x, action.y);
      await page.mouse.click(pointer.x, pointer.y, { button: action.button, clickCount: action.numClicks });
      break;
    case "RIGHT_CLICK":
      await move(action.x, action.y);
      await page.mouse.click(pointer.x, pointer.y, { button: "right" });
      break;
    case "DOUBLE_CLICK":
      await move(action.x, action.y);
      await page.mouse.dblclick(pointer.x, pointer.y);
      break;
    case "MOUSE_DOWN":
      await page.mouse.down({ button: action.button });
      break;
    case "MOUSE_UP":
      await page.mouse.up({ button: action.button });
      break;
    case "DRAG_TO":
      await page.mouse.down();
      pointer.x = action.x;
      pointer.y = action.y;
      await page.mouse.move(action.x, action.y, { steps: 8 });
      await page.mouse.up();
      break;
    case "SCROLL":
      await move(action.x, action.y);
      await page.mouse.wheel(action.dx * SCROLL_PIXELS, -action.dy * SCROLL_PIXELS);
      break;
    case "TYPING":
      // Runs of printable text arrive as one text insertion (input events, as an IME commits);
      // newlines and tabs are key presses, so Enter still submits and Tab still moves focus.
      for (const part of action.text.split(/([\n\t])/)) {
        if (part === "\n") await page.keyboard.press("Enter");
        else if (part === "\t") await page.keyboard.press("Tab");
        else if (part) await page.keyboard.insertText(part);
      }
      break;
    case "PRESS":
      await page.keyboard.press(playwrightKey(action.key));
      break;
    case "KEY_DOWN":
      await page.keyboard.down(playwrightKey(action.key));
      break;
    case "KEY_UP":
      await page.keyboard.up(playwrightKey(action.key));
      break;
    case "HOTKEY":
      await page.keyboard.press(action.keys.map(playwrightKey).join("+"));
      break;
    case "WAIT":
      await new Promise((r) => setTimeout(r, 1000 * Math.min(action.seconds ?? 1, MAX_WAIT_SECONDS)));
      break;
    case "DONE":
    case "FAIL":
      return { noop: true, reason: `${action.type} is terminal; the runtime ends the episode` };
  }
  if (await nav.settle(mark)) info.navigated = true;
  return info;
}
