/**
 * Reading a pilot for `retrace tune --plan`: any run folder (a `retrace run` folder, or a round of
 * a race) gives the baseline success rate (its first condition), how often paired outcomes differ
 * (discordance against the first condition, averaged over the others) and the mean tokens, USD
 * and seconds per episode.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { readResults, type ResultLine } from "../runner/results-log.ts";

export interface Pilot {
  baseline: number;
  /** Share of paired units where the conditions disagree (undefined with one condition). */
  discordance?: number;
  units: number;
  tokensPerEpisode: number;
  usdPerEpisode: number;
  secondsPerEpisode?: number;
}

/** Run folders (holding results.jsonl) at or under `dir`. */
function runsUnder(dir: string): string[] {
  if (existsSync(join(dir, "results.jsonl"))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((d) => (statSync(join(dir, d)).isDirectory() ? runsUnder(join(dir, d)) : []));
}

/** Read a pilot folder; a ConfigError when it holds no results. */
export function readPilot(dir: string): Pilot {
  const runs = runsUnder(dir);
  const lines = runs
    .flatMap((r) => [...readResults(join(r, "results.jsonl")).values()])
    .filter((l: ResultLine) => l.status === "ok");
  if (lines.length === 0)
    throw new ConfigError(
      `--pilot: ${dir} holds no results.jsonl with finished episodes; give a run folder (retrace run --out) or a race folder`,
      { field: "pilot" },
    );
  const conditions = [...new Set(lines.map((l) => l.condition))].sort();
  const by = (c: string) =>
    new Map(lines.filter((l) => l.condition === c).map((l) => [`${l.task}/${l.seed}`, l.success]));
  const first = by(conditions[0]);
  const baseline = [...first.values()].filter(Boolean).length / first.size;
  let disc = 0,
    pairs = 0;
  for (const c of conditions.slice(1)) {
    for (const [unit, s] of by(c)) {
      const b = first.get(unit);
      if (b === undefined) continue;
      pairs++;
      if (b !== s) disc++;
    }
  }
  let seconds: number | undefined;
  const ms = runs.flatMap((r) =>
    existsSync(join(r, "timings.jsonl"))
      ? readFileSync(join(r, "timings.jsonl"), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { wallMs?: number }).wallMs ?? 0)
      : [],
  );
  if (ms.length) seconds = ms.reduce((a, b) => a + b, 0) / ms.length / 1000;
  return {
    baseline,
    units: first.size,
    ...(pairs > 0 && { discordance: disc / pairs }),
    tokensPerEpisode: lines.reduce((a, l) => a + l.tokens, 0) / lines.length,
    usdPerEpisode: lines.reduce((a, l) => a + l.costUsd, 0) / lines.length,
    ...(seconds !== undefined && { secondsPerEpisode: seconds }),
  };
}
