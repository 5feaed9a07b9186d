/**
 * Comparing two probe reports item by item: which evidence matched, which differed (with both
 * values, or "absent"), which was ignored as volatile, and which could not be compared because a
 * probe failed on either side. An item's namespace is its key up to the first ":" ("file",
 * "ax", "focus"...); a probe error is reported under that namespace.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { ProbeReport } from "@retrace-cua/core/probes/report";

/**
 * Volatile items every comparison ignores unless told otherwise: caches, recently-used lists,
 * session authority files and the oracle's own temporary files change without the agent; widget
 * sensitivity (`ax:*:enabled`) follows edit history (Undo turns enabled after any edit and stays
 * so after the edit is undone), which restoration does not restore: SimDesk's semantic hash
 * leaves undo/redo stacks out for the same reason.
 */
export const DEFAULT_PROBE_IGNORE: readonly string[] = [
  "file:.cache/**",
  "file:.local/share/recently-used.xbel",
  "file:.local/share/gvfs-metadata/**",
  "file:.local/state/**",
  "file:.dbus/**",
  "file:.Xauthority",
  "file:.ICEauthority",
  "file:.retrace-oracle-*",
  "ax:*:enabled",
];

/** One item whose value differs; `undefined` means the item is absent on that side. */
export interface ProbeDifference {
  key: string;
  target?: string;
  current?: string;
}

/** The outcome of {@link compareProbeReports}. */
export interface ProbeComparison {
  /** True when nothing compared differs (ignored and unavailable items aside). */
  equal: boolean;
  /** Keys present with the same value in both reports. */
  matched: string[];
  differed: ProbeDifference[];
  /** Keys skipped by the ignore list. */
  ignored: string[];
  /** Namespaces skipped because a probe failed on either side, with the error. */
  unavailable: Record<string, string>;
}

/** Translate one ignore pattern (`*` = any run without "/", `**` = anything, `?` = one char) to a RegExp. */
export function probePatternToRegExp(pattern: string): RegExp {
  if (typeof pattern !== "string" || pattern.length === 0)
    throw new ConfigError('probe ignore pattern must be a non-empty string (e.g. "file:.cache/**")', {
      field: "ignore",
    });
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** A predicate over item keys from ignore patterns. */
export function probeIgnoreMatcher(patterns: readonly string[]): (key: string) => boolean {
  const res = patterns.map(probePatternToRegExp);
  return (key) => res.some((r) => r.test(key));
}

/** The namespace of an item key ("file:a.txt" -> "file"). */
export function probeNamespace(key: string): string {
  const i = key.indexOf(":");
  return i < 0 ? key : key.slice(0, i);
}

/** Compare the report recorded at the target with the current one. */
export function compareProbeReports(
  target: ProbeReport,
  current: ProbeReport,
  options: { ignore?: readonly string[] } = {},
): ProbeComparison {
  const ignore = probeIgnoreMatcher(options.ignore ?? DEFAULT_PROBE_IGNORE);
  const unavailable: Record<string, string> = {};
  for (const [side, r] of [
    ["target", target],
    ["current", current],
  ] as const) {
    for (const [ns, err] of Object.entries(r.errors ?? {})) unavailable[ns] ??= `${side}: ${err}`;
  }
  const keys = [...new Set([...Object.keys(target.items), ...Object.keys(current.items)])].sort();
  const out: ProbeComparison = { equal: true, matched: [], differed: [], ignored: [], unavailable };
  for (const key of keys) {
    if (ignore(key)) {
      out.ignored.push(key);
      continue;
    }
    if (probeNamespace(key) in unavailable) continue;
    const a = target.items[key];
    const b = current.items[key];
    if (a === b) out.matched.push(key);
    else out.differed.push({ key, target: a, current: b });
  }
  out.equal = out.differed.length === 0;
  return out;
}

/** One line per difference, e.g. `file:notes.txt: target size=5 sha256=.. | current absent`. */
export function describeProbeDifference(d: ProbeDifference): string {
  return `${d.key}: target ${d.target ?? "absent"} | current ${d.current ?? "absent"}`;
}
