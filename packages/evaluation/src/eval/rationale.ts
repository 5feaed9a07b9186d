/**
 * Rationale analysis as the paper does it (Section 5.3, Figure 6): how similar is each recovery
 * step's rationale to the ground-truth recovery instruction of its sample? Implicit recoverers
 * that never try to restore score low; explicit ones that undo their way back score high.
 *
 * Two scorers, one interface:
 * - `embedding`: cosine similarity of embeddings from a {@link TextEmbedder} (an
 *   OpenAI-compatible `/v1/embeddings` endpoint: packages/models/src/models/openai-embeddings.ts);
 * - `tfidf` (the offline fallback): cosine of TF-IDF vectors over the evaluation's own corpus
 *   (every rationale and reference), lower-cased word tokens with light suffix stemming, numbers
 *   and a few stop words dropped (coordinates would otherwise make "CLICK(795,537)" look like its undo).
 *
 * Per episode: the maximum similarity over its rationales (the paper's "did it try to restore at
 * all"), and restorative intent = maximum >= threshold. Thresholds (documented in
 * experiments/recovery-eval/README.md): TF-IDF 0.09, calibrated on SimDesk (the threshold that
 * best separates explicit from implicit recovery episodes by Youden's J on half the tasks, checked
 * on the other half: experiments/scripts/calibrate-rationale.ts); embeddings 0.5, uncalibrated
 * (no embedding model offline) - calibrate per embedding model with the same script. The keyword
 * classifier (./intent.ts) stays beside it as a baseline.
 */
import { ConfigError, AdapterError } from "@retrace-cua/core/errors";
import { formatAction } from "@retrace-cua/core/action";
import type { RecoverySample } from "../dataset/types.ts";

/** Turns texts into vectors (an embedding model). */
export interface TextEmbedder {
  /** e.g. "openai-embeddings(text-embedding-3-small)". */
  readonly name: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** How rationales are compared with the reference. */
export type RationaleScorer =
  { kind: "tfidf"; threshold?: number } | { kind: "embedding"; embedder: TextEmbedder; threshold?: number };

/** Restorative when the best TF-IDF cosine reaches this (calibrated on SimDesk, see above). */
export const DEFAULT_TFIDF_THRESHOLD = 0.09;
/** Restorative when the best embedding cosine reaches this (a starting point, not calibrated). */
export const DEFAULT_EMBEDDING_THRESHOLD = 0.5;

/** One episode's rationale analysis. */
export interface RationaleScore {
  /** "tfidf" or the embedder's name. */
  method: string;
  /** Best similarity over the episode's rationales (null without a rationale). */
  maxSimilarity: number | null;
  /** maxSimilarity >= threshold (null without a rationale). */
  restorative: boolean | null;
  threshold: number;
}

/**
 * The ground-truth recovery instruction of a sample: undo the d perturbation actions (newest
 * first) and return to the state after step t. Built from the sample alone, so it exists on any
 * environment.
 */
export function recoveryReference(sample: Pick<RecoverySample, "targetStep" | "distance" | "perturbation">): string {
  const undo = [...sample.perturbation].reverse().flatMap((s) => s.actions.map(formatAction));
  return `Undo the mistake and restore the previous state: revert the last ${sample.distance} action(s) (${undo.join(", ") || "none"}), go back to the target state after step ${sample.targetStep}, then declare it restored.`;
}

const STOP = new Set([
  "the",
  "a",
  "an",
  "and",
  "or",
  "of",
  "to",
  "in",
  "on",
  "at",
  "is",
  "it",
  "this",
  "that",
  "then",
  "for",
  "with",
  "s",
]);

/**
 * Lower-cased word tokens, numbers and stop words dropped, light suffix stemming ("restored" = "restore" =
 * "restoring").
 */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z'-]*/g) ?? []).filter((t) => !STOP.has(t)).map(stem);
}

function stem(w: string): string {
  for (const suffix of ["ing", "ed", "es", "e", "s"])
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) return w.slice(0, -suffix.length);
  return w;
}

/** TF-IDF vectors (smoothed idf = ln((1 + N) / (1 + df)) + 1) of `docs`, each L2-normalised. */
export function tfidfVectors(docs: readonly string[]): Array<Map<string, number>> {
  const toks = docs.map(tokens);
  const df = new Map<string, number>();
  for (const t of toks) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  return toks.map((t) => {
    const tf = new Map<string, number>();
    for (const w of t) tf.set(w, (tf.get(w) ?? 0) + 1);
    const v = new Map<string, number>();
    let norm = 0;
    for (const [w, c] of tf) {
      const x = c * (Math.log((1 + n) / (1 + (df.get(w) ?? 0))) + 1);
      v.set(w, x);
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [w, x] of v) v.set(w, x / norm);
    return v;
  });
}

function sparseCosine(a: Map<string, number>, b: Map<string, number>): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let s = 0;
  for (const [w, x] of small) s += x * (big.get(w) ?? 0);
  return s;
}

/** Cosine similarity of two dense vectors (0 when either is zero). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new ConfigError(`cosine: vectors differ in length (${a.length} vs ${b.length})`);
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Score every episode's rationales against its reference; the TF-IDF corpus is all of them. */
export async function scoreRationales(
  episodes: ReadonlyArray<{ rationales: readonly (string | undefined)[]; reference: string }>,
  scorer: RationaleScorer = { kind: "tfidf" },
  signal?: AbortSignal,
): Promise<RationaleScore[]> {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const id = (t: string) => index.get(t) ?? (index.set(t, texts.push(t) - 1), texts.length - 1);
  const items = episodes.map((e) => ({
    ref: id(e.reference),
    rats: e.rationales.filter((r): r is string => !!r && r.trim() !== "").map(id),
  }));
  const threshold =
    scorer.threshold ?? (scorer.kind === "tfidf" ? DEFAULT_TFIDF_THRESHOLD : DEFAULT_EMBEDDING_THRESHOLD);
  let sim: (a: number, b: number) => number;
  let method: string;
  if (scorer.kind === "tfidf") {
    const v = tfidfVectors(texts);
    sim = (a, b) => sparseCosine(v[a], v[b]);
    method = "tfidf";
  } else {
    const v = texts.length ? await scorer.embedder.embed(texts, signal) : [];
    if (v.length !== texts.length)
      throw new AdapterError(
        `scoreRationales: ${scorer.embedder.name} returned ${v.length} vectors for ${texts.length} texts`,
      );
    sim = (a, b) => cosine(v[a], v[b]);
    method = scorer.embedder.name;
  }
  return items.map(({ ref, rats }) => {
    if (rats.length === 0) return { method, maxSimilarity: null, restorative: null, threshold };
    const best = Math.max(...rats.map((r) => sim(r, ref)));
    const rounded = Math.round(best * 1e6) / 1e6;
    return { method, maxSimilarity: rounded, restorative: rounded >= threshold, threshold };
  });
}
