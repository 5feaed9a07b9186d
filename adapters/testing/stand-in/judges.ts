/**
 * The stand-in as the JSON roles: error detector, recovery-step selector, state-transition
 * summarizer and state verifier. Each reads the task and the action lines of its prompt, replays
 * them in its private model of the apps, and answers in the role's JSON contract, noisily: the
 * detector misses some errors, misplaces some error steps by one and raises some false alarms;
 * the selector sometimes goes one step further back; the summarizer drops a line now and then.
 */
import { createHash } from "node:crypto";
import type { SimDeskTask } from "../../environments/simdesk/ground-truth.ts";
import type { DeskState } from "../../environments/simdesk/types.ts";
import { buildUi, hitNode } from "../../environments/simdesk/ui.ts";
import { applyAction } from "../../environments/simdesk/engine.ts";
import { formatAction, type Action } from "../../../src/action.ts";
import { parseActionText } from "./actions-text.ts";
import { parseTree, screenOf, stepLines, treeTexts, type ReadRequest } from "./request.ts";
import { happens, uniform, type Draw } from "./sampling.ts";
import { findTask, knowledgeOf, planIndexOf, replay } from "./world.ts";

/** Noise of the detector. */
export interface DetectorNoise {
  /** Chance an off-track run is reported. @default 0.85 */
  recall: number;
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

interface Replayed {
  task: SimDeskTask;
  actions: Action[][];
  /** states[i] = the state before step i; states[t] = now. */
  states: DeskState[];
  onPath: boolean[];
  width: number;
  height: number;
}

function replayLines(req: ReadRequest, tasks: readonly SimDeskTask[], lines: Map<number, string>): Replayed | undefined {
  const task = findTask(req.text, tasks);
  if (!task) return undefined;
  const tree = treeTexts(req.text).pop();
  const { width, height } = screenOf(req.text, tree ? parseTree(tree) : undefined);
  const steps = [...lines.keys()].sort((a, b) => a - b);
  const actions = steps.map((i) => parseActionText(lines.get(i)!));
  const states: DeskState[] = [replay(task, [], width, height)[0]];
  for (const acts of actions) {
    let cur = states[states.length - 1];
    for (const a of acts) cur = stepEngine(cur, a, width, height);
    states.push(cur);
  }
  const know = knowledgeOf(task, width, height);
  return { task, actions, states, onPath: states.map((s) => planIndexOf(know, s) >= 0), width, height };
}

function stepEngine(s: DeskState, a: Action, width: number, height: number): DeskState {
  if (a.type === "DONE" || a.type === "FAIL" || a.type === "WAIT") return s;
  try {
    return applyAction(s, a, width, height).state;
  } catch {
    return s;
  }
}

const json = (v: unknown) => JSON.stringify(v);

/** The detector's answer. */
export function judgeDetector(req: ReadRequest, draw: Draw, tasks: readonly SimDeskTask[], noise: DetectorNoise): Judged {
  const last = Number(/numbered 0 to (\d+)/.exec(req.text)?.[1] ?? -1);
  const r = replayLines(req, tasks, stepLines(req.text, "action"));
  const conf = (lo: number, hi: number) => Math.round(uniform(draw, lo, hi) * 100) / 100;
  if (!r || last < 0) return { text: json({ off_track: false, error_step: null, reason: "I cannot tell what this task needs from what I see.", confidence: conf(0.2, 0.4) }), kind: "unsure" };
  const t = r.states.length - 1;
  const doneAt = r.actions.findIndex((a, i) => a.some((x) => x.type === "DONE") && !r.onPath[i + 1]);
  let truth = -1;
  if (doneAt >= 0) truth = doneAt;
  else if (!r.onPath[t]) {
    let lastGood = t;
    while (lastGood > 0 && !r.onPath[lastGood]) lastGood--;
    truth = Math.min(lastGood, last);
  }
  if (truth >= 0) {
    if (!happens(draw, noise.recall)) return { text: json({ off_track: false, error_step: null, reason: "The agent seems to be making progress.", confidence: conf(0.3, 0.6) }), kind: "miss" };
    let e = truth;
    if (happens(draw, noise.stepNoise)) e = Math.max(0, Math.min(last, e + (draw.rng.chance(0.5) ? -1 : 1)));
    const what = r.actions[truth]?.map(formatAction).join("; ") ?? "?";
    return { text: json({ off_track: true, error_step: e, reason: `Step ${truth} (${what}) moved the desktop away from what the task needs.`, confidence: conf(0.6, 0.95) }), kind: e === truth ? "hit" : "hit-off-by-one" };
  }
  if (happens(draw, noise.falseAlarm)) {
    const e = draw.greedy ? last : draw.rng.int(0, last);
    return { text: json({ off_track: true, error_step: e, reason: `Step ${e} looks like a detour from the task.`, confidence: conf(0.5, 0.7) }), kind: "false-alarm" };
  }
  return { text: json({ off_track: false, error_step: null, reason: "Every step so far moves the task forward.", confidence: conf(0.6, 0.9) }), kind: "on-track" };
}

/** The selector's answer: the latest clean step at or before E (sometimes one earlier). */
export function judgeSelector(req: ReadRequest, draw: Draw, tasks: readonly SimDeskTask[]): Judged {
  const E = Number(/judged to be at step (\d+)/.exec(req.text)?.[1] ?? 0);
  const r = replayLines(req, tasks, stepLines(req.text, "action"));
  let R = E;
  if (r) while (R > 0 && !r.onPath[Math.min(R, r.onPath.length - 1)]) R--;
  let kind = "latest-clean";
  if (R > 0 && happens(draw, 0.15)) {
    R--;
    kind = "one-earlier";
  }
  return { text: json({ recovery_step: R, reason: R === E ? `Undoing step ${E} alone returns to a clean state.` : `The state before step ${R} is the latest one that is still clean.` }), kind };
}

/** What an action did, in words, on the state it was taken in. */
function describe(s: DeskState, a: Action, width: number, height: number): string {
  if ("x" in a && a.x !== undefined && a.y !== undefined) {
    const n = hitNode(buildUi(s, width, height), a.x, a.y);
    if (n) return `${a.type === "DOUBLE_CLICK" ? "double-clicked" : "clicked"} ${n.role} "${n.name}"`;
  }
  if (a.type === "TYPING") return `typed ${JSON.stringify(a.text)}`;
  if (a.type === "HOTKEY") return `pressed ${a.keys.join("+")}`;
  if (a.type === "PRESS") return `pressed ${a.key}`;
  return a.type.toLowerCase();
}

/** The summarizer's briefing: windows of the TARGET, hidden changes, and one line per transition. */
export function judgeSummarizer(req: ReadRequest, draw: Draw, tasks: readonly SimDeskTask[]): Judged {
  const R = Number(/just before step (\d+)/.exec(req.text)?.[1] ?? 0);
  const r = replayLines(req, tasks, stepLines(req.text, "action"));
  if (!r) return { text: `TARGET STATE: the state just before step ${R}, as in the TARGET screenshot.\nHOW IT GOT THERE: not shown.`, kind: "blind" };
  const target = r.states[r.states.length - 1];
  const windows = target.windows.map((w) => w.id).join(", ") || "no windows";
  const changed = Object.keys(target.fs).filter((p) => JSON.stringify(target.fs[p]) !== JSON.stringify(r.states[0].fs[p]));
  const lines: string[] = [];
  let dropped = 0;
  r.actions.forEach((acts, i) => {
    if (JSON.stringify(r.states[i + 1]) === JSON.stringify(r.states[i])) return;
    if (happens(draw, 0.08)) {
      dropped++;
      return;
    }
    lines.push(`- step ${i}: ${acts.map(formatAction).join("; ")} (${acts.map((a) => describe(r.states[i], a, r.width, r.height)).join(", ")})`);
  });
  const text = [
    `TARGET STATE: open: ${windows}.${changed.length ? ` Changed on disk since the start: ${changed.join(", ")}.` : " Nothing saved to disk yet."}`,
    "HOW IT GOT THERE:",
    ...(lines.length ? lines : ["- (no state-changing actions)"]),
  ].join("\n");
  return { text, kind: dropped ? "dropped-lines" : "complete" };
}

/** The verifier's verdict: identical screenshots match; different ones are compared by their trees when shown, else judged different. */
export function judgeVerifier(req: ReadRequest, draw: Draw): Judged {
  const images = req.messages.flatMap((m) => m.images);
  const trees = treeTexts(req.text);
  if (images.length < 2 && trees.length < 2) return { text: json({ verdict: "abstain", evidence: [], reason: "I was not shown two screens to compare." }), kind: "abstain" };
  const same = trees.length >= 2 ? trees[0] === trees[1] : images[0] === images[1];
  if (!same && happens(draw, 0.05)) return { text: json({ verdict: "abstain", evidence: [], reason: "The difference may not matter." }), kind: "abstain" };
  const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);
  return same
    ? { text: json({ verdict: "match", evidence: ["TARGET and CURRENT show the same windows and content"], reason: "Nothing that matters differs." }), kind: "match" }
    : { text: json({ verdict: "mismatch", evidence: [`the screens differ (TARGET ${digest(trees[0] ?? images[0])}, CURRENT ${digest(trees[1] ?? images[1])})`], reason: "CURRENT does not show the TARGET state." }), kind: "mismatch" };
}
