/**
 * OSWorld's observation types for model agents: `screenshot` (the image only), `a11y_tree` (the
 * linearized accessibility tree only, as text) and `screenshot_a11y_tree` (both). The linearized
 * tree follows OSWorld's idea (one tab-separated line per visible element, with its position and
 * size, depth-first, truncated to a budget) in our own columns: role, name, value, states,
 * position (top-left x&y), size (w&h). An observation without a tree (a desktop that offers none)
 * falls back to its screenshot, with a line saying so.
 */
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { AxNode, Observation } from "@retrace-cua/core/observation";

/** What a model agent is shown of each observation. */
export const OBSERVATION_TYPES = ["screenshot", "a11y_tree", "screenshot_a11y_tree"] as const;
/** One of {@link OBSERVATION_TYPES}. */
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

/** Header line of a linearized tree (the column names). */
export const A11Y_HEADER = "role\tname\tvalue\tstates\tposition (top-left x&y)\tsize (w&h)";

/** Characters of a linearized tree sent at most; the rest is cut with a note. @default 20000 */
export const DEFAULT_A11Y_MAX_CHARS = 20_000;

/** Escape a cell: tabs and newlines become `\t`, `\n`, backslashes `\\`. */
export function escapeCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\r?\n/g, "\\n");
}

/** Inverse of {@link escapeCell}. */
export function unescapeCell(text: string): string {
  return text.replace(/\\(\\|t|n)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : "\\"));
}

/**
 * The tree as text: the header, then one line per element that has a name, a value or states
 * and a non-empty box, depth first (OSWorld keeps only showing, named elements too).
 */
export function linearizeAxTree(tree: AxNode, maxChars = DEFAULT_A11Y_MAX_CHARS): string {
  const lines: string[] = [A11Y_HEADER];
  let size = A11Y_HEADER.length;
  let cut = 0;
  const walk = (n: AxNode) => {
    const b = n.bounds;
    const visible = !b || (b[2] > 0 && b[3] > 0);
    if (visible && (n.name || n.value !== undefined || n.states?.length)) {
      const pos = b ? `(${Math.round(b[0])}, ${Math.round(b[1])})` : "";
      const dim = b ? `(${Math.round(b[2])}, ${Math.round(b[3])})` : "";
      const line = [n.role, n.name, n.value ?? "", (n.states ?? []).join(","), pos, dim]
        .map((c, i) => (i < 3 ? escapeCell(c) : c))
        .join("\t");
      if (size + line.length + 1 > maxChars) cut++;
      else {
        lines.push(line);
        size += line.length + 1;
      }
    }
    for (const c of n.children ?? []) walk(c);
  };
  walk(tree);
  if (cut) lines.push(`(${cut} more element(s) cut to fit ${maxChars} characters)`);
  return lines.join("\n");
}

/** What the text before an observation's parts calls it, e.g. "screenshot". */
export function observationNoun(type: ObservationType): string {
  return type === "screenshot"
    ? "screenshot"
    : type === "a11y_tree"
      ? "accessibility tree"
      : "screenshot and accessibility tree";
}

/**
 * The content parts showing one observation: the screenshot, the linearized tree, or both. With
 * `a11y_tree` and no tree on the observation, the screenshot is sent instead (and says so).
 */
export function observationParts(
  obs: Observation,
  type: ObservationType = "screenshot",
  detail: "low" | "high" | "auto" = "auto",
  maxChars = DEFAULT_A11Y_MAX_CHARS,
): ChatContentPart[] {
  const image: ChatContentPart = { type: "image", blob: obs.screenshot, detail };
  if (type === "screenshot") return [image];
  if (!obs.axTree)
    return [{ type: "text", text: "(no accessibility tree is available for this screen; screenshot shown)" }, image];
  const tree: ChatContentPart = { type: "text", text: `Accessibility tree:\n${linearizeAxTree(obs.axTree, maxChars)}` };
  return type === "a11y_tree" ? [tree] : [image, tree];
}
