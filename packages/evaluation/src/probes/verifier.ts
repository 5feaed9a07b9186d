/**
 * The probe verifier: a StateVerifier that confirms a restoration when the probe report recorded
 * with the target observation (step R) matches the current one, item by item, minus an ignore
 * list of volatile paths. Its verdict carries the attested evidence: which items matched and
 * which differed, with both values. It abstains when either side has no probe report or when
 * nothing could be compared (a probe failed on both sides), never guessing.
 *
 * The current report is the one on the current observation, or, when that has none and the live
 * environment can probe, a fresh probe (read-only).
 */
import { z } from "zod";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { StateVerifier, VerifierVerdict, VerifyInput } from "@retrace-cua/core/recovery";
import {
  compareProbeReports,
  DEFAULT_PROBE_IGNORE,
  describeProbeDifference,
  probePatternToRegExp,
  type ProbeComparison,
} from "./compare.ts";
import { loadProbeReport, type ProbeReport } from "@retrace-cua/core/probes/report";
import { canProbe } from "./with-probes.ts";

/** Options of {@link createProbeVerifier}. */
export interface ProbeVerifierOptions {
  /** Extra item-key patterns to ignore (`*`, `**`, `?`), e.g. `["file:.config/galculator/**"]`. @default [] */
  ignore?: string[];
  /** Also ignore {@link DEFAULT_PROBE_IGNORE} (caches, recently-used lists...). @default true */
  defaultIgnore?: boolean;
  /** Matched items listed one by one in the evidence before summarising the rest. @default 12 */
  maxListed?: number;
  /** Name in records. @default "probe-verifier" */
  name?: string;
}

/** The `verifier` role spec in configs: `{ kind: probe, ignore: [...] }`. */
export const ProbeVerifierSpecSchema = z
  .object({
    kind: z.literal("probe"),
    ignore: z.array(z.string().min(1)).default([]),
    defaultIgnore: z.boolean().default(true),
    maxListed: z.number().int().min(0).default(12),
    name: z.string().min(1).default("probe-verifier"),
  })
  .strict();
export type ProbeVerifierSpec = z.input<typeof ProbeVerifierSpecSchema>;

/** The verifier's result: the StateVerifier fields plus the full comparison (when one was made). */
export interface ProbeVerification {
  verdict: VerifierVerdict;
  reason: string;
  evidence: string[];
  comparison?: ProbeComparison;
}

/** A StateVerifier over probe reports. */
export interface ProbeVerifier extends StateVerifier {
  /** The ignore patterns in force. */
  readonly ignore: readonly string[];
  verify(input: VerifyInput): Promise<ProbeVerification>;
}

/** Build the probe verifier; bad options throw a ConfigError naming the field. */
export function createProbeVerifier(options: ProbeVerifierOptions = {}): ProbeVerifier {
  const r = ProbeVerifierSpecSchema.omit({ kind: true }).safeParse(options);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ConfigError(`probe verifier: option "${issue.path.join(".")}" ${issue.message}`, {
      field: `verifier.${issue.path.join(".")}`,
    });
  }
  const o = r.data;
  for (const p of o.ignore) probePatternToRegExp(p);
  const ignore = [...(o.defaultIgnore ? DEFAULT_PROBE_IGNORE : []), ...o.ignore];
  return {
    name: o.name,
    ignore,
    async verify(input) {
      if (!input.target.probe)
        return abstain(
          "no probe report was recorded with the target observation (record probes: env option probes: true)",
        );
      const target = await loadProbeReport(input.blobs, input.target.probe);
      const current = await currentReport(input);
      if (!current) return abstain("the current observation has no probe report and the environment cannot probe");
      const cmp = compareProbeReports(target, current, { ignore });
      const unavailable = Object.entries(cmp.unavailable).map(([ns, e]) => `unavailable ${ns}: ${e}`);
      if (cmp.matched.length === 0 && cmp.differed.length === 0) {
        return { ...abstain("no probe item could be compared"), evidence: unavailable, comparison: cmp };
      }
      if (!cmp.equal) {
        const diffs = cmp.differed.map((d) => `differs ${describeProbeDifference(d)}`);
        return {
          verdict: "mismatch",
          reason: `${cmp.differed.length} probe item(s) differ from step R (${cmp.differed
            .slice(0, 3)
            .map((d) => d.key)
            .join(", ")}${cmp.differed.length > 3 ? ", ..." : ""}); ${cmp.matched.length} match`,
          evidence: [...diffs, ...listMatched(cmp, target, o.maxListed), ...unavailable],
          comparison: cmp,
        };
      }
      return {
        verdict: "match",
        reason: `all ${cmp.matched.length} compared probe item(s) equal those recorded at step R (${cmp.ignored.length} ignored as volatile${unavailable.length ? `, ${unavailable.length} namespace(s) unavailable` : ""})`,
        evidence: [...listMatched(cmp, target, o.maxListed), ...unavailable],
        comparison: cmp,
      };
    },
  };
}

/**
 * Build the probe verifier from a config's `verifier` spec (`{ kind: probe, ignore: [...] }`);
 * a bad spec throws a ConfigError naming `verifier.<field>`. The environment must record probes
 * (`createEnvironmentFactory(kind, { probes: true })`), or every verdict is an abstention.
 */
export function probeVerifierFromSpec(spec: unknown): ProbeVerifier {
  const r = ProbeVerifierSpecSchema.safeParse(spec);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = ["verifier", ...issue.path].join(".");
    throw new ConfigError(
      `${field}: ${issue.message} (expected { kind: probe, ignore: [patterns], defaultIgnore: true })`,
      { field },
    );
  }
  const { kind: _kind, ...options } = r.data;
  return createProbeVerifier(options);
}

function abstain(reason: string): ProbeVerification {
  return { verdict: "abstain", reason, evidence: [] };
}

async function currentReport(input: VerifyInput): Promise<ProbeReport | undefined> {
  if (input.current.probe) return loadProbeReport(input.blobs as BlobReader, input.current.probe);
  if (input.env && canProbe(input.env)) return input.env.probe();
  return undefined;
}

function listMatched(cmp: ProbeComparison, target: ProbeReport, max: number): string[] {
  const shown = cmp.matched.slice(0, max).map((k) => `matches ${k}: ${target.items[k]}`);
  const rest = cmp.matched.length - shown.length;
  return rest > 0 ? [...shown, `matches ${rest} more item(s)`] : shown;
}
