/**
 * One episode's record as the viewer shows it: steps carry their episode position (never renumbered after a restore),
 * E/R flags, the marks to draw on the screenshot, their model calls, the context after a restoration and the
 * accessibility tree; events become sentences (viewer-sentences.ts); every long text is capped (viewer-text-limit.ts).
 */
import { formatAction, type Action } from "@retrace-cua/core/action";
import type { EpisodeRecord } from "../runner/episode.ts";
import { callsByStep, contextViews, type ViewerCall } from "./viewer-calls.ts";
import { blobUrl, type ScreenFiles } from "./screen-urls.ts";
import { aboutEpisode, eventSentences, plainText } from "./viewer-sentences.ts";
import { capStrings } from "./viewer-text-limit.ts";
import type { ViewEpisode, ViewerMark } from "./viewer-types.ts";

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
