/**
 * Probe items from an accessibility tree: per top-level child of the root (an app on a real
 * desktop, a window in SimDesk) three digests, so a difference says which aspect moved:
 * `ax:<name>:tree` (roles and names, no geometry: a moved window is the same state),
 * `ax:<name>:text` (text values: document content, a calculator display) and
 * `ax:<name>:states` (focused/selected/checked/expanded flags: an open menu, a ticked box) and
 * `ax:<name>:enabled` (which widgets are disabled: it follows edit history, e.g. Undo becomes
 * enabled after any edit, so it is separate and ignored by default, see DEFAULT_PROBE_IGNORE).
 * Where the tree carries text carets or selections (X11 through AT-SPI), a fifth digest
 * `ax:<name>:caret` holds every caret offset and selected range, so a moved caret or a selection
 * left in place differs; trees without them (SimDesk, OSWorld's XML) get no such item.
 */
import { sha256Hex } from "@retrace-cua/core/hash";
import type { AxNode } from "@retrace-cua/core/observation";

/** 16 hex chars of sha256: enough to tell states apart in evidence, short to read. */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** Options of {@link axProbeItems}. */
export interface AxProbeOptions {
  /** Skip these subtrees (noise such as a clock or a notification). */
  skip?: (node: AxNode) => boolean;
}

/** The four digests of every top-level child of `root`, keyed `ax:<name>:<aspect>`. */
export function axProbeItems(root: AxNode, options: AxProbeOptions = {}): Record<string, string> {
  const items: Record<string, string> = {};
  const seen = new Map<string, number>();
  for (const child of root.children ?? []) {
    if (options.skip?.(child)) continue;
    const base = (child.name || child.role).replace(/\s+/g, " ").trim() || "unnamed";
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const name = n === 1 ? base : `${base}#${n}`;
    const tree: string[] = [];
    const text: string[] = [];
    const states: string[] = [];
    const disabled: string[] = [];
    const carets: string[] = [];
    walk(child, "0", (node, path) => {
      if (options.skip?.(node)) return false;
      tree.push(`${path} ${node.role} ${node.name}`);
      if (node.value !== undefined && node.value !== "") text.push(`${path} ${node.value}`);
      const flags = (node.states ?? []).filter((f) => f !== "disabled").sort();
      if (flags.length) states.push(`${path} ${flags.join(",")}`);
      if (node.states?.includes("disabled")) disabled.push(`${path} ${node.role} ${node.name}`);
      if (node.caret !== undefined || node.selections?.length)
        carets.push(
          `${path} caret=${node.caret ?? "-"} selected=${(node.selections ?? []).map(([a, b]) => `${a}-${b}`).join(",") || "-"}`,
        );
      return true;
    });
    items[`ax:${name}:tree`] = `${tree.length} nodes ${shortDigest(tree.join("\n"))}`;
    items[`ax:${name}:text`] = `${text.length} values ${shortDigest(text.join("\n"))}`;
    items[`ax:${name}:states`] = `${states.length} flagged ${shortDigest(states.join("\n"))}`;
    items[`ax:${name}:enabled`] = `${disabled.length} disabled ${shortDigest(disabled.join("\n"))}`;
    if (carets.length) {
      const selected = carets.filter((c) => !c.endsWith("selected=-")).length;
      items[`ax:${name}:caret`] =
        `${carets.length} carets ${selected} with selection ${shortDigest(carets.join("\n"))}`;
    }
  }
  return items;
}

function walk(node: AxNode, path: string, visit: (n: AxNode, path: string) => boolean): void {
  if (!visit(node, path)) return;
  (node.children ?? []).forEach((c, i) => walk(c, `${path}.${i}`, visit));
}
