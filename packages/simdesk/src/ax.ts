/** Accessibility tree (roles, names, bounds, states, values) from the UI tree. */
import type { AxNode } from "@retrace-cua/core/observation";
import type { UiNode } from "./ui-types.ts";

const SKIP_STYLES = new Set(["separator"]);

/** Convert a UI tree to an accessibility tree, dropping purely decorative nodes. */
export function toAxTree(n: UiNode): AxNode {
  const node: AxNode = { role: n.role, name: n.name, bounds: [...n.rect] as [number, number, number, number] };
  const states = (n.states ?? []).filter((s) => s !== "inert");
  if (states.length) node.states = states;
  if (n.value !== undefined) node.value = n.value;
  const kids = (n.children ?? []).filter((c) => !SKIP_STYLES.has(c.style)).map(toAxTree);
  if (kids.length) node.children = kids;
  return node;
}
