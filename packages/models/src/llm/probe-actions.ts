/**
 * The read-only probing actions the agentic verifier may take, and how each one is undone.
 * Model output is data: a requested action is validated against this whitelist and refused
 * otherwise. Allowed: scrolling, navigation keys that do not edit (Escape, Tab, arrows, Page
 * Up/Down, F10), switching tabs with Ctrl+(Shift+)Tab, and clicks only on a menu or a tab, as
 * the observation's accessibility tree shows it (no tree, no clicks).
 */
import { z } from "zod";
import type { Action } from "@retrace-cua/core/action";
import type { AxNode, Observation } from "@retrace-cua/core/observation";

/** A probing action as the model writes it. */
export const ProbeActionSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("SCROLL"),
    x: z.number().int().min(0),
    y: z.number().int().min(0),
    dy: z.number().int().min(-20).max(20),
  }),
  z.object({ type: z.literal("PRESS"), key: z.string().min(1) }),
  z.object({ type: z.literal("HOTKEY"), keys: z.array(z.string().min(1)).min(1).max(3) }),
  z.object({ type: z.literal("CLICK"), x: z.number().int().min(0), y: z.number().int().min(0) }),
]);
export type ProbeAction = z.infer<typeof ProbeActionSchema>;

/** Keys whose press only moves focus or the view, with the key that takes it back. */
const KEY_INVERSE: Record<string, string | null> = {
  escape: null,
  tab: "shift+tab",
  up: "down",
  down: "up",
  left: "right",
  right: "left",
  pageup: "pagedown",
  pagedown: "pageup",
  f10: "escape",
};
const HOTKEY_INVERSE: Record<string, string[]> = {
  "ctrl+tab": ["ctrl", "shift", "tab"],
  "ctrl+shift+tab": ["ctrl", "tab"],
  "ctrl+pagedown": ["ctrl", "pageup"],
  "ctrl+pageup": ["ctrl", "pagedown"],
  "shift+tab": ["tab"],
};
const MENU_ROLES = new Set(["menu", "menu bar item"]);
const TAB_ROLES = new Set(["tab", "page tab"]);

/** An accepted probe: the action to run and the actions that undo it. */
export interface AcceptedProbe {
  action: Action;
  undo: Action[];
}

/** Accept a probe (with its undo) or refuse it with a reason the model is told. */
export function acceptProbe(p: ProbeAction, before: Observation): AcceptedProbe | { refused: string } {
  switch (p.type) {
    case "SCROLL":
      if (p.dy === 0) return { refused: "a scroll of 0 does nothing" };
      return {
        action: { type: "SCROLL", x: p.x, y: p.y, dy: p.dy, dx: 0 } as Action,
        undo: [{ type: "SCROLL", x: p.x, y: p.y, dy: -p.dy, dx: 0 } as Action],
      };
    case "PRESS": {
      const key = p.key.toLowerCase();
      if (!(key in KEY_INVERSE))
        return { refused: `key "${p.key}" may change the state; allowed: ${Object.keys(KEY_INVERSE).join(", ")}` };
      const inv = KEY_INVERSE[key];
      const undo: Action[] =
        inv === null
          ? []
          : [inv.includes("+") ? { type: "HOTKEY", keys: inv.split("+") } : { type: "PRESS", key: inv }];
      return { action: { type: "PRESS", key }, undo };
    }
    case "HOTKEY": {
      const combo = p.keys.map((k) => k.toLowerCase()).join("+");
      if (!(combo in HOTKEY_INVERSE))
        return { refused: `hotkey ${combo} may change the state; allowed: ${Object.keys(HOTKEY_INVERSE).join(", ")}` };
      return {
        action: { type: "HOTKEY", keys: combo.split("+") },
        undo: [{ type: "HOTKEY", keys: HOTKEY_INVERSE[combo] }],
      };
    }
    case "CLICK": {
      if (!before.axTree)
        return {
          refused:
            "clicks are allowed only on menus and tabs, and this observation has no accessibility tree to check that",
        };
      const path = hitPath(before.axTree, p.x, p.y);
      const node = path[path.length - 1];
      if (!node) return { refused: `nothing at (${p.x}, ${p.y})` };
      const click: Action = { type: "CLICK", x: p.x, y: p.y, button: "left", numClicks: 1 };
      if (MENU_ROLES.has(node.role)) return { action: click, undo: [{ type: "PRESS", key: "escape" }] };
      if (TAB_ROLES.has(node.role)) {
        const parent = path[path.length - 2];
        const selected = parent?.children?.find((c) => TAB_ROLES.has(c.role) && c.states?.includes("selected"));
        if (!selected?.bounds)
          return { refused: "cannot tell which tab is selected now, so the switch could not be undone" };
        const [x, y, w, h] = selected.bounds;
        return {
          action: click,
          undo: [{ type: "CLICK", x: Math.round(x + w / 2), y: Math.round(y + h / 2), button: "left", numClicks: 1 }],
        };
      }
      return {
        refused: `(${p.x}, ${p.y}) is a ${node.role} "${node.name}", not a menu or a tab; clicking it may change the state`,
      };
    }
  }
}

/** The deepest-last chain of nodes whose bounds contain the point (children drawn last win). */
function hitPath(root: AxNode, x: number, y: number): AxNode[] {
  const inside = (n: AxNode) =>
    !!n.bounds &&
    x >= n.bounds[0] &&
    y >= n.bounds[1] &&
    x < n.bounds[0] + n.bounds[2] &&
    y < n.bounds[1] + n.bounds[3];
  const path: AxNode[] = [];
  let node: AxNode | undefined = root;
  while (node) {
    if (node !== root || inside(node)) path.push(node);
    const kids: AxNode[] = node.children ?? [];
    node = [...kids].reverse().find(inside);
  }
  return path;
}
