/**
 * The trajectory viewer's data: an index of every episode (kept in the page) and one chunk file
 * per run and condition holding the episodes themselves, loaded when the viewer opens one. Steps
 * carry their episode position (never renumbered after a restore), E/R flags and the marks to draw
 * on the screenshot; events become sentences. Screenshots stay in the run's blob store and are
 * referenced by URL relative to the report file, at full resolution. Screens the store keeps as
 * gzipped SVG (SimDesk's, as `.svgz` files or in the folder's pack) are named `screen:<ref>` instead: the report copies
 * them into
 * `<report>-files/screens/<ref[0:2]>.js` and the page unzips and shows the SVG on demand.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { formatAction, type Action } from "@retrace-cua/core/action";
import { BLOB_REF_RE, BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeRecord } from "../runner/episode.ts";
import type { CallRecord } from "../agents/call-log.ts";
import { ANNOTATION_CALLS_FILE } from "../ideal/annotation-calls.ts";
import { runBlobsDir } from "../runner/run-blobs.ts";
import { RECORDS_PACK as RECORDS_PACK_NAME } from "../runner/episode-records.ts";
import { ConfigError } from "@retrace-cua/core/errors";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { realInside, showId } from "@retrace-cua/core/store/safe-path";
import { episodeFolder, inside, pickEpisodes, type RunData } from "./data.ts";
import { callsByStep, contextViews, transitionText, type ContextView, type ViewerCall } from "./viewer-calls.ts";
import { conditionLabel } from "./labels.ts";
import { bothNumbers, confirmationWords } from "./step-words.ts";
import { addSsimMaps, restorePairs } from "./ssim-maps.ts";

export type { ViewerCall, ContextView } from "./viewer-calls.ts";

/** A mark the viewer draws on a screenshot, in screen pixels. */
export type ViewerMark =
  | { t: "click"; x: number; y: number; label: string }
  | { t: "drag"; x: number; y: number; x2: number; y2: number }
  | { t: "text"; text: string; x?: number; y?: number };

/** A step as the viewer shows it (screenshots as URLs relative to the report file). */
export interface ViewStep {
  /**
   * The step number shown everywhere: position in the episode from 0, across every role (never restarts after a
   * restore).
   */
  n: number;
  seq: number;
  role: string;
  /** The step's index in the task history (forward) or in its recovery attempt. */
  step: number;
  attempt?: number;
  actions: string[];
  marks: ViewerMark[];
  response?: string;
  failure?: string;
  detection?: { isError: boolean; errorStep: number | null; reason: string; confidence: number; failure?: string };
  frozen?: boolean;
  /** "E1" (first error found by attempt 1's detection), "R1" (its recovery step). */
  flags?: string[];
  /** The retry cap, on a forward step the detector did not judge because the cap was spent (the detector is off). */
  detectorOff?: number;
  /**
   * Ground truth (the environment's reference path, e.g. SimDesk's): on the step a failed episode went off track for
   * good, why (the record's `offTrack`).
   */
  offTrack?: string;
  /** The model calls recorded against this step when they were made (the episode's call log; see viewer-calls.ts). */
  calls?: ViewerCall[];
  /** First forward step after a restoration: the history cut and the context the policy saw. */
  context?: ContextView;
  /** Accessibility tree the policy received with this step's screen, when its observation had one. */
  a11y?: string;
  /** How many calls the step has, once `calls` moved to the episode's call file (call-files.ts). */
  callCount?: number;
  before: string;
  after: string;
}

/** An event of the episode as a sentence, with the screenshots it compares. */
export interface ViewerEvent {
  afterSeq: number;
  kind: string;
  text: string;
  /** Recovery end: the target screenshot and the restored one. */
  target?: string;
  restored?: string;
  /**
   * Recovery end: SSIM of target vs restored per 8x8 block of a 160x96 grayscale thumbnail, row-major, 20 x 12 values
   * in [0, 1].
   */
  ssimMap?: number[];
}

/** An episode for the viewer (loaded on demand from its chunk file). */
export interface ViewEpisode {
  key: string;
  instruction: string;
  score: number;
  detail: string;
  stopReason: string;
  simulated: boolean;
  steps: ViewStep[];
  events: ViewerEvent[];
  /** What the episode is (ideal recovery's phase, strategy, R and k), in words; "" for plain episodes. */
  about: string;
  /** The key of the file holding its steps' calls and accessibility trees (call-files.ts), when it has any. */
  callsFile?: string;
}

/** One row of the viewer's index (always in the page). */
export interface ViewerIndexRow {
  run: string;
  key: string;
  condition: string;
  task: string;
  seed: number;
  success: boolean;
  recoveryAttempts: number;
  steps: number;
  /** Chunk file holding the episode. */
  chunk: number;
  /** The condition's display name (labels.ts conditionLabel), the same as in the tables and charts. */
  label: string;
  /** The task's instruction, for the viewer's text search. */
  instruction: string;
  /**
   * The episode's other words for the text search, each once, lower case: actions, responses,
   * detector and selector reasons, events, model replies (rationales) and condition name.
   */
  words?: string;
  /** Ideal recovery's continuation index, when the episode is one. */
  k?: number;
}

const REF = BLOB_REF_RE;

/**
 * The screens a report shows that are kept as gzipped SVG: `seen` maps a ref to a reader of its
 * gzipped SVG (the report writes them into its screen packs), or null for a PNG file, to look once;
 * `blobs` is the store of the run being read.
 */
export interface ScreenFiles {
  blobs?: BlobStore;
  seen: Map<string, (() => Promise<Buffer>) | null>;
}

/** The prefix of a screenshot URL that names a screen kept as SVG (`screen:<ref>`). */
export const SCREEN_URL_PREFIX = "screen:";

/**
 * A screenshot's URL relative to the report folder ("" when unknown); `screen:<ref>` when the
 * blob store keeps it as gzipped SVG and `screens` is given (it then collects that file).
 */
export function blobUrl(blobsDir: string, reportDir: string, ref: unknown, screens?: ScreenFiles): string {
  if (typeof ref !== "string" || !REF.test(ref)) return "";
  const blobs = screens?.blobs;
  if (screens && blobs) {
    let svgz = screens.seen.get(ref);
    if (svgz === undefined) {
      // Shipped only after it is checked: it unzips and renders to the screen its reference names.
      svgz = !existsSync(blobs.path(ref)) && blobs.svgzSync(ref) ? async () => (await blobs.checkedSvgz(ref))! : null;
      screens.seen.set(ref, svgz);
    }
    if (svgz) return SCREEN_URL_PREFIX + ref;
  }
  return relative(reportDir, join(blobsDir, ref.slice(0, 2), `${ref}.png`))
    .split(sep)
    .map(encodeURIComponent)
    .join("/");
}

function marksOf(actions: readonly Action[]): ViewerMark[] {
  const out: ViewerMark[] = [];
  let at: { x: number; y: number } | undefined;
  for (const a of actions) {
    const p = "x" in a && typeof a.x === "number" && typeof a.y === "number" ? { x: a.x, y: a.y } : undefined;
    if (a.type === "DRAG_TO" && at) out.push({ t: "drag", x: at.x, y: at.y, x2: a.x, y2: a.y });
    else if (a.type === "TYPING") out.push({ t: "text", text: a.text, ...(at ?? {}) });
    else if (a.type === "PRESS" || a.type === "HOTKEY")
      out.push({ t: "text", text: a.type === "PRESS" ? `key ${a.key}` : `keys ${a.keys.join("+")}`, ...(at ?? {}) });
    else if (p && a.type !== "MOVE_TO") out.push({ t: "click", ...p, label: a.type.toLowerCase().replace("_", " ") });
    if (p) at = p;
  }
  return out;
}

const str = (v: unknown) => (v === undefined || v === null ? "" : String(v));

/** A value as words for a sentence: no JSON, no "undefined", no literal "\\n". */
export function plainText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "object")
    return Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined && x !== null && x !== "")
      .map(([k, x]) => `${words(k)} ${plainText(x)}`)
      .join(", ");
  return String(v)
    .replace(/\\n/g, "\n")
    .replace(/\b[0-9a-f]{64}\b/g, (h) => h.slice(0, 8));
}

/** "1 recovery", "2 recoveries", "1 step", "3 steps". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const words = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();

/**
 * The episode's events as sentences, every step named by its number in the episode (from 0, as
 * the chips show it): "after step 5: the detector flagged step 2 as the first error ...; the
 * selector chose to go back to the screen before step 1 ...".
 */
export function eventSentences(rec: EpisodeRecord, url: (ref: unknown) => string): ViewerEvent[] {
  const steps = rec.trajectory.steps;
  const nOf = (seq: number) => steps.findIndex((s) => s.seq === seq);
  const starts = new Map<number, Record<string, unknown>>();
  const ends = new Map<number, Record<string, unknown>>();
  return rec.trajectory.events.map((e) => {
    const d = e.detail ?? {};
    let text: string;
    const out: ViewerEvent = { afterSeq: e.afterSeq, kind: e.kind, text: "" };
    const at = nOf(e.afterSeq);
    const where = at >= 0 ? `after step ${at}` : "before the first step";
    if (e.kind === "reset")
      text = `${where}: environment reset (${plainText(d.reason) || "episode start"}${d.try !== undefined ? `, try ${plainText(d.try)}` : ""})`;
    else if (e.kind === "recovery-start") {
      starts.set(Number(d.attempt), d);
      const sel = d.selection as { reason?: unknown; strategy?: unknown; failure?: unknown } | undefined;
      // The episode step numbers (what the chips show) of the forward steps E and R refer to (task step indices).
      const fwdN = (step: unknown) => {
        const hit = [...steps].reverse().find((s) => s.role === "forward" && s.seq <= e.afterSeq && s.step === step);
        return hit ? nOf(hit.seq) : undefined;
      };
      const en = fwdN(d.errorStep);
      const rn = fwdN(d.recoveryStep);
      text = `${where}: the detector flagged ${en !== undefined ? bothNumbers(en, Number(d.errorStep)) : `the models' step ${plainText(d.errorStep)}, before this record`} as the first error${d.confidence !== undefined ? ` (confidence ${plainText(d.confidence)})` : ""}: ${plainText(d.reason)}; the selector${sel?.strategy ? ` (${plainText(sel.strategy)})` : ""} chose to go back to ${rn !== undefined ? `the screen before ${bothNumbers(rn, Number(d.recoveryStep))}` : "the first screen"}${sel?.reason ? `: ${plainText(sel.reason)}` : ""}${sel?.failure ? ` (selector failed: ${plainText(sel.failure)})` : ""}; recovery attempt ${plainText(d.attempt)} starts (${plainText(d.restoration ?? d.mode) || "model"} restoration)`;
    } else if (e.kind === "recovery-end") {
      const v = d.verification as { verdict?: unknown; ssim?: unknown } | undefined;
      ends.set(Number(d.attempt), d);
      text = `${where}: recovery attempt ${plainText(d.attempt)} took ${plural(Number(d.steps) || 0, "step")}: ${confirmationWords(d)} (${plainText(d.reason)})${v ? `; verifier: ${plainText(v.verdict)}${v.ssim !== undefined ? ` (SSIM ${plainText(v.ssim)})` : ""}` : ""}`;
      const start = starts.get(Number(d.attempt));
      if (start?.target) out.target = url(start.target);
      if (d.observation) out.restored = url(d.observation);
    } else if (e.kind === "truncate") {
      const transition = transitionText(d.notice, Number(d.to));
      const how = confirmationWords(ends.get(Number(d.attempt)) ?? d);
      text = d.kept
        ? `${where}: the policy's history of ${plural(Number(d.from) || 0, "forward step")} was kept (${how}; the agent was told)${transition ? `: "${transition}" (the models' numbering)` : ""}`
        : `${where}: the policy's history was cut from ${plural(Number(d.from) || 0, "forward step")} to ${Number(d.to) || 0} (${how})${transition ? `; the next step is told: "${transition}" (the models' numbering)` : ""}`;
    } else text = `${where}: ${words(e.kind)}${Object.keys(d).length ? ` (${plainText(d)})` : ""}`;
    out.text = text;
    return out;
  });
}

/**
 * What an episode of an ideal-recovery run is, in words (its record's `extra`): the forward run,
 * or continuation k of a recovery-step strategy, with E and R as step numbers of this record.
 */
export function aboutEpisode(
  extra: Record<string, unknown> | undefined,
  steps: EpisodeRecord["trajectory"]["steps"],
  condition = "",
): string {
  if (!extra || typeof extra !== "object") return "";
  const phase = extra.phase;
  if (phase === "forward")
    return "Ideal recovery, forward run: the first attempt at the task; its failed runs are restarted from a recovery step R below.";
  if (phase === "continuation") {
    const R = Number(extra.recoveryStep);
    const E = Number(extra.errorStep);
    const replayed = steps.filter((s) => s.role === "replay").length;
    // The condition's display name ("R=E-1"), as the tables and filters show it; the strategy id beside it.
    const strategy = [conditionLabel(condition), String(extra.strategy ?? "")]
      .filter((x, i, a) => x && a.indexOf(x) === i)
      .join(" ");
    const named =
      condition && extra.strategy ? `${conditionLabel(condition)} (${plainText(extra.strategy)})` : strategy;
    return `Ideal recovery, continuation k = ${plainText(extra.k)} of strategy ${named}: the forward run's first error was its step ${Number.isFinite(E) ? E : "?"}; this run replays the forward run's first ${plural(Number.isFinite(R) ? R : 0, "step")} (R = ${Number.isFinite(R) ? R : "?"}${replayed > R ? `, ${replayed} replayed steps with retries` : ""}) and continues from the screen before step ${Number.isFinite(R) ? R : "?"}, with a fresh draw of the policy.`;
  }
  const osworld = extra.osworld as { id?: unknown; related_apps?: unknown; evaluator?: { func?: unknown } } | undefined;
  if (osworld && typeof osworld === "object") {
    const apps = Array.isArray(osworld.related_apps) ? osworld.related_apps.map(plainText).join(", ") : "";
    const func = osworld.evaluator && typeof osworld.evaluator === "object" ? plainText(osworld.evaluator.func) : "";
    return `OSWorld task ${plainText(osworld.id)}${apps ? `; apps ${apps}` : ""}${func ? `; checked by ${func}` : ""}.`;
  }
  const known = Object.entries(extra).filter(([, v]) => v !== null && typeof v !== "object");
  return known.length ? known.map(([k, v]) => `${words(k)}: ${plainText(v)}`).join("; ") : "";
}

const A11Y_PREFIX = "Accessibility tree:\n";

/** The accessibility tree the step's policy (else any) call received, as its own pane. */
function a11yOf(calls: ViewerCall[] | undefined): { a11y?: string } {
  const ordered = [...(calls ?? [])].sort(
    (a, b) =>
      Number(b.phase === "policy" || b.phase === "recoverer") - Number(a.phase === "policy" || a.phase === "recoverer"),
  );
  for (const c of ordered)
    for (const m of [...c.messages].reverse())
      for (const p of m.parts)
        if ("text" in p && p.text.startsWith(A11Y_PREFIX)) return { a11y: p.text.slice(A11Y_PREFIX.length) };
  return {};
}

/**
 * The most characters of one text the viewer shows (a typed action, a response, a prompt part, an
 * accessibility tree): a browser lays out a long unbroken line in time that grows faster than its
 * length (a 100 KB typed action took 14 s, 1 MB did not load in 60 s), so longer text is cut here,
 * with a notice naming the file that keeps it whole.
 */
export const VIEWER_TEXT_LIMIT = 8 * 1024;

/** `text` cut to {@link VIEWER_TEXT_LIMIT} characters with a notice naming `source`, or unchanged when shorter. */
export function capText(text: string, source: string, limit = VIEWER_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  // never split a surrogate pair
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1]) ? limit - 1 : limit;
  return `${text.slice(0, end)}… (truncated: ${end.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters shown, full text in ${source})`;
}

/** Every string in `v` (an episode as the viewer shows it) cut by {@link capText}, in place. */
function capStrings<T>(v: T, source: string): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === "string") return capText(x, source);
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) x[i] = walk(x[i]);
      return x;
    }
    if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      for (const k of Object.keys(o)) o[k] = walk(o[k]);
    }
    return x;
  };
  return walk(v) as T;
}

/**
 * One episode's record as the viewer shows it. Every text longer than {@link VIEWER_TEXT_LIMIT}
 * is cut with a notice naming `source` (the file that keeps the record whole).
 */
export function viewerEpisode(
  rec: EpisodeRecord,
  blobsDir: string,
  reportDir: string,
  screens?: ScreenFiles,
  source = "trajectory.json",
  cap?: number,
): ViewEpisode {
  return capStrings(viewerEpisodeWhole(rec, blobsDir, reportDir, screens, cap), source);
}

/**
 * The step indices of forward steps the detector did not judge because the retry cap `cap` was
 * spent (as many recovery attempts had started before them): the detector is off there.
 */
export function detectorOffSteps(
  steps: EpisodeRecord["trajectory"]["steps"],
  events: EpisodeRecord["trajectory"]["events"],
  cap: number | undefined,
): Set<number> {
  const out = new Set<number>();
  if (cap === undefined || !(cap > 0)) return out;
  const starts = events.filter((e) => e.kind === "recovery-start").map((e) => e.afterSeq);
  steps.forEach((s, i) => {
    if (s.role === "forward" && !s.detection && !s.frozen && starts.filter((a) => a < s.seq).length >= cap) out.add(i);
  });
  return out;
}

/**
 * What separates search words, in the index and in the viewer's query alike (client.ts splits a query the same way).
 */
export const SEARCH_SPLIT = /[^\p{L}\p{N}]+/u;

/**
 * The distinct normalised words of `text` for the search index: lower case, split at every
 * character that is not a letter or digit (so "PRESS(esc)" is "press" and "esc", as the viewer
 * splits a query), without single characters, pure numbers (coordinates, counts) and hashes.
 */
export function searchTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(SEARCH_SPLIT)
    .filter((w) => w.length > 1 && !/^\d+$/.test(w) && !/^[0-9a-f]{16,}$/.test(w));
}

/**
 * The episode's words for the viewer's text search (each once, normalised by {@link searchTokens}):
 * actions, responses, reasons, events and model replies, less the words of `known` (the index
 * row's task, condition name and instruction, searched anyway), at most `limit` characters.
 */
export function searchWords(ep: ViewEpisode, limit = 20_000, known = ""): string {
  const texts: string[] = [ep.about, ep.detail];
  for (const s of ep.steps) {
    texts.push(...s.actions, s.response ?? "", s.detection?.reason ?? "", s.failure ?? "", s.offTrack ?? "");
    for (const c of s.calls ?? []) texts.push(c.reply);
  }
  for (const e of ep.events) texts.push(e.text);
  const seen = new Set<string>(searchTokens(known));
  const out: string[] = [];
  let n = 0;
  for (const w of searchTokens(texts.join(" "))) {
    if (seen.has(w) || n + w.length + 1 > limit) continue;
    seen.add(w);
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}

function viewerEpisodeWhole(
  rec: EpisodeRecord,
  blobsDir: string,
  reportDir: string,
  screens?: ScreenFiles,
  cap?: number,
): ViewEpisode {
  const url = (ref: unknown) => blobUrl(blobsDir, reportDir, ref, screens);
  const steps = rec.trajectory.steps;
  const calls = callsByStep(steps, rec.calls, url);
  const contexts = contextViews(steps, rec.trajectory.events, rec.calls);
  const off = detectorOffSteps(steps, rec.trajectory.events, cap);
  const flags = new Map<number, string[]>();
  for (const e of rec.trajectory.events) {
    if (e.kind !== "recovery-start") continue;
    const d = e.detail ?? {};
    const fwd = steps.filter((s) => s.role === "forward" && s.seq <= e.afterSeq);
    for (const [tag, step] of [
      ["E", d.errorStep],
      ["R", d.recoveryStep],
    ] as const) {
      const hit = [...fwd].reverse().find((s) => s.step === step);
      if (hit) flags.set(hit.seq, [...(flags.get(hit.seq) ?? []), `${tag}${str(d.attempt)}`]);
    }
  }
  return {
    key: rec.key,
    instruction: rec.instruction,
    score: rec.score,
    detail: plainText(rec.detail),
    stopReason: rec.stopReason,
    simulated: rec.simulated,
    steps: steps.map((s, i) => ({
      n: i,
      seq: s.seq,
      role: s.role,
      step: s.step,
      ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
      actions: s.actions.map((a) => {
        try {
          return formatAction(a);
        } catch {
          return JSON.stringify(a);
        }
      }),
      marks: marksOf(s.actions),
      ...(s.response !== undefined ? { response: s.response } : {}),
      ...(s.failure ? { failure: `${s.failure.kind}: ${s.failure.message}` } : {}),
      ...(s.detection
        ? {
            detection: {
              isError: s.detection.isError,
              errorStep: s.detection.errorStep,
              reason: s.detection.reason,
              confidence: s.detection.confidence,
              ...(s.detection.failure ? { failure: s.detection.failure } : {}),
            },
          }
        : {}),
      ...(s.frozen ? { frozen: true } : {}),
      ...(off.has(i) ? { detectorOff: cap } : {}),
      ...(rec.offTrack &&
      typeof rec.offTrack === "object" &&
      rec.offTrack.seq === s.seq &&
      typeof rec.offTrack.reason === "string"
        ? { offTrack: rec.offTrack.reason }
        : {}),
      ...(flags.has(s.seq) ? { flags: flags.get(s.seq) } : {}),
      ...(calls.has(i) ? { calls: calls.get(i) } : {}),
      ...(contexts.has(i) ? { context: contexts.get(i) } : {}),
      ...a11yOf(calls.get(i)),
      before: url(s.before),
      after: url(s.after),
    })),
    events: eventSentences(rec, url),
    about: aboutEpisode(rec.extra as Record<string, unknown> | undefined, steps, rec.condition),
  };
}

/**
 * Ideal recovery's annotation calls by forward-run key (`annotation-calls.json`, written with
 * plan.json): the detector and selector calls that judged each failed forward run, each on the
 * step it judged. Empty when the run has none; a malformed file reads as none.
 */
export function annotationCalls(runDir: string): Map<string, CallRecord[]> {
  const file = join(runDir, ANNOTATION_CALLS_FILE);
  if (!existsSync(file)) return new Map();
  const data = readJsonFile<unknown>(inside(runDir, file), {
    what: ANNOTATION_CALLS_FILE,
    prefix: "report: ",
    hint: "it is written by ideal recovery's annotation phase; delete it to show no annotation calls",
  });
  if (!data || typeof data !== "object" || Array.isArray(data)) return new Map();
  return new Map(
    Object.entries(data as Record<string, unknown>).filter((e): e is [string, CallRecord[]] => Array.isArray(e[1])),
  );
}

/**
 * The measured latency of each model call by episode key (`timings.jsonl`, `callMs`, in the
 * order of the record's call log): records leave measured times out so that same-seed runs are
 * byte-identical. Empty when the run has no timings; unreadable lines are skipped.
 */
export function callLatencies(runDir: string): Map<string, Array<number | null>> {
  const out = new Map<string, Array<number | null>>();
  const file = join(runDir, "timings.jsonl");
  if (!existsSync(file) || !realInside(runDir, file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line) as { key?: unknown; callMs?: unknown };
      if (typeof t.key === "string" && Array.isArray(t.callMs))
        out.set(
          t.key,
          t.callMs.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null)),
        );
    } catch {
      // a torn last line of a killed run
    }
  }
  return out;
}

/** The viewer's index and its chunk files (one per run and condition): every episode, loaded on demand. */
export async function viewerChunks(
  runs: readonly RunData[],
  reportDir: string,
  perRun?: number,
): Promise<{
  index: ViewerIndexRow[];
  chunks: ViewEpisode[][];
  screens: Map<string, () => Promise<Buffer>>;
  missing: string[];
}> {
  const missing: string[] = [];
  const memo = new Map<string, number[] | undefined>();
  const seen = new Map<string, (() => Promise<Buffer>) | null>();
  const index: ViewerIndexRow[] = [];
  const chunks: ViewEpisode[][] = [];
  for (const run of runs) {
    const blobsDir = runBlobsDir(run.dir);
    // The report reads only inside the folder it was pointed at: a manifest naming a blob folder
    // elsewhere is refused, not followed.
    // (The demo's runs share one store beside them, so the run's parent folder is the bound.)
    if (existsSync(blobsDir) && !realInside(dirname(resolve(run.dir)), blobsDir))
      throw new ConfigError(
        `report: ${join(run.dir, "manifest.json")} names the blob folder ${showId(blobsDir)}, outside ${dirname(resolve(run.dir))}; the report reads only inside the run folder and the folder that holds it`,
        { field: "dir" },
      );
    // Read-only use: a store is made (it creates its folder) only when the folder exists.
    const blobs = existsSync(blobsDir) ? new BlobStore({ dir: blobsDir, confined: true }) : undefined;
    const byCondition = new Map<string, number>();
    const annotation = annotationCalls(run.dir);
    const latencies = callLatencies(run.dir);
    for (const line of perRun === undefined ? run.lines : pickEpisodes(run.lines, perRun)) {
      if (line.status !== "ok") continue;
      const held = run.records?.get(line.key);
      const file = join(episodeFolder(run.dir, line), "trajectory.json");
      if (!held && !existsSync(file)) {
        // Said, never dropped silently: the run's trajectories.jsonl.gz or this trajectory.json is gone.
        missing.push(
          `${run.rel || "."}: ${line.key} (${run.recordsFile ?? (existsSync(join(run.dir, RECORDS_PACK_NAME)) ? "" : "no trajectories.jsonl.gz, ")}no ${relative(run.dir, file)})`,
        );
        continue;
      }
      const read =
        held ??
        readJsonFile<EpisodeRecord>(inside(run.dir, file), {
          what: "trajectory.json",
          prefix: "report: ",
          hint: "it should be the episode record written by `retrace run`; re-run that episode (delete its line from results.jsonl, then --resume) or restore the file",
        });
      if (!read?.trajectory || !Array.isArray(read.trajectory.steps)) continue;
      // Ideal recovery: the annotation's detector and selector calls judged this forward run's last step.
      const judged = annotation.get(read.key);
      // Each call's latency from timings.jsonl (left out of the record), by its place in the call log.
      const ms = latencies.get(read.key);
      const own = Array.isArray(read.calls)
        ? read.calls.map((c, i) =>
            c && typeof c === "object" && c.latencyMs === undefined && typeof ms?.[i] === "number"
              ? { ...c, latencyMs: ms[i] as number }
              : c,
          )
        : read.calls;
      // (The annotation's calls come from another log: their `order` does not compare with the episode's, so they
      // follow its calls.)
      const rec = judged?.length
        ? { ...read, calls: [...(own ?? []), ...judged.map(({ order: _o, ...c }) => c)] }
        : own === read.calls
          ? read
          : { ...read, calls: own };
      // Only blob references (sha256 hex) name screenshot files, so no step can point the viewer elsewhere.
      for (const s of rec.trajectory.steps)
        for (const ref of [s.before, s.after])
          if (typeof ref !== "string" || !REF.test(ref))
            throw new ConfigError(
              `report: ${held ? (run.recordsFile ?? join(run.dir, "run.json")) : file} step ${s.seq}: image reference ${showId(ref)} is not a blob reference (64 hex characters of a sha256); the report reads only inside the run folder (was the file edited?)`,
              { field: "dir" },
            );
      let chunk = byCondition.get(line.condition);
      if (chunk === undefined) {
        chunk = chunks.length;
        chunks.push([]);
        byCondition.set(line.condition, chunk);
      }
      // Where the record's texts are whole, for the notice on a text the viewer cuts.
      const folder = episodeFolder(run.dir, line);
      const source = held
        ? relative(run.dir, run.recordsFile ?? join(run.dir, RECORDS_PACK_NAME))
        : [...(existsSync(join(folder, "traj.jsonl")) ? ["traj.jsonl"] : []), "trajectory.json"]
            .map((f) => relative(run.dir, join(folder, f)))
            .join(" and ");
      // The condition's retry cap (its manifest params), for the "detector off" note once it is spent.
      const capParam = run.manifest?.conditions?.find((c) => c.id === line.condition)?.params?.maxRecoveryIterations;
      const ep = viewerEpisode(
        rec,
        blobsDir,
        reportDir,
        { blobs, seen },
        source,
        typeof capParam === "number" ? capParam : undefined,
      );
      const words = searchWords(
        ep,
        undefined,
        `${line.task} ${conditionLabel(line.condition)} ${line.condition} ${rec.instruction ?? ""}`,
      );
      await addSsimMaps(ep, blobs, restorePairs(rec), memo);
      chunks[chunk].push(ep);
      index.push({
        run: run.summary.experiment,
        key: line.key,
        condition: line.condition,
        task: line.task,
        seed: line.seed,
        success: line.success,
        recoveryAttempts: line.recoveryAttempts,
        steps: rec.trajectory.steps.length,
        chunk,
        label: conditionLabel(line.condition),
        instruction: capText(rec.instruction ?? "", source),
        ...(words ? { words } : {}),
        ...(typeof rec.extra?.k === "number" ? { k: rec.extra.k } : {}),
      });
    }
  }
  const svgz = new Map<string, () => Promise<Buffer>>();
  for (const [ref, read] of seen) if (read) svgz.set(ref, read);
  return { index, chunks, screens: svgz, missing };
}
