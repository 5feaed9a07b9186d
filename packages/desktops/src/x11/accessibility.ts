/**
 * Accessibility trees from AT-SPI as `AxNode`s: what the one walker (./atspi-walker.ts) reports,
 * reduced to what an observation shows.
 */
import type { AxNode } from "@retrace-cua/core/observation";
import type { DesktopBackend } from "./backend.ts";
import { walkAtspi, type RawAxNode } from "./atspi-walker.ts";

/** The states an `AxNode` shows. */
const WANT = ["focused", "selected", "checked", "expanded"];
/** Roles whose "disabled" is shown (below the application level). */
const DISABLABLE = new Set(["push button", "menu item", "check box", "text", "toggle button"]);
/** Characters of a node's text kept as its `value`. */
const VALUE_CHARS = 4000;

function toAxNode(n: RawAxNode, depth: number): AxNode {
  const d: AxNode = { role: n.role, name: n.name };
  if (n.extents) d.bounds = n.extents;
  const st = WANT.filter((w) => n.states.includes(w));
  if (!n.states.includes("enabled") && depth > 1 && DISABLABLE.has(n.role)) st.push("disabled");
  if (st.length) d.states = st;
  if (n.text !== undefined) d.value = n.text.slice(0, VALUE_CHARS);
  if (n.caret !== undefined) d.caret = n.caret;
  if (n.selections) d.selections = n.selections;
  const kids = (n.children ?? []).map((c) => toAxNode(c, depth + 1));
  if (kids.length) d.children = kids;
  return d;
}

/** Dump the desktop's accessibility tree (all apps) as an {@link AxNode}, through the one AT-SPI walker. */
export async function dumpAxTree(backend: DesktopBackend): Promise<AxNode> {
  const desk = await walkAtspi(backend);
  const root: AxNode = { role: desk.role, name: desk.name };
  const apps = desk.children.map((c) => toAxNode(c, 1));
  if (apps.length) root.children = apps;
  return root;
}

/** Every node of a tree, depth first. */
export function* walkAx(node: AxNode): Generator<AxNode> {
  yield node;
  for (const c of node.children ?? []) yield* walkAx(c);
}

/** The application subtree with this name (case-insensitive), if any. */
export function findApp(root: AxNode, app: string): AxNode | undefined {
  return (root.children ?? []).find((c) => c.name.toLowerCase() === app.toLowerCase());
}
