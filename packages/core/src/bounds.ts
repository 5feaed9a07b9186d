/**
 * Recursion bounds on parsed input (issue 41). JSON.parse and the YAML parser accept values nested
 * far deeper than anything downstream can walk: JSON.stringify, hashing, redaction and zod all
 * recurse, so one model answer or task file nested 10 000 levels deep ends a run with
 * "RangeError: Maximum call stack size exceeded" (and no run.json), and a deeply nested YAML file
 * makes the YAML parser itself run out of stack or memory. Every parsed input is checked here
 * first, without recursion: model output ({@link exceedsNesting}), configs and task files
 * ({@link checkYamlNesting} before parsing, {@link checkNesting} after).
 */
import { ConfigError } from "./errors.ts";

/** Deepest nesting of objects/arrays accepted in any parsed input (configs need ~8, model answers ~6). */
export const MAX_NESTING = 64;

/**
 * True when `value` holds objects or arrays nested more than `limit` levels deep. Iterative (an
 * explicit stack), stops at the first path past the limit; linear in the value's size.
 */
export function exceedsNesting(value: unknown, limit = MAX_NESTING): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: [unknown, number][] = [[value, 1]];
  // A value shared by aliases is explored again only when reached deeper than before (a shallower
  // visit adds no depth; a deeper one may cross the limit). Cycles end at the limit.
  const deepest = new Map<object, number>();
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    if ((deepest.get(v as object) ?? 0) >= depth) continue;
    deepest.set(v as object, depth);
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Throw a ConfigError (`<what>: nested more than 64 levels deep; ...`) when a parsed file is too deep. */
export function checkNesting(value: unknown, what: string, field?: string): void {
  if (exceedsNesting(value))
    throw new ConfigError(
      `${what}: nested more than ${MAX_NESTING} levels deep; flatten it (no config or task file needs more than a few levels)`,
      field ? { field } : {},
    );
}

/**
 * Refuse YAML text nested more than {@link MAX_NESTING} levels, before the parser sees it (the
 * `yaml` package recurses per level and runs out of stack, or of memory in a regular expression,
 * on a few thousand). A linear scan that over-counts rather than under-counts: flow brackets
 * (`[`, `{`) outside quotes and comments, plus block levels (each deeper indentation, and each
 * `- ` or `? ` that opens an entry on the same line).
 */
export function checkYamlNesting(text: string, what: string): void {
  const indents: number[] = [];
  let flow = 0;
  let line = 0;
  let pos = 0;
  while (pos <= text.length) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    line++;
    let i = pos;
    while (i < end && text[i] === " ") i++;
    const blank = i >= end || text[i] === "#" || text[i] === "\r";
    // Indentation counts inside flow collections too (over-counting is safe): an unbalanced "[" in
    // a block scalar must not switch the count off for the rest of the file.
    if (!blank) {
      while (indents.length && indents[indents.length - 1] >= i - pos) indents.pop();
      indents.push(i - pos);
      // "- - - x" and "? ? x" open one level per marker on the same line
      while (i + 1 < end && (text[i] === "-" || text[i] === "?") && text[i + 1] === " ") {
        indents.push(i - pos + 1);
        i += 2;
        while (i < end && text[i] === " ") i++;
      }
    }
    let quote = "";
    for (let j = i; j < end; j++) {
      const ch = text[j];
      if (quote) {
        if (ch === "\\" && quote === '"') j++;
        else if (ch === quote) quote = "";
        continue;
      }
      if (ch === "#" && (j === pos || text[j - 1] === " " || text[j - 1] === "\t")) break;
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "[" || ch === "{") flow++;
      else if ((ch === "]" || ch === "}") && flow > 0) flow--;
      if (flow + indents.length > MAX_NESTING) break;
    }
    if (flow + indents.length > MAX_NESTING)
      throw new ConfigError(
        `${what}: nested more than ${MAX_NESTING} levels deep at line ${line}; flatten it (no config or task file needs more than a few levels)`,
      );
    pos = end + 1;
  }
}
