/**
 * An episode in words for the viewer: values as plain text, its events as sentences (every step named by its number in
 * the episode), and what an episode is (ideal recovery's phase, strategy, R and k; an OSWorld task).
 */
import type { EpisodeRecord } from "../runner/episode.ts";
import type { ViewerEvent } from "./viewer-types.ts";
import { transitionText } from "./viewer-calls.ts";
import { conditionLabel } from "./labels.ts";
import { bothNumbers, confirmationWords } from "./step-words.ts";

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
