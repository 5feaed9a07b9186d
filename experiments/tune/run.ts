/**
 * Running a race: the pure race (packages/evaluation/src/tune/race.ts) asks for rounds; each round's survivors run as
 * end-to-end experiments (one per group of candidates that share their config-level knobs, one
 * pair per candidate) in `<out>/rounds/b<batch>-r<round>/g<k>`, by whatever runs experiments (the
 * local pool, process workers, BullMQ workers). Each episode is a (task, seed) unit every survivor
 * shares. Resumable: the race is re-driven from the start and every round already on disk answers
 * from its results (a round cut by a kill resumes as a run), so the same results give the same
 * decisions. Writes `tune.json` (identity), `race.json` (the result), `winner.yaml` and
 * `winner.ts` (the winner as config YAML and as `withRecovery` options).
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { hashValue } from "@retrace-cua/core/hash";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import type { UnitOutcome } from "@retrace-cua/evaluation/tune/objective";
import { createRace } from "@retrace-cua/evaluation/tune/race";
import type { RaceResult } from "@retrace-cua/evaluation/tune/race-result";
import type { TuneCandidate } from "@retrace-cua/evaluation/tune/space";
import type { EndToEndConfig } from "../config/schema.ts";
import { readResults, type ResultLine } from "../runner/results-log.ts";
import { candidateConfig, groupKey, pairNameOf, type TuneConfig } from "./config.ts";
import { winnerSnippet, winnerYaml } from "./output.ts";

/** Runs one group's config into `out` (resuming when `resume`) and returns its result lines. */
export type RunGroup = (config: EndToEndConfig, out: string, resume: boolean) => Promise<readonly ResultLine[]>;

/** Options of {@link runTune}. */
export interface TuneRunOptions {
  out: string;
  /** Continue a race in `out`. @default false */
  resume?: boolean;
  /** Task ids of the base config, in order (unit i is task i mod tasks on seed seedStart + i div tasks). */
  tasks: readonly string[];
  runGroup: RunGroup;
  /** A line after each round (the running estimate). */
  onRound?: (text: string) => void;
}

/** What a finished race hands back. */
export interface TuneRun {
  result: RaceResult;
  /** Result lines per round folder, for the report. */
  rounds: string[];
  /** Episodes recorded as environment errors (scored as failures, counted here). */
  envErrors: number;
  /** Whether any episode had a simulated part (sim agents, or a server that declared a stand-in). */
  simulated: boolean;
  costUnit: "tokens" | "usd";
  out: string;
}

/** The file that names a tune folder's race (its identity, checked on --resume). */
export const TUNE_FILE = "tune.json";
/** The race's result. */
export const RACE_FILE = "race.json";

/** Run (or resume) a race into `options.out`. */
export async function runTune(config: TuneConfig, options: TuneRunOptions): Promise<TuneRun> {
  const { out, tasks } = options;
  if (tasks.length === 0) throw new ConfigError(`${config.source}.env: no task to race on`, { field: "env.tasks" });
  // The objective joins the identity only when it is not the default, so older races keep their hash.
  const identity = {
    knobs: config.knobs,
    race: config.race,
    costLimit: config.costLimit ?? null,
    ...(config.objective !== "success" && { objective: config.objective }),
    base: config.base,
    tasks,
  };
  const hash = hashValue(identity);
  const tuneFile = join(out, TUNE_FILE);
  if (existsSync(tuneFile)) {
    if (!options.resume)
      throw new ConfigError(`${out} already holds a race: pass --resume to continue it, or choose another --out`, {
        field: "out",
      });
    const had = readJsonFile<{ hash?: string }>(tuneFile);
    if (had.hash !== hash)
      throw new ConfigError(
        `--resume: ${out} holds a race of another config, space or task list; resume it with the config that started it, or choose another --out`,
        { field: "resume" },
      );
  } else if (existsSync(out) && readdirSync(out).length > 0 && !options.resume) {
    throw new ConfigError(`--out: ${out} is not empty; choose a new folder for the race`, { field: "out" });
  }
  mkdirSync(out, { recursive: true });
  writeTextAtomic(tuneFile, JSON.stringify({ hash, ...identity }, null, 2) + "\n");

  const costUnit: TuneRun["costUnit"] =
    config.objective === "success-per-usd" || (config.costLimit && "usd" in config.costLimit) ? "usd" : "tokens";
  const r = config.race;
  const perRound = tasks.length * r.seedsPerRound;
  const race = createRace(config.knobs, {
    seed: r.seed,
    alpha: r.alpha,
    tieMargin: r.tieMargin,
    batchSize: r.batchSize,
    elites: r.elites,
    maxEpisodes: r.maxEpisodes,
    unitsPerRound: perRound,
    firstTestAfter: tasks.length * (r.firstTestAfterSeeds ?? 2 * r.seedsPerRound),
    maxUnitsPerBatch: tasks.length * Math.max(r.seedsPerRound, r.maxSeedsPerBatch),
    ...(r.batches !== undefined && { batches: r.batches }),
    objective: config.objective === "success" ? "success" : "success-per-cost",
    ...(config.costLimit && { costLimit: "usd" in config.costLimit ? config.costLimit.usd : config.costLimit.tokens }),
  });
  const rounds: string[] = [];
  let envErrors = 0;
  let simulated = false;
  for (let req = race.next(); req; req = race.next()) {
    const seeds = Array.from(
      { length: (req.to - req.from) / tasks.length },
      (_, i) => r.seedStart + req!.from / tasks.length + i,
    );
    const groups = new Map<string, TuneCandidate[]>();
    for (const c of req.candidates) groups.set(groupKey(c.setting), [...(groups.get(groupKey(c.setting)) ?? []), c]);
    const roundDir = join(out, "rounds", `b${req.batch}-r${req.round}`);
    const outcomes = new Map<string, UnitOutcome[]>();
    const keys = [...groups.keys()].sort();
    for (let g = 0; g < keys.length; g++) {
      const members = groups.get(keys[g])!;
      const dir = join(roundDir, `g${g}`);
      const cfg = candidateConfig(config, members, seeds);
      const done = existsSync(join(dir, "summary.json"));
      let lines: readonly ResultLine[];
      if (done) lines = [...readResults(join(dir, "results.jsonl")).values()];
      else {
        // A folder a kill left before its manifest holds nothing to keep.
        if (existsSync(dir) && !existsSync(join(dir, "manifest.json"))) rmSync(dir, { recursive: true, force: true });
        lines = await options.runGroup(cfg, dir, existsSync(dir));
      }
      simulated ||= lines.some((l) => l.simulated);
      const byKey = new Map(lines.map((l) => [`${l.condition}|${l.task}|${l.seed}`, l]));
      // a tune config always writes its one cap (tune/config.ts)
      const cap = cfg.maxRecoveryIterations![0];
      for (const c of members) {
        const condition = `${pairNameOf(config, c)}.max-rec-${cap}`;
        const list: UnitOutcome[] = [];
        for (let u = req.from; u < req.to; u++) {
          const task = tasks[u % tasks.length];
          const seed = r.seedStart + Math.floor(u / tasks.length);
          const line = byKey.get(`${condition}|${task}|${seed}`);
          if (!line)
            throw new ConfigError(
              `tune: round ${dir} has no result for ${condition} on ${task} seed ${seed} (the run stopped early: a cost cap?); --resume continues it`,
              { field: "resume" },
            );
          if (line.status === "env-error") envErrors++;
          // Success per 1k tokens races on tokens: its decisions (ranks, relative gaps) do not depend on the scale.
          list.push({
            success: line.status === "ok" && line.success,
            cost: costUnit === "usd" ? line.costUsd : line.tokens,
          });
        }
        outcomes.set(c.id, list);
      }
    }
    rounds.push(roundDir);
    race.record(outcomes);
    options.onRound?.(runningEstimate(race.result(), req.batch, req.round));
  }
  const result = race.result();
  writeTextAtomic(
    join(out, RACE_FILE),
    JSON.stringify(
      {
        ...result,
        objectiveKind: config.objective,
        costUnit,
        envErrors,
        simulated,
        tasks,
        seedStart: r.seedStart,
        knobs: config.knobs,
      },
      null,
      2,
    ) + "\n",
  );
  const winner = result.candidates.find((c) => c.id === result.winner);
  if (winner) {
    writeTextAtomic(join(out, "winner.yaml"), winnerYaml(config, winner.setting));
    writeTextAtomic(join(out, "winner.ts"), winnerSnippet(config, winner.setting));
  }
  return { result, rounds, envErrors, simulated, costUnit, out };
}

/** One line per round: survivors, the leader with its interval, episodes so far. */
export function runningEstimate(r: RaceResult, batch: number, round: number): string {
  const alive = r.candidates.filter(
    (c) => r.survivors.includes(c.id) || (!c.eliminated && r.batches[r.batches.length - 1].candidates.includes(c.id)),
  );
  const lead = r.candidates.find((c) => c.id === r.survivors[0]);
  const out = r.candidates.filter(
    (c) => c.eliminated?.reason === "worse" && c.eliminated.batch === batch && c.eliminated.round === round,
  );
  return `batch ${batch} round ${round}: ${alive.length} left, ${r.episodes} episodes; leader ${lead?.id ?? "-"} ${lead ? `${(100 * lead.success.rate).toFixed(0)}% [${(100 * lead.success.lo).toFixed(0)}-${(100 * lead.success.hi).toFixed(0)}] on ${lead.success.n} units` : ""}${out.length ? `; eliminated ${out.map((c) => `${c.id} (p=${c.eliminated!.pAdjusted!.toPrecision(2)})`).join(", ")}` : ""}`;
}
