/**
 * The stand-in as the JSON roles: error detector, recovery-step selector, state-transition
 * summarizer and state verifier. Each reads the task, the action lines and the screens its prompt
 * shows (reading.ts), compares them with the task's demonstration (its skill book), and answers in
 * the role's JSON contract, noisily: the detector misses some errors, misplaces some error steps
 * by one and raises some false alarms; the selector sometimes goes one step further back; the
 * summarizer drops a line now and then. None of them knows an episode's hidden state: a silent
 * change shows only as an action that is not the plan's, which the detector notices less often.
 * A DONE is judged like any other step: before the plan is complete it is an error.
 */
import { createHash } from "node:crypto";
import { formatAction, type Action } from "@retrace-cua/core/action";
import { containerOf, parseTree, screenOf, treeTexts, type ReadRequest, type TreeLine } from "./request.ts";
import { leftAt, readHistory, shownSteps, treeAt, type HistoryReading, type ShownStep } from "./reading.ts";
import { happens, uniform, type Draw } from "./sampling.ts";
import type { SkillBook } from "./skills.ts";
import { elementAt, findTask, knowledgeOf, type TaskKnowledge } from "./world.ts";

/** Noise of the detector. */
export interface DetectorNoise {
  /** Chance an off-track run (a screen off the plan, a premature DONE) is reported. @default 0.85 */
  recall: number;
  /**
   * Chance a step with an action the plan does not have, whose screens stay on the plan (a silent change), is reported.
   * @default 0.7
   */
  silentRecall: number;
  /** Chance an on-track run is reported off track. @default 0.03 */
  falseAlarm: number;
  /** Chance a reported error step is off by one. @default 0.2 */
  stepNoise: number;
}

/** An answer and its summary, for the server's log. */
export interface Judged {
  text: string;
  kind: string;
}

interface Read {
  know: TaskKnowledge;
  steps: ShownStep[];
  reading: HistoryReading;
}

function readRequestHistory(req: ReadRequest, book: SkillBook, current: string | undefined): Read | undefined {
  const task = findTask(req.text, book);
  if (!task) return undefined;
  const know = knowledgeOf(task, book);
  const steps = shownSteps(req.text);
  const size = screenOf(req.text, current ? parseTree(current) : undefined);
  return { know, steps, reading: readHistory(know, steps, current, size) };
}

/** The tree after a marker line (e.g. "Current screen (after step 4):"), if the text shows one there. */
function treeAfter(text: string, marker: RegExp): string | undefined {
  const m = marker.exec(text);
  if (!m) return undefined;
  const at = text.indexOf("Accessibility tree:\n", m.index);
  return at >= 0 && at - (m.index + m[0].length) <= 2 ? treeAt(text, at) : undefined;
}

const json = (v: unknown) => JSON.stringify(v);

/** The detector's answer. */
export function judgeDetector(req: ReadRequest, draw: Draw, book: SkillBook, noise: DetectorNoise): Judged {
  const last = Number(/numbered 0 to (\d+)/.exec(req.text)?.[1] ?? -1);
  const r = readRequestHistory(req, book, treeAfter(req.text, /Current screen \(after step \d+\):/));
  const conf = (lo: number, hi: number) => Math.round(uniform(draw, lo, hi) * 100) / 100;
  if (!r || last < 0 || r.steps.length === 0)
    return {
      text: json({
        off_track: false,
        error_step: null,
        reason: "I cannot tell what this task needs from what I see.",
        confidence: conf(0.2, 0.4),
      }),
      kind: "unsure",
    };
  const stepNo = (i: number) => r.steps[Math.max(0, Math.min(i, r.steps.length - 1))].step;
  const done = [...r.reading.prematureDone].sort((a, b) => a - b)[0];
  const left = leftAt(r.reading);
  let truth = -1;
  let kind = "hit";
  if (done !== undefined && (left < 0 || done <= left)) {
    truth = stepNo(done);
    kind = "hit-done";
  } else if (left >= 0) truth = stepNo(left);
  const silent = [...r.reading.suspicious].sort((a, b) => a - b)[0];
  const report = (e0: number, recall: number, why: string, k: string): Judged | undefined => {
    if (!happens(draw, recall)) return undefined;
    let e = e0;
    if (happens(draw, noise.stepNoise)) e = Math.max(0, Math.min(last, e + (draw.rng.chance(0.5) ? -1 : 1)));
    return {
      text: json({ off_track: true, error_step: e, reason: why, confidence: conf(0.6, 0.95) }),
      kind: e === e0 ? k : `${k}-off-by-one`,
    };
  };
  const what = (step: number) =>
    r.steps
      .find((s) => s.step === step)
      ?.actions.map(formatAction)
      .join("; ") ?? "?";
  if (truth >= 0) {
    const hit = report(
      truth,
      noise.recall,
      kind === "hit-done"
        ? `Step ${truth} declared the task finished, but it is not done yet.`
        : `Step ${truth} (${what(truth)}) moved the desktop away from what the task needs.`,
      kind,
    );
    if (hit) return hit;
    return {
      text: json({
        off_track: false,
        error_step: null,
        reason: "The agent seems to be making progress.",
        confidence: conf(0.3, 0.6),
      }),
      kind: "miss",
    };
  }
  if (silent !== undefined) {
    const hit = report(
      stepNo(silent),
      noise.silentRecall,
      `Step ${stepNo(silent)} (${what(stepNo(silent))}) did something the task does not need.`,
      "hit-silent",
    );
    if (hit) return hit;
  }
  if (happens(draw, noise.falseAlarm)) {
    const e = draw.greedy ? last : draw.rng.int(0, last);
    return {
      text: json({
        off_track: true,
        error_step: e,
        reason: `Step ${e} looks like a detour from the task.`,
        confidence: conf(0.5, 0.7),
      }),
      kind: "false-alarm",
    };
  }
  return {
    text: json({
      off_track: false,
      error_step: null,
      reason: "Every step so far moves the task forward.",
      confidence: conf(0.6, 0.9),
    }),
    kind: silent !== undefined ? "miss-silent" : "on-track",
  };
}

/**
 * The selector's answer: the latest step at or before E whose screen is on the plan with no odd action before it
 * (sometimes one earlier).
 */
export function judgeSelector(req: ReadRequest, draw: Draw, book: SkillBook): Judged {
  const E = Number(/judged to be at step (\d+)/.exec(req.text)?.[1] ?? 0);
  const r = readRequestHistory(req, book, undefined);
  let R = E;
  if (r) {
    const idx = (step: number) => r.steps.findIndex((s) => s.step === step);
    const odd = (i: number) => r.reading.suspicious.has(i) || r.reading.prematureDone.has(i);
    const clean = (step: number) => {
      const i = idx(step);
      if (i < 0) return step === 0;
      return r.reading.before[i] >= 0 && !r.steps.slice(0, i).some((_, j) => odd(j));
    };
    while (R > 0 && !clean(R)) R--;
  }
  let kind = "latest-clean";
  if (R > 0 && happens(draw, 0.15)) {
    R--;
    kind = "one-earlier";
  }
  return {
    text: json({
      recovery_step: R,
      reason:
        R === E
          ? `Undoing step ${E} alone returns to a clean state.`
          : `The state before step ${R} is the latest one that is still clean.`,
    }),
    kind,
  };
}

/** What an action did, in words: the element it hit on the screen shown for its step, else the plan step it matches. */
function describe(a: Action, screen: TreeLine[] | undefined, know: TaskKnowledge, pos: number): string {
  if ("x" in a && a.x !== undefined && a.y !== undefined) {
    const verb = a.type === "DOUBLE_CLICK" ? "double-clicked" : a.type === "RIGHT_CLICK" ? "right-clicked" : "clicked";
    const hit = screen ? elementAt(screen, a.x, a.y) : undefined;
    if (hit)
      return `${verb} ${hit.line.role} "${hit.line.name}"${containerOf(screen!, hit.index) !== "desktop" ? ` in ${containerOf(screen!, hit.index).replace(/^[a-z ]+:/, "")}` : ""}`;
    const t = pos >= 0 ? know.intents[pos]?.target : undefined;
    if (t) return `${verb} ${t.role} "${t.name}" (as planned)`;
    return `${verb} at (${a.x}, ${a.y})`;
  }
  if (a.type === "TYPING") return `typed ${JSON.stringify(a.text)}`;
  if (a.type === "HOTKEY") return `pressed ${a.keys.join("+")}`;
  if (a.type === "PRESS") return `pressed ${a.key}`;
  return a.type.toLowerCase();
}

/** The summarizer's briefing: what the last shown screen has open, and one line per step. */
export function judgeSummarizer(req: ReadRequest, draw: Draw, book: SkillBook): Judged {
  const R = Number(/just before step (\d+)/.exec(req.text)?.[1] ?? 0);
  const shown = treeTexts(req.text).pop();
  const r = readRequestHistory(req, book, undefined);
  if (!r)
    return {
      text: `TARGET STATE: the state just before step ${R}, as in the TARGET screenshot.\nHOW IT GOT THERE: not shown.`,
      kind: "blind",
    };
  const windows = shown
    ? parseTree(shown)
        .filter((l) => l.role === "window" || l.role === "dialog")
        .map((l) => l.name)
    : [];
  const lines: string[] = [];
  let dropped = 0;
  r.steps.forEach((s, i) => {
    if (s.actions.every((a) => a.type === "WAIT")) return;
    if (happens(draw, 0.08)) {
      dropped++;
      return;
    }
    const screen = s.screen ? parseTree(s.screen) : undefined;
    const odd = r.reading.suspicious.has(i) ? " - not part of the task" : "";
    lines.push(
      `- step ${s.step}: ${s.actions.map(formatAction).join("; ")} (${s.actions.map((a) => describe(a, screen, r.know, r.reading.before[i])).join(", ")})${odd}`,
    );
  });
  const text = [
    `TARGET STATE: ${windows.length ? `open: ${windows.join(", ")}.` : "as in the TARGET screenshot."}`,
    "HOW IT GOT THERE:",
    ...(lines.length ? lines : ["- (no actions)"]),
  ].join("\n");
  return { text, kind: dropped ? "dropped-lines" : "complete" };
}

/**
 * The verifier's verdict: identical screenshots match; different ones are compared by their trees when shown, else
 * judged different.
 */
export function judgeVerifier(req: ReadRequest, draw: Draw): Judged {
  const images = req.messages.flatMap((m) => m.images);
  const trees = treeTexts(req.text);
  if (images.length < 2 && trees.length < 2)
    return {
      text: json({ verdict: "abstain", evidence: [], reason: "I was not shown two screens to compare." }),
      kind: "abstain",
    };
  const same = trees.length >= 2 ? trees[0] === trees[1] : images[0] === images[1];
  if (!same && happens(draw, 0.05))
    return {
      text: json({ verdict: "abstain", evidence: [], reason: "The difference may not matter." }),
      kind: "abstain",
    };
  const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);
  return same
    ? {
        text: json({
          verdict: "match",
          evidence: ["TARGET and CURRENT show the same windows and content"],
          reason: "Nothing that matters differs.",
        }),
        kind: "match",
      }
    : {
        text: json({
          verdict: "mismatch",
          evidence: [
            `the screens differ (TARGET ${digest(trees[0] ?? images[0])}, CURRENT ${digest(trees[1] ?? images[1])})`,
          ],
          reason: "CURRENT does not show the TARGET state.",
        }),
        kind: "mismatch",
      };
}
