/**
 * State probes of an OSWorld VM through its control server: `/platform`, `/accessibility`
 * (per-application digests of the XML, geometry stripped so a moved window is the same state)
 * and `/file` for a list of watched paths (the task's `vm_file` result getters plus any given).
 * The control server has no directory listing, so only watched files are probed.
 */
import { shortDigest } from "@retrace-cua/evaluation/probes/ax-digest";
import { makeProbeReport, type ProbeReport } from "@retrace-cua/core/probes/report";
import { describeError } from "@retrace-cua/core/errors";
import { sha256Hex } from "@retrace-cua/core/hash";
import type { OsworldClient } from "./client.ts";
import type { OsworldTask } from "./tasks.ts";

/** The VM paths a task's evaluator reads with `vm_file` getters (what its result depends on). */
export function watchedPaths(task: OsworldTask | undefined): string[] {
  const result = task?.evaluator.result;
  const getters = result === undefined ? [] : Array.isArray(result) ? result : [result];
  const paths: string[] = [];
  for (const g of getters as Array<Record<string, unknown>>) {
    if (g.type !== "vm_file") continue;
    const p = g.path;
    if (typeof p === "string") paths.push(p);
    else if (Array.isArray(p)) for (const x of p) if (typeof x === "string") paths.push(x);
  }
  return [...new Set(paths)];
}

/** Probe items of an OSWorld accessibility XML: `ax:<application>` digests, geometry stripped. */
export function osworldAxItems(xml: string): Record<string, string> {
  const clean = xml.replace(/\s(screencoord|size)="[^"]*"/g, "");
  const items: Record<string, string> = {};
  const starts = [...clean.matchAll(/<application\b[^>]*\bname="([^"]*)"/g)];
  if (starts.length === 0) {
    items["ax:desktop"] = `len=${clean.length} sha256=${shortDigest(clean)}`;
    return items;
  }
  starts.forEach((m, i) => {
    const chunk = clean.slice(m.index, i + 1 < starts.length ? starts[i + 1].index : clean.length);
    let key = `ax:${m[1] || "unnamed"}`;
    for (let n = 2; key in items; n++) key = `ax:${m[1] || "unnamed"}#${n}`;
    items[key] = `len=${chunk.length} sha256=${shortDigest(chunk)}`;
  });
  return items;
}

/** Probe the VM; failures land in `errors` under the probe's namespace. */
export async function probeOsworld(client: OsworldClient, paths: readonly string[]): Promise<ProbeReport> {
  const items: Record<string, string> = {};
  const errors: Record<string, string> = {};
  try {
    items.platform = (await client.platform()).trim();
  } catch (err) {
    errors.platform = describeError(err);
  }
  try {
    const xml = await client.accessibilityTree();
    if (xml === undefined) errors.ax = "the control server gave no accessibility tree";
    else Object.assign(items, osworldAxItems(xml));
  } catch (err) {
    errors.ax = describeError(err);
  }
  for (const path of paths) {
    try {
      const bytes = await client.file(path);
      items[`file:${path}`] = bytes ? `size=${bytes.length} sha256=${sha256Hex(bytes).slice(0, 16)}` : "absent";
    } catch (err) {
      errors.file = describeError(err);
    }
  }
  return makeProbeReport("osworld", items, errors);
}
