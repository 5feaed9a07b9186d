/**
 * What the report accepts as a run, checked before any HTML is written: an experiment folder whose
 * results.jsonl holds result lines (a torn last line from a killed run is tolerated), or a
 * `retrace run --policy` folder (run.json + traj.jsonl), shown as a one-episode run. A garbage or
 * empty results file is a ConfigError naming the file and what it should hold.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { idProblem, showId } from "@retrace-cua/core/store/safe-path";
import type { Trajectory } from "@retrace-cua/core/trajectory";
import type { EpisodeRecord } from "../runner/episode.ts";
import type { ResultLine } from "../runner/results-log.ts";

const REQUIRED: ReadonlyArray<[keyof ResultLine, string]> = [
  ["key", "string"],
  ["index", "number"],
  ["condition", "string"],
  ["task", "string"],
  ["status", "string"],
  ["success", "boolean"],
];

/** Why `value` is not a result line, or undefined when it is one. */
function notALine(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  for (const [k, t] of REQUIRED)
    if (typeof (value as Record<string, unknown>)[k] !== t) return `field "${k}" is missing or not a ${t}`;
  const status = (value as ResultLine).status;
  if (status !== "ok" && status !== "env-error") return `status "${String(status)}" is neither "ok" nor "env-error"`;
  return undefined;
}

/**
 * Why a result line's names cannot locate its episode folder (condition and task are ids, seed and
 * `extra.k` integers), or undefined: the report reads only inside its run folder.
 */
function unsafeNames(line: ResultLine): string | undefined {
  for (const field of ["condition", "task"] as const) {
    const why = idProblem(line[field]);
    if (why) return `${field} ${showId(line[field])} is not an id (${why})`;
  }
  if (line.seed !== undefined && !Number.isSafeInteger(line.seed)) return `seed ${showId(line.seed)} is not an integer`;
  const k = line.extra?.k;
  if (k !== undefined && !Number.isSafeInteger(k)) return `extra.k ${showId(k)} is not an integer`;
  return undefined;
}

/**
 * Read a results.jsonl for the report: the last line per key. Throws a ConfigError when the file
 * is empty or a line other than a torn last one is not a result line.
 */
export function readResultsForReport(file: string): ResultLine[] {
  const texts = readFileSync(file, "utf8").split("\n");
  while (texts.length && !texts[texts.length - 1].trim()) texts.pop();
  const byKey = new Map<string, ResultLine>();
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (!text.trim()) continue;
    let why: string | undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
      why = notALine(value);
    } catch {
      why = "not JSON";
    }
    if (why === undefined) {
      const unsafe = unsafeNames(value as ResultLine);
      if (unsafe)
        throw new ConfigError(
          `report: ${file} line ${i + 1}: ${unsafe}; the report reads only inside the run folder (was the file edited?)`,
          { field: "dir" },
        );
      byKey.set((value as ResultLine).key, value as ResultLine);
    } else if (i === texts.length - 1 && byKey.size > 0)
      break; // a killed run's torn last line
    else
      throw new ConfigError(
        `report: ${file} line ${i + 1} is not a result line (${why}); expected one JSON object per episode as written by \`retrace run\` (key, index, condition, task, status, success)`,
        { field: "dir" },
      );
  }
  if (byKey.size === 0)
    throw new ConfigError(
      `report: ${file} holds no episodes; point at a run that has finished at least one episode (or continue it with \`retrace run <config> --out <dir> --resume\`)`,
      { field: "dir" },
    );
  return [...byKey.values()].sort((a, b) => a.index - b.index);
}

/** run.json of `retrace run --policy` (the fields the report needs). */
interface ModelRunRecord {
  task: string;
  policy: string;
  policyKind?: string;
  model?: string;
  simulated?: boolean;
  success: boolean;
  score: number;
  stopReason: string;
  accounting?: {
    forwardSteps?: number;
    recoverySteps?: number;
    replaySteps?: number;
    recoveryAttempts?: number;
    detectorCalls?: number;
    policyFailures?: number;
    models?: Record<string, { inputTokens?: number; outputTokens?: number; costUsd?: number }>;
  };
  prompts?: string[];
  trajectory: Trajectory;
  /** The run's model calls, each with its step (experiments/agents/call-log.ts). */
  calls?: EpisodeRecord["calls"];
}

/** True when `dir` is a `retrace run --policy` folder. */
export function isModelRunFolder(dir: string): boolean {
  return existsSync(join(dir, "run.json")) && !existsSync(join(dir, "results.jsonl"));
}

/** A `retrace run --policy` folder as one result line and its viewer record. */
export function loadModelRun(dir: string): { line: ResultLine; record: EpisodeRecord } {
  const file = join(dir, "run.json");
  let rec: ModelRunRecord;
  try {
    rec = JSON.parse(readFileSync(file, "utf8")) as ModelRunRecord;
  } catch (cause) {
    throw new ConfigError(
      `report: ${file} is not valid JSON; it should be the run.json written by \`retrace run --policy\``,
      { cause, field: "dir" },
    );
  }
  if (
    typeof rec !== "object" ||
    rec === null ||
    typeof rec.task !== "string" ||
    typeof rec.trajectory !== "object" ||
    rec.trajectory === null ||
    !Array.isArray(rec.trajectory.steps)
  )
    throw new ConfigError(
      `report: ${file} is not a \`retrace run --policy\` record (expected task, success, score and trajectory.steps)`,
      { field: "dir" },
    );
  const a = rec.accounting ?? {};
  const models = Object.values(a.models ?? {});
  const condition = `${rec.policyKind ?? rec.policy}${rec.model ? `:${rec.model}` : ""}`;
  const key = `${condition}/${rec.task}/0`;
  const line: ResultLine = {
    key,
    index: 0,
    experiment: `model run ${basename(dir)}`,
    condition,
    task: rec.task,
    seed: 0,
    status: "ok",
    success: rec.success === true,
    score: Number(rec.score) || 0,
    stopReason: rec.stopReason as ResultLine["stopReason"],
    envTries: 1,
    simulated: rec.simulated === true,
    forwardSteps: a.forwardSteps ?? 0,
    recoverySteps: a.recoverySteps ?? 0,
    replaySteps: a.replaySteps ?? 0,
    recoveryAttempts: a.recoveryAttempts ?? 0,
    detectorCalls: a.detectorCalls ?? 0,
    policyFailures: a.policyFailures ?? 0,
    tokens: models.reduce((s, m) => s + (m?.inputTokens ?? 0) + (m?.outputTokens ?? 0), 0),
    costUsd: models.reduce((s, m) => s + (m?.costUsd ?? 0), 0),
    stability: null,
    prompts: [...(rec.prompts ?? [])].sort(),
  };
  const record: EpisodeRecord = {
    key,
    condition,
    task: rec.task,
    instruction: `task ${rec.task} (retrace run --policy)`,
    seed: 0,
    success: line.success,
    score: line.score,
    detail: "",
    stopReason: rec.stopReason,
    simulated: line.simulated,
    trajectory: rec.trajectory,
    ...(Array.isArray(rec.calls) ? { calls: rec.calls } : {}),
  };
  return { line, record };
}
