/**
 * Ideal recovery's annotation calls: the detector and selector calls of phase 2, which judge a
 * failed forward run after it ended, so they belong to no episode's own meter. They are recorded
 * on the forward run's last step (the step the detector judged, as a runtime detector call judging
 * step t sits on step t) and written, by forward-run key, to `annotation-calls.json` beside
 * plan.json; the report's viewer adds them to that forward run's calls.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallRecord } from "../agents/call-log.ts";
import { redactText } from "@retrace-cua/core/secrets";

/** The file beside plan.json. */
export const ANNOTATION_CALLS_FILE = "annotation-calls.json";

/**
 * Write the annotation calls by forward-run key (keys in the plan's order); no file when no model was called (simulated
 * agents).
 */
export function writeAnnotationCalls(runDir: string, calls: ReadonlyMap<string, CallRecord[]>): void {
  const out: Record<string, CallRecord[]> = {};
  for (const [key, c] of calls) if (c.length) out[key] = c;
  if (!Object.keys(out).length) return;
  writeFileSync(join(runDir, ANNOTATION_CALLS_FILE), redactText(JSON.stringify(out)) + "\n");
}
