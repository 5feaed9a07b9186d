/**
 * The racing tuner (F-Race / irace style, for paired binary outcomes): candidates run in rounds on
 * (task, seed) units every surviving candidate shares; after each round, candidates significantly
 * worse than the round's best are eliminated (McNemar's exact test against the best, Holm-adjusted
 * over the family of survivors); a batch stops when one candidate remains, when its units or the
 * episode budget are spent, or when the survivors are statistically tied (every survivor's paired
 * gap to the best lies within `tieMargin` at 95%). Large spaces are raced in batches: the best
 * survivors of a batch (elites) meet freshly sampled candidates on fresh units.
 *
 * A pull-driven state machine, no I/O: `next()` says which candidates to run on which units,
 * `record()` takes their outcomes. Deterministic under `seed`, so a resumed driver that is fed the
 * same outcomes makes the same decisions.
 *
 * Its options and their checks are in ./race-options.ts, the objectives' statistics in ./objective.ts, and the
 * answer (standings, decision in words) in ./race-result.ts.
 */
import { ConfigError, InternalError } from "@retrace-cua/core/errors";
import { holmAdjust, mcnemarExact } from "../metrics/paired.ts";
import { createRng, type Rng } from "@retrace-cua/core/rng";
import {
  bootstrapRatioGaps,
  costTest,
  mean,
  objectiveScore,
  RATIO_BOOTSTRAP,
  successGapBelow,
  type UnitOutcome,
} from "./objective.ts";
import {
  decisionText,
  standing,
  type BatchRecord,
  type RaceEntry,
  type RaceResult,
  type StopReason,
} from "./race-result.ts";
import { checkRaceOptions, resolveRaceOptions, type RaceOptions, type ResolvedRaceOptions } from "./race-options.ts";
import { candidateIndex, enumerateSpace, sampleCandidates, spaceSize, type Knob, type TuneCandidate } from "./space.ts";

/** What to run next: these candidates on units `from` .. `to - 1` (unit indices are global). */
export interface RaceRequest {
  batch: number;
  round: number;
  candidates: TuneCandidate[];
  from: number;
  to: number;
}

/** A racing tuner over `knobs`. */
export class Race {
  readonly alpha: number;
  readonly tieMargin: number;
  private readonly opts: ResolvedRaceOptions;
  private readonly seed: number | string;
  private readonly rng: Rng;
  private readonly entries = new Map<string, RaceEntry>();
  private readonly taken = new Set<number>();
  private readonly batches: BatchRecord[] = [];
  private alive: string[] = [];
  private nextUnit = 0;
  private episodes = 0;
  private pending?: RaceRequest;
  private finished?: { reason: StopReason; survivors: string[] };
  private readonly size: number;

  constructor(
    private readonly knobs: readonly Knob[],
    options: RaceOptions,
  ) {
    this.size = spaceSize(knobs);
    this.opts = resolveRaceOptions(options, this.size);
    this.seed = options.seed;
    checkRaceOptions(this.opts);
    this.alpha = this.opts.alpha;
    this.tieMargin = this.opts.tieMargin;
    this.rng = createRng(options.seed, "tune-sampler");
    this.startBatch([]);
  }

  /** The next round to run, or undefined when the race is over. */
  next(): RaceRequest | undefined {
    if (this.finished) return undefined;
    if (this.pending) return this.pending;
    const batch = this.batches[this.batches.length - 1];
    const from = batch.from + batch.units;
    const to = from + this.opts.unitsPerRound;
    this.pending = {
      batch: batch.batch,
      round: batch.rounds,
      candidates: this.alive.map((id) => this.entries.get(id)!.candidate),
      from,
      to,
    };
    return this.pending;
  }

  /** Record the outcomes of the pending round: per candidate id, one outcome per unit in order. */
  record(outcomes: ReadonlyMap<string, readonly UnitOutcome[]>): void {
    const req = this.pending;
    if (!req) throw new InternalError("Race.record: no round is pending (call next() first)");
    const n = req.to - req.from;
    for (const c of req.candidates) {
      const got = outcomes.get(c.id);
      if (!got || got.length !== n)
        throw new InternalError(
          `Race.record: candidate ${c.id} needs ${n} outcomes for units ${req.from}..${req.to - 1}, got ${got?.length ?? 0}`,
        );
      if (this.opts.objective === "success-per-cost") {
        const free = got.findIndex((o) => !(o.cost > 0));
        if (free >= 0)
          throw new ConfigError(
            `objective success per cost: candidate ${c.id}'s episode on unit ${req.from + free} cost ${got[free].cost} (an unpriced model or a simulated agent), so success per cost is undefined; price the model (per USD), use success per 1k tokens, or use objective success`,
            { field: "objective.kind" },
          );
      }
      const e = this.entries.get(c.id)!;
      e.outcomes.push(...got);
      e.episodes += n;
      this.episodes += n;
    }
    this.pending = undefined;
    const batch = this.batches[this.batches.length - 1];
    batch.units += n;
    batch.rounds++;
    this.eliminate(batch);
    const stop = this.stopReason(batch);
    if (stop) this.endBatch(batch, stop);
  }

  /** Whether the race is over. */
  get done(): boolean {
    return this.finished !== undefined;
  }

  /** Episodes run so far. */
  get episodesRun(): number {
    return this.episodes;
  }

  /** The current standing (a running estimate while the race runs; the answer once it is done). */
  result(): RaceResult {
    const survivors = this.finished?.survivors ?? this.ranked(this.alive);
    const reason = this.finished?.reason ?? "budget";
    const winner = this.finished && survivors.length === 1 ? survivors[0] : undefined;
    const last = this.batches[this.batches.length - 1];
    const candidates = [...this.entries.values()].map(standing);
    return {
      winner,
      survivors,
      reason,
      episodes: this.episodes,
      gridEpisodes: this.gridEpisodes(),
      spaceSize: this.size,
      alpha: this.alpha,
      tieMargin: this.tieMargin,
      objective: this.opts.objective,
      ...(this.opts.costLimit !== undefined && { costLimit: this.opts.costLimit }),
      batches: this.batches.map((b) => ({
        ...b,
        candidates: [...b.candidates],
        end: b.end && { ...b.end, survivors: [...b.end.survivors] },
      })),
      candidates,
      decision: decisionText(
        winner,
        survivors,
        reason,
        candidates,
        this.alpha,
        this.tieMargin,
        last?.units ?? 0,
        this.opts.objective,
        this.opts.costLimit,
      ),
    };
  }

  /** A candidate's outcomes in the last batch it ran (for reports). */
  outcomesOf(id: string): readonly UnitOutcome[] {
    return this.entries.get(id)?.outcomes ?? [];
  }

  /**
   * Episodes a grid would run for the same decisions at the same confidence: every candidate the
   * race sampled, each on as many units as the race's longest batch needed.
   */
  private gridEpisodes(): number {
    return this.entries.size * Math.max(0, ...this.batches.map((b) => b.units));
  }

  private startBatch(elites: string[]): void {
    const index = this.batches.length;
    let fresh: TuneCandidate[];
    if (index === 0 && this.size <= this.opts.batchSize) fresh = enumerateSpace(this.knobs);
    else fresh = sampleCandidates(this.knobs, this.opts.batchSize - elites.length, this.rng, this.taken);
    for (const c of fresh) {
      this.taken.add(candidateIndex(c.id));
      this.entries.set(c.id, { candidate: c, outcomes: [], episodes: 0, batches: [] });
    }
    const ids = [...elites, ...fresh.map((c) => c.id)];
    for (const id of ids) {
      const e = this.entries.get(id)!;
      e.outcomes = [];
      e.batches.push(index);
      e.eliminated = undefined;
    }
    this.alive = ids;
    this.batches.push({ batch: index, candidates: ids, from: this.nextUnit, units: 0, rounds: 0 });
  }

  private endBatch(batch: BatchRecord, reason: StopReason): void {
    this.nextUnit = batch.from + batch.units;
    const survivors = this.ranked(this.alive);
    batch.end = { reason, survivors };
    const budgetLeft = this.opts.maxEpisodes - this.episodes;
    const more =
      this.batches.length < this.opts.batches &&
      this.taken.size < this.size &&
      reason !== "budget" &&
      reason !== "none-within-cost";
    const elites = survivors.slice(0, this.opts.elites);
    if (more && budgetLeft >= (elites.length + 1) * this.opts.unitsPerRound) {
      for (const id of survivors.slice(this.opts.elites))
        this.entries.get(id)!.eliminated = {
          batch: batch.batch,
          round: batch.rounds - 1,
          units: batch.units,
          reason: "not-carried",
        };
      this.startBatch(elites);
      return;
    }
    this.finished = this.withinCap(batch, reason, survivors);
  }

  /**
   * The race's last survivors: those whose mean cost is above the limit (not significantly) leave, so the answer
   * respects the cap.
   */
  private withinCap(
    batch: BatchRecord,
    reason: StopReason,
    survivors: string[],
  ): { reason: StopReason; survivors: string[] } {
    const cap = this.opts.costLimit;
    if (cap === undefined) return { reason, survivors };
    const over = survivors.filter((id) => this.meanCost(id) > cap);
    if (over.length === 0) return { reason, survivors };
    for (const id of over)
      this.entries.get(id)!.eliminated = {
        batch: batch.batch,
        round: batch.rounds - 1,
        units: batch.units,
        reason: "over-cost",
        p: this.costTest(id, cap),
        atEnd: true,
      };
    const kept = survivors.filter((id) => !over.includes(id));
    this.alive = kept;
    batch.end = {
      reason: kept.length ? (kept.length === 1 ? "one-left" : reason) : "none-within-cost",
      survivors: kept,
    };
    return batch.end;
  }

  private meanCost(id: string): number {
    return mean(this.entries.get(id)!.outcomes.map((o) => o.cost));
  }

  /** One-sided z-test of "mean cost per episode <= cap" on the candidate's per-unit costs: the p-value. */
  private costTest(id: string, cap: number): number {
    return costTest(
      this.entries.get(id)!.outcomes.map((o) => o.cost),
      cap,
    );
  }

  /** Paired bootstrap draws of the relative gap (best - other) / best in success per cost, over the shared units. */
  private ratioGaps(best: string, other: string, salt: string): number[] {
    const rng = createRng(this.seed, "tune-bootstrap", salt, best, other);
    return bootstrapRatioGaps(this.entries.get(best)!.outcomes, this.entries.get(other)!.outcomes, rng);
  }

  /**
   * Ids by the objective in the current batch (success, or success per cost; most first), then
   * lower mean cost, then grid order; under a cost limit, those whose mean cost is within it first.
   */
  private ranked(ids: readonly string[]): string[] {
    const cap = this.opts.costLimit;
    const key = (id: string) => {
      const o = this.entries.get(id)!.outcomes;
      const c = mean(o.map((x) => x.cost));
      const s = objectiveScore(o, this.opts.objective);
      return { over: cap !== undefined && c > cap ? 1 : 0, s, c };
    };
    return [...ids].sort(
      (a, b) =>
        key(a).over - key(b).over ||
        key(b).s - key(a).s ||
        key(a).c - key(b).c ||
        candidateIndex(a) - candidateIndex(b),
    );
  }

  private eliminate(batch: BatchRecord): void {
    if (batch.units < this.opts.firstTestAfter) return;
    const round = batch.rounds - 1;
    const cap = this.opts.costLimit;
    if (cap !== undefined) {
      const ps = this.alive.map((id) => this.costTest(id, cap));
      const adjusted = holmAdjust(ps);
      this.alive.forEach((id, i) => {
        if (adjusted[i] < this.alpha)
          this.entries.get(id)!.eliminated = {
            batch: batch.batch,
            round,
            units: batch.units,
            reason: "over-cost",
            p: ps[i],
            pAdjusted: adjusted[i],
            family: ps.length,
          };
      });
      this.alive = this.alive.filter((id) => !this.entries.get(id)!.eliminated);
    }
    if (this.alive.length < 2) return;
    const [best, ...others] = this.ranked(this.alive);
    if (this.opts.objective === "success-per-cost") {
      const tests = others.map((id) => {
        const gaps = this.ratioGaps(best, id, `${batch.batch}/${round}`);
        return { id, p: (1 + gaps.filter((g) => g <= 0).length) / (RATIO_BOOTSTRAP + 1) };
      });
      const adjusted = holmAdjust(tests.map((t) => t.p));
      tests.forEach((t, i) => {
        if (adjusted[i] < this.alpha)
          this.entries.get(t.id)!.eliminated = {
            batch: batch.batch,
            round,
            units: batch.units,
            reason: "worse",
            against: best,
            p: t.p,
            pAdjusted: adjusted[i],
            family: tests.length,
          };
      });
      this.alive = this.alive.filter((id) => !this.entries.get(id)!.eliminated);
      return;
    }
    const b = this.entries.get(best)!.outcomes;
    const tests = others.map((id) => {
      const o = this.entries.get(id)!.outcomes;
      let onlyBest = 0;
      let onlyOther = 0;
      for (let i = 0; i < o.length; i++) {
        if (b[i].success && !o[i].success) onlyBest++;
        else if (!b[i].success && o[i].success) onlyOther++;
      }
      return { id, onlyBest, onlyOther, p: mcnemarExact(onlyBest, onlyOther) };
    });
    const adjusted = holmAdjust(tests.map((t) => t.p));
    tests.forEach((t, i) => {
      if (adjusted[i] < this.alpha && t.onlyBest > t.onlyOther)
        this.entries.get(t.id)!.eliminated = {
          batch: batch.batch,
          round,
          units: batch.units,
          reason: "worse",
          against: best,
          p: t.p,
          pAdjusted: adjusted[i],
          family: tests.length,
        };
    });
    this.alive = this.alive.filter((id) => !this.entries.get(id)!.eliminated);
  }

  private stopReason(batch: BatchRecord): StopReason | undefined {
    if (this.alive.length === 0) return "none-within-cost";
    if (this.alive.length === 1 && batch.units >= this.opts.firstTestAfter) return "one-left";
    if (batch.units >= this.opts.firstTestAfter && this.tied()) return "tied";
    if (batch.units + this.opts.unitsPerRound > this.opts.maxUnitsPerBatch) return "max-units";
    if (this.episodes + this.alive.length * this.opts.unitsPerRound > this.opts.maxEpisodes) return "budget";
    return undefined;
  }

  /** Every survivor's paired gap to the best is below `tieMargin` at 95% (one-sided upper bound). */
  private tied(): boolean {
    const [best, ...others] = this.ranked(this.alive);
    if (this.opts.objective === "success-per-cost") {
      // Tied: the 95th percentile of the bootstrap relative gap to the best is below tieMargin.
      return others.every((id) => {
        const gaps = this.ratioGaps(best, id, "tie").sort((x, y) => x - y);
        return gaps[Math.floor(0.95 * (gaps.length - 1))] < this.tieMargin;
      });
    }
    const b = this.entries.get(best)!.outcomes;
    return others.every((id) => successGapBelow(b, this.entries.get(id)!.outcomes, this.tieMargin));
  }
}

/** A racing tuner over `knobs` (see {@link Race}). */
export function createRace(knobs: readonly Knob[], options: RaceOptions): Race {
  return new Race(knobs, options);
}
