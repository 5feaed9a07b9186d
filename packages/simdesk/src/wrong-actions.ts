/** Plausible wrong actions in a state: clicks on widgets off the path, stray keys, stray text. */
import type { Action } from "@retrace-cua/core/action";
import type { Rng } from "@retrace-cua/core/rng";
import type { DeskState } from "./types.ts";
import { center, contains, walk, type UiNode } from "./ui-types.ts";
import { buildUi, hitNode, interactive } from "./ui.ts";

const STRAY_KEYS: Action[] = [
  { type: "PRESS", key: "escape" },
  { type: "PRESS", key: "delete" },
  { type: "PRESS", key: "enter" },
  { type: "PRESS", key: "backspace" },
  { type: "HOTKEY", keys: ["ctrl", "z"] },
  { type: "HOTKEY", keys: ["ctrl", "a"] },
  { type: "PRESS", key: "tab" },
];

const SKIP = new Set(["window", "titlebar", "list", "textarea", "menu", "dialog"]);

/**
 * Up to `count` wrong actions: clicks at the centre of visible interactive widgets that the next
 * plan action would not hit, plus stray keys and text. Deterministic for a given rng state.
 */
export function plausibleWrong(
  s: DeskState,
  width: number,
  height: number,
  rng: Rng,
  next?: Action,
  count = 6,
): Action[] {
  const ui = buildUi(s, width, height);
  const nextHit =
    next && "x" in next && next.x !== undefined && next.y !== undefined ? hitNode(ui, next.x, next.y)?.id : undefined;
  const widgets: UiNode[] = [];
  walk(ui, (n) => {
    if (!interactive(n) || SKIP.has(n.style) || n.id === nextHit || n.id === "popup") return;
    const c = center(n.rect);
    if (!contains([0, 0, width, height], c.x, c.y)) return;
    if (hitNode(ui, c.x, c.y)?.id !== n.id) return; // hidden behind another window
    widgets.push(n);
  });
  const out: Action[] = [];
  const pool = [...widgets];
  while (out.length < count - 2 && pool.length) {
    const n = pool.splice(rng.int(0, pool.length - 1), 1)[0];
    const c = center(n.rect);
    out.push(
      n.dbl && rng.chance(0.3)
        ? { type: "DOUBLE_CLICK", x: c.x, y: c.y }
        : { type: "CLICK", x: c.x, y: c.y, button: "left", numClicks: 1 },
    );
  }
  const keys = STRAY_KEYS.filter((k) => JSON.stringify(k) !== JSON.stringify(next));
  out.push(rng.pick(keys));
  out.push({ type: "TYPING", text: rng.pick(["x", "the", "1", "ok", "asdf"]) });
  return out;
}
