/**
 * State probes: read-only facts an environment can report about its state beyond the pixels
 * (files under the agent's home with size and content hash, the focused window, digests of the
 * accessibility tree, a simulator's hidden state). After VeriCUA (../shared/seeds/003_*.txt)
 * these are *attested* evidence: read by an independent sensor, not claimed by an agent.
 *
 * A report is a flat map of item key -> short value (a digest or a small literal), so two
 * reports compare key by key and a difference names exactly which piece of evidence moved.
 * Reports are stored as JSON blobs; observations carry only the reference (`Observation.probe`).
 */
import type { BlobReader, BlobRef } from "../blob-store.ts";
import { ConfigError } from "../errors.ts";
import { stableStringify } from "../hash.ts";

/** Version of the report format. */
export const PROBE_REPORT_VERSION = 1;

/** What an environment's probes saw at one moment. */
export interface ProbeReport {
  v: typeof PROBE_REPORT_VERSION;
  /** Environment kind that produced it ("simdesk", "x11", "docker", "osworld"). */
  env: string;
  /**
   * Item key -> value. Keys are namespaced: `file:<path>` ("size=12 sha256=<hex16>"),
   * `focus` (the focused window), `ax:<app>:<aspect>` (accessibility digests),
   * `setting:<name>`, `clipboard`, `trash`, `platform`... Values are short strings.
   */
  items: Record<string, string>;
  /** Probes that could not be read, by probe name (e.g. `ax`: "pyatspi missing"). */
  errors?: Record<string, string>;
}

/** Something that can be probed (an Environment with `capabilities.probes`). */
export interface Probeable {
  probe(): Promise<ProbeReport>;
}

/** A write-side blob store (BlobStore satisfies it). */
export interface BlobWriter {
  put(bytes: Uint8Array): Promise<BlobRef>;
}

/** Build a report with its items in key order (so the stored bytes are deterministic). */
export function makeProbeReport(
  env: string,
  items: Record<string, string>,
  errors?: Record<string, string>,
): ProbeReport {
  const sorted = Object.fromEntries(Object.entries(items).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const report: ProbeReport = { v: PROBE_REPORT_VERSION, env, items: sorted };
  if (errors && Object.keys(errors).length > 0) report.errors = errors;
  return report;
}

/** Store a report as canonical JSON and return its reference. */
export function storeProbeReport(blobs: BlobWriter, report: ProbeReport): Promise<BlobRef> {
  return blobs.put(Buffer.from(stableStringify(report)));
}

/** Load and check a stored report; a ConfigError names the reference when it is not a report. */
export async function loadProbeReport(blobs: BlobReader, ref: BlobRef): Promise<ProbeReport> {
  const text = (await blobs.get(ref)).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`blob ${ref} is not a probe report (not JSON)`);
  }
  const r = parsed as Partial<ProbeReport> | null;
  if (
    !r ||
    r.v !== PROBE_REPORT_VERSION ||
    typeof r.env !== "string" ||
    typeof r.items !== "object" ||
    r.items === null
  ) {
    throw new ConfigError(`blob ${ref} is not a probe report (expected { v: ${PROBE_REPORT_VERSION}, env, items })`);
  }
  return r as ProbeReport;
}
