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
 */
import { ConfigError, InternalError } from "@retrace-cua/core/errors";
import { holmAdjust, mcnemarExact } from "../metrics/paired.ts";
import { normalCdf, wilsonInterval, Z95, type Proportion } from "../metrics/wilson.ts";
import { createRng, type Rng } from "@retrace-cua/core/rng";
import { candidateIndex, enumerateSpace, sampleCandidates, spaceSize, type Knob, type TuneCandidate } from "./space.ts";

/** Options of {@link createRace}. */
export interface RaceOptions {
  /** Family-wise significance level of each round's eliminations (Holm). @default 0.05 */
  alpha?: number;
  /** Units (task x seed) each round adds for every survivor. */
  unitsPerRound: number;
  /** Units every candidate of a batch runs before the first elimination test. @default unitsPerRound */
  firstTestAfter?: number;
  /** Most units one batch runs; then its survivors are reported as tied at this budget. */
  maxUnitsPerBatch: number;
  /** Most episodes the whole race may run (a round that would exceed it is not started). */
  maxEpisodes: number;
  /**
   * Survivors whose paired success gap to the best is, at 95%, below this (a share, 0.05 = 5 points) are tied. @default
   * 0.05
   */
  tieMargin?: number;
  /** Candidates per batch (a space this small or smaller is raced whole, as one batch). @default 32 */
  batchSize?: number;
  /** Most batches. @default 1 when the space fits one batch, else 3 */
  batches?: number;
  /** Survivors of a batch carried into the next one. @default 2 */
  elites?: number;
  /**
   * Most mean cost per episode (tokens or USD, as the outcomes give it). A candidate whose mean cost
   * is significantly above it (one-sided z-test on its per-unit costs, Holm over the round's
   * survivors) is eliminated; at the end, survivors whose mean cost is above it (not significantly)
   * leave too, so the winner and tied set respect the cap. @default none
   */
  costLimit?: number;
  /**
   * What the race maximises: `success` (success rate; McNemar eliminations) or `success-per-cost`
   * (successes per unit of cost over the shared units; paired bootstrap eliminations). @default "success"
   */
  objective?: RaceObjective;
  /** Seed of the sampler. */
  seed: number | string;
}

/** What a race maximises. */
export type RaceObjective = "success" | "success-per-cost";

/** Paired bootstrap resamples of a success-per-cost comparison. */
export const RATIO_BOOTSTRAP = 1000;

/** One candidate's outcome on one unit. */
export interface UnitOutcome {
  success: boolean;
  /** Cost of the episode (tokens or USD; 0 for simulated agents). */
  cost: number;
}

/** What to run next: these candidates on units `from` .. `to - 1` (unit indices are global). */
export interface RaceRequest {
  batch: number;
  round: number;
  candidates: TuneCandidate[];
  from: number;
  to: number;
}

/** Why a candidate left the race. */
export interface Elimination {
  batch: number;
  round: number;
  /** Units it had run when it left. */
  units: number;
  reason: "worse" | "over-cost" | "not-carried";
  /** The candidate it lost to (reason "worse"). */
  against?: string;
  /**
   * Reason "worse": McNemar's exact p (objective success) or the paired bootstrap p (success per
   * cost) against `against`; reason "over-cost": the one-sided z-test's p that its mean cost is
   * at most the limit. Raw and Holm-adjusted over the round's family.
   */
  p?: number;
  pAdjusted?: number;
  /** Family size of the Holm adjustment. */
  family?: number;
  /** Reason "over-cost" at the end of the race: its mean cost is above the limit, not significantly. */
  atEnd?: boolean;
}

/** How a batch (and the race) ended. */
export type StopReason = "one-left" | "tied" | "max-units" | "budget" | "none-within-cost";

/** A candidate's standing. */
export interface CandidateStanding {
  id: string;
  setting: TuneCandidate["setting"];
  /** Success over the units it ran in its last batch, with a Wilson 95% interval. */
  success: Proportion;
  /** Mean cost per episode, with a normal 95% interval. */
  cost: { mean: number; low: number; high: number };
  /** Episodes it ran in the whole race. */
  episodes: number;
  batches: number[];
  eliminated?: Elimination;
}

export interface BatchRecord {
  batch: number;
  candidates: string[];
  from: number;
  /** Units run so far. */
  units: number;
  rounds: number;
  end?: { reason: StopReason; survivors: string[] };
}

/** The race's answer. */
export interface RaceResult {
  /** The one winner, or undefined when the race ends with a tied set. */
  winner?: string;
  /** Survivors of the last batch, best first (the tied set when there is no single winner). */
  survivors: string[];
  reason: StopReason;
  episodes: number;
  /** Episodes a full grid of the same candidates would run on as many units as the longest batch. */
  gridEpisodes: number;
  spaceSize: number;
  alpha: number;
  tieMargin: number;
  objective: RaceObjective;
  costLimit?: number;
  batches: BatchRecord[];
  candidates: CandidateStanding[];
  /** One plain sentence: what was decided, with what confidence. */
  decision: string;
}

interface Entry {
  candidate: TuneCandidate;
  /** Outcomes in the last batch it ran, by unit offset from that batch's `from`. */
  outcomes: UnitOutcome[];
  episodes: number;
  batches: number[];
  eliminated?: Elimination;
}

/** A racing tuner over `knobs`. */
export class Race {
  readonly alpha: number;
  readonly tieMargin: number;
  private readonly opts: Required<Omit<RaceOptions, "costLimit" | "seed">> & Pick<RaceOptions, "costLimit">;
  private readonly seed: number | string;
  private readonly rng: Rng;
  private readonly entries = new Map<string, Entry>();
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
    const batchSize = options.batchSize ?? 32;
    this.opts = {
      alpha: options.alpha ?? 0.05,
      unitsPerRound: options.unitsPerRound,
      firstTestAfter: options.firstTestAfter ?? options.unitsPerRound,
      maxUnitsPerBatch: options.maxUnitsPerBatch,
      maxEpisodes: options.maxEpisodes,
      tieMargin: options.tieMargin ?? 0.05,
      batchSize,
      batches: options.batches ?? (this.size <= batchSize ? 1 : 3),
      elites: options.elites ?? 2,
      costLimit: options.costLimit,
      objective: options.objective ?? "success",
    };
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
    const costs = this.entries.get(id)!.outcomes.map((o) => o.cost);
    const m = mean(costs);
    const sd = Math.sqrt(
      Math.max(0, mean(costs.map((c) => c * c)) - m * m) * (costs.length / Math.max(1, costs.length - 1)),
    );
    if (sd === 0) return m > cap ? 0 : 1;
    return 1 - normalCdf((m - cap) / (sd / Math.sqrt(costs.length)));
  }

  /** Successes per unit of cost of a candidate on the given unit indices (all, when none given). */
  private ratio(o: readonly UnitOutcome[], idx?: readonly number[]): number {
    let s = 0,
      c = 0;
    if (idx)
      for (const i of idx) {
        s += Number(o[i].success);
        c += o[i].cost;
      }
    else
      for (const x of o) {
        s += Number(x.success);
        c += x.cost;
      }
    return c > 0 ? s / c : 0;
  }

  /** Paired bootstrap draws of the relative gap (best - other) / best in success per cost, over the shared units. */
  private ratioGaps(best: string, other: string, salt: string): number[] {
    const b = this.entries.get(best)!.outcomes,
      o = this.entries.get(other)!.outcomes;
    const rng = createRng(this.seed, "tune-bootstrap", salt, best, other);
    const n = b.length;
    const idx = new Array<number>(n);
    const gaps: number[] = [];
    for (let k = 0; k < RATIO_BOOTSTRAP; k++) {
      for (let i = 0; i < n; i++) idx[i] = Math.floor(rng.next() * n);
      const rb = this.ratio(b, idx),
        ro = this.ratio(o, idx);
      gaps.push(rb > 0 ? (rb - ro) / rb : ro > 0 ? -1 : 0);
    }
    return gaps;
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
      const s =
        this.opts.objective === "success-per-cost"
          ? this.ratio(o)
          : o.filter((x) => x.success).length / Math.max(1, o.length);
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
    return others.every((id) => {
      const o = this.entries.get(id)!.outcomes;
      const d = o.map((x, i) => Number(b[i].success) - Number(x.success));
      const m = mean(d);
      const v = mean(d.map((x) => x * x)) - m * m;
      return m + Z95 * Math.sqrt(Math.max(v, 1e-12) / d.length) < this.tieMargin;
    });
  }
}

/** A racing tuner over `knobs` (see {@link Race}). */
export function createRace(knobs: readonly Knob[], options: RaceOptions): Race {
  return new Race(knobs, options);
}

function checkRaceOptions(o: Required<Omit<RaceOptions, "costLimit" | "seed">> & Pick<RaceOptions, "costLimit">): void {
  const int = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min)
      throw new ConfigError(`tune.race.${name}: expected an integer >= ${min}, got ${v}`, {
        field: `tune.race.${name}`,
      });
  };
  int("unitsPerRound", o.unitsPerRound, 1);
  int("firstTestAfter", o.firstTestAfter, 1);
  int("maxUnitsPerBatch", o.maxUnitsPerBatch, o.unitsPerRound);
  int("maxEpisodes", o.maxEpisodes, 1);
  int("batchSize", o.batchSize, 2);
  int("batches", o.batches, 1);
  int("elites", o.elites, 0);
  if (o.elites >= o.batchSize)
    throw new ConfigError(
      `tune.race.elites: ${o.elites} elites leave no room for new candidates in batches of ${o.batchSize}; use fewer elites`,
      { field: "tune.race.elites" },
    );
  if (!(o.alpha > 0 && o.alpha < 1))
    throw new ConfigError(`tune.race.alpha: expected a level between 0 and 1 (e.g. 0.05), got ${o.alpha}`, {
      field: "tune.race.alpha",
    });
  if (!(o.tieMargin > 0 && o.tieMargin < 1))
    throw new ConfigError(
      `tune.race.tieMargin: expected a share between 0 and 1 (0.05 = 5 points), got ${o.tieMargin}`,
      { field: "tune.race.tieMargin" },
    );
  if (o.objective !== "success" && o.objective !== "success-per-cost")
    throw new ConfigError(
      `tune.race.objective: expected "success" or "success-per-cost", got ${JSON.stringify(o.objective)}`,
      { field: "tune.race.objective" },
    );
  if (o.costLimit !== undefined && !(o.costLimit > 0))
    throw new ConfigError(`tune.race.costLimit: expected a positive cost per episode, got ${o.costLimit}`, {
      field: "tune.race.costLimit",
    });
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

function standing(e: Entry): CandidateStanding {
  const o = e.outcomes;
  const costs = o.map((x) => x.cost);
  const m = mean(costs);
  const sd = Math.sqrt(Math.max(0, mean(costs.map((c) => c * c)) - m * m));
  const half = costs.length ? (Z95 * sd) / Math.sqrt(costs.length) : 0;
  return {
    id: e.candidate.id,
    setting: e.candidate.setting,
    success: wilsonInterval(o.filter((x) => x.success).length, o.length),
    cost: { mean: m, low: Math.max(0, m - half), high: m + half },
    episodes: e.episodes,
    batches: [...e.batches],
    ...(e.eliminated && { eliminated: { ...e.eliminated } }),
  };
}

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

function decisionText(
  winner: string | undefined,
  survivors: string[],
  reason: StopReason,
  candidates: CandidateStanding[],
  alpha: number,
  tieMargin: number,
  units: number,
  objective: RaceObjective,
  costLimit: number | undefined,
): string {
  const by = new Map(candidates.map((c) => [c.id, c]));
  const worse = candidates.filter((c) => c.eliminated?.reason === "worse");
  const maxP = worse.length ? Math.max(...worse.map((c) => c.eliminated!.pAdjusted!)) : undefined;
  const test = objective === "success-per-cost" ? "paired bootstrap of success per cost" : "McNemar exact";
  const over = candidates.filter((c) => c.eliminated?.reason === "over-cost");
  const lost = `${worse.length} candidate(s) eliminated as worse (${test}, Holm-adjusted${maxP !== undefined ? `, largest adjusted p = ${maxP.toPrecision(2)}` : ""} < ${alpha})${costLimit !== undefined ? `, ${over.length} as over the cost limit of ${costLimit} per episode (one-sided z-test, Holm; or mean above it at the end)` : ""}`;
  if (reason === "none-within-cost") return `no candidate stayed within the cost limit; ${lost}`;
  if (winner) {
    const w = by.get(winner)!;
    return `winner ${winner} (${pct(w.success.rate)} success on ${w.success.n} paired units, 95% CI ${pct(w.success.lo)}-${pct(w.success.hi)}): every other candidate left the race (${lost}); family-wise error of each round's eliminations at most ${alpha}`;
  }
  const why =
    reason === "tied"
      ? `statistically tied: each is within ${pct(tieMargin)} of the best${objective === "success-per-cost" ? "'s success per cost (relative gap)" : ""} at 95%`
      : reason === "budget"
        ? "the episode budget is spent before they could be separated"
        : `the batch's ${units} units are spent before they could be separated`;
  return `${survivors.length} candidates remain (${survivors.join(", ")}): ${why}; ${lost}; run more units (see --plan) to separate them`;
}

/**
 * The objective in words, e.g. "success rate, mean cost at most 4000 tokens per episode". `kind` names the cost unit of
 * a success-per-cost race.
 */
export function objectiveText(r: Pick<RaceResult, "objective" | "costLimit">, costUnit: string, kind?: string): string {
  const unit = costUnit === "usd" ? "USD" : "tokens";
  const what =
    r.objective === "success-per-cost"
      ? (kind === "success-per-1k-tokens"
          ? "success per 1k tokens"
          : kind === "success-per-usd"
            ? "success per USD"
            : `success per ${unit}`) + " (paired bootstrap, Holm)"
      : "success rate (McNemar, Holm)";
  return `${what}${r.costLimit !== undefined ? `, mean cost at most ${r.costLimit} ${unit} per episode (one-sided z-test, Holm)` : ""}`;
}

/** Why a candidate left, in words (with its p-values). */
export function eliminationText(e: Elimination): string {
  const where = `batch ${e.batch}, round ${e.round} (${e.units} units)`;
  if (e.reason === "worse")
    return `eliminated in ${where} against ${e.against}: p = ${e.pAdjusted!.toPrecision(2)} (Holm over ${e.family}; raw ${e.p!.toPrecision(2)})`;
  if (e.reason === "over-cost") {
    if (e.atEnd)
      return `left at the end of ${where}: mean cost above the limit (not significantly${e.p !== undefined ? `, p = ${e.p.toPrecision(2)}` : ""})`;
    return `eliminated in ${where}: over the cost limit${e.pAdjusted !== undefined ? `, p = ${e.pAdjusted.toPrecision(2)} (one-sided, Holm over ${e.family}; raw ${e.p!.toPrecision(2)})` : ""}`;
  }
  return `not carried past batch ${e.batch}`;
}
