/**
 * results.jsonl: one line per finished episode, appended atomically (one write of the whole line
 * to an O_APPEND descriptor, then fsync), so a killed run loses at most the episodes in flight.
 * On resume a torn last line is cut off; the last line per key wins. When a run completes the
 * file is rewritten in expansion order (via a temp file and rename), so the same config and seed
 * give the same bytes.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import type { StopReason } from "@retrace-cua/core/episode";
import type { StabilityMetrics } from "@retrace-cua/evaluation/metrics/stability";
import type { JsonValue } from "@retrace-cua/core/policy";
import { redactText } from "@retrace-cua/core/secrets";
import type { ModelRole } from "@retrace-cua/core/usage";
import type { RoleCalls } from "../agents/meter.ts";
import { writeFileAtomic } from "@retrace-cua/core/store/write-file";
import type { FailedTry } from "./failed-try.ts";

/** One finished episode. Deterministic: no timings (those go to timings.jsonl). */
export interface ResultLine {
  key: string;
  index: number;
  experiment: string;
  condition: string;
  task: string;
  seed: number;
  /** "env-error" when the environment (not the agent) failed on every try; kept out of success rates. */
  status: "ok" | "env-error";
  success: boolean;
  score: number;
  stopReason: StopReason;
  envError?: string;
  /** Tries the environment needed (1 = no environment error). */
  envTries: number;
  /**
   * The tries that ended in an environment error, in order (the last one too when every try
   * failed): the error, and the model calls and detector failures each made before it. Absent = none.
   */
  failedTries?: FailedTry[];
  simulated: boolean;
  forwardSteps: number;
  recoverySteps: number;
  replaySteps: number;
  /** Action replays that did not reproduce the saved state (desyncs, each retried or given up); absent = none. */
  replayDesyncs?: number;
  recoveryAttempts: number;
  /** Recovery-step selections where the selector failed and R fell back to E-1; absent = none. */
  selectorFallbacks?: number;
  /** Times recovery became degraded (`degradedAfter` failed detector calls in a row); absent = never. */
  degraded?: number;
  detectorCalls: number;
  /** Detector-cascade gate counters (per gate, plus steps, asked, firedOnOwn); only with a `kind: cascade` detector. */
  detectorGates?: Record<string, number>;
  policyFailures: number;
  tokens: number;
  /**
   * Billed-equivalent tokens (packages/core/src/usage.ts tokenSplit), present once some call reported a prompt cache; absent: equal
   * to tokens.
   */
  billedTokens?: number;
  costUsd: number;
  /** Model calls per role (calls, errors, tokens, list-price cost); absent when no model was called. */
  models?: Partial<Record<ModelRole, RoleCalls>>;
  stability: StabilityMetrics | null;
  prompts: string[];
  /** Experiment-specific facts (e.g. strategy, E, R, continuation index). */
  extra?: Record<string, JsonValue>;
}

/** Appends result lines durably. */
export class ResultsLog {
  private fd: number;
  constructor(readonly file: string) {
    if (existsSync(file)) cutTornTail(file);
    this.fd = openSync(file, "a");
  }
  /** Append one line and fsync before returning. */
  append(line: ResultLine): void {
    writeSync(this.fd, redactText(JSON.stringify(line)) + "\n");
    fsyncSync(this.fd);
  }
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** Read a results file: the last line per key, skipping a torn last line. */
export function readResults(file: string): Map<string, ResultLine> {
  const out = new Map<string, ResultLine>();
  if (!existsSync(file)) return out;
  for (const text of readFileSync(file, "utf8").split("\n")) {
    if (!text.trim()) continue;
    try {
      const line = JSON.parse(text) as ResultLine;
      out.set(line.key, line);
    } catch {
      // torn line from a killed run: that episode simply runs again
    }
  }
  return out;
}

/** Rewrite the file with one line per key, ordered by `index` (atomic rename). */
export function finalizeResults(file: string, keep?: (line: ResultLine) => boolean): ResultLine[] {
  const lines = [...readResults(file).values()].filter((l) => !keep || keep(l)).sort((a, b) => a.index - b.index);
  writeFileAtomic(file, lines.map((l) => redactText(JSON.stringify(l)) + "\n").join(""), { fsync: true });
  return lines;
}

/** Append-only timing log (non-deterministic numbers live here, not in results.jsonl). */
export function appendTiming(
  file: string,
  entry: { key: string; wallMs: number; envMs: number; tries: number; callMs?: Array<number | null> },
): void {
  const fd = openSync(file, "a");
  try {
    writeSync(fd, JSON.stringify(entry) + "\n");
  } finally {
    closeSync(fd);
  }
}

function cutTornTail(file: string): void {
  const buf = readFileSync(file);
  if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return;
  const lastNl = buf.lastIndexOf(0x0a);
  truncateSync(file, lastNl + 1);
}
