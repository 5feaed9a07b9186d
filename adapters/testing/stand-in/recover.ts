/**
 * The stand-in as the recovery sub-agent. It can only undo what its prompt shows it:
 * - With a history context (0-E, 0-R) it replays the listed actions in its private model of the
 *   apps to picture the TARGET state (the steps before R) and the current state (all listed steps
 *   plus its own recovery actions so far). When that picture agrees with the screen it is shown,
 *   it knows the hidden changes too and undoes them one by one, as SimDesk's restoration rules
 *   would. A 0-R context or a briefing pictures the TARGET only, so its picture of the current
 *   state is wrong as soon as anything happened after R, and it falls back to what it sees.
 * - From what it sees alone (no context, or a picture that disagrees with the screen) it can only
 *   fix visible differences between the TARGET and the current tree: close a menu or dialog,
 *   close an extra window, undo an edited field, reselect an item; then it says RESTORED.
 * Its answers are sampled: a slip (a wrong click) or a premature RESTORED at a configurable rate.
 */
import type { Action } from "../../../src/action.ts";
import type { SimDeskTask } from "../../environments/simdesk/ground-truth.ts";
import { nextRestorativeStep } from "../../environments/simdesk/restore.ts";
import { parseActionText, replyWith } from "./actions-text.ts";
import { ownActions } from "./play.ts";
import { containerOf, parseTree, screenOf, stepLines, treeTexts, type ReadRequest, type TreeLine } from "./request.ts";
import { choose, type Draw } from "./sampling.ts";
import { clickable, findTask, replay, treeOf } from "./world.ts";

/** The word that ends a recovery attempt (adapters/llm/recoverer.ts RESTORED_TOKEN). */
const RESTORED = "RESTORED";

/** What the recovery prompt told the stand-in. */
export interface RecoveryView {
  targetStep: number;
  errorStep: number;
  context: "history" | "briefing" | "none";
  /** Actions of the context's history, by step index. */
  contextSteps: Map<number, Action[]>;
  /** Its own actions in this attempt so far. */
  own: Action[];
  targetTree?: string;
  currentTree?: string;
}

/** A recovery answer and how it was reached, for the server's log and tests. */
export interface Recovered {
  text: string;
  /** "undo" (from the pictured states), "visible" (from the trees), "restored", or a slip kind. */
  kind: string;
  /** Step indices of the context actions the stand-in believed it had to undo (steps >= R it was shown). */
  undoing: number[];
}

/** Read R, E, the context and the trees out of a recovery prompt. */
export function readRecovery(req: ReadRequest): RecoveryView {
  const text = req.text;
  const targetStep = Number(/state just before step (\d+)/.exec(text)?.[1] ?? 0);
  const errorStep = Number(/went wrong from step (\d+)/.exec(text)?.[1] ?? targetStep);
  const pre = req.messages.findIndex((m) => m.role === "user" && m.text.includes("TARGET screenshot"));
  const preamble = pre >= 0 ? req.messages[pre].text : "";
  const context = /Earlier run, steps 0 to/.test(preamble) ? "history" : /Briefing on the TARGET state/.test(preamble) ? "briefing" : "none";
  const contextSteps = new Map<number, Action[]>();
  if (context === "history") for (const [i, line] of stepLines(preamble, "action")) contextSteps.set(i, parseActionText(line));
  if (context === "briefing") for (const m of preamble.matchAll(/^- step (\d+): ([A-Z_]+(?:\(.*?\))?(?:; [A-Z_]+(?:\(.*?\))?)*)/gm)) contextSteps.set(Number(m[1]), parseActionText(m[2]));
  const targetTree = treeTexts(preamble)[0];
  const currentTree = treeTexts(req.messages[req.messages.length - 1]?.text ?? "").pop();
  return { targetStep, errorStep, context, contextSteps, own: ownActions(req.messages, pre >= 0 ? pre + 1 : 1), ...(targetTree && { targetTree }), ...(currentTree && { currentTree }) };
}

function centre(l: TreeLine): Action {
  return { type: "CLICK", x: l.x + Math.round(l.w / 2), y: l.y + Math.round(l.h / 2), button: "left", numClicks: 1 };
}

/** The next fix of a visible difference between the TARGET and the current tree, or undefined. */
export function visibleFix(target: TreeLine[], current: TreeLine[]): { action: Action; why: string } | undefined {
  const has = (lines: TreeLine[], pred: (l: TreeLine) => boolean) => lines.some(pred);
  if (has(current, (l) => l.role === "menu item") && !has(target, (l) => l.role === "menu item")) return { action: { type: "PRESS", key: "escape" }, why: "A menu is open that the TARGET does not show; close it." };
  for (const d of current.filter((l) => l.role === "dialog")) if (!has(target, (t) => t.role === "dialog" && t.name === d.name)) return { action: { type: "PRESS", key: "escape" }, why: `The "${d.name}" dialog is not in the TARGET; dismiss it.` };
  const windows = (ls: TreeLine[]) => ls.filter((l) => l.role === "window");
  const app = (name: string) => name.slice(name.lastIndexOf(" - ") + 3);
  const bare = (name: string) => name.replace(/^\*/, "");
  for (const w of windows(current)) {
    if (windows(target).some((t) => bare(t.name) === bare(w.name))) continue;
    // The same app showing another folder: go back to the TARGET's folder.
    const same = windows(target).find((t) => app(t.name) === app(w.name) && app(w.name) === "Files");
    if (same) {
      const folder = same.name.slice(0, same.name.lastIndexOf(" - "));
      const place = current.find((l) => l.role === "list item" && l.name === folder);
      if (place) return { action: centre(place), why: `The file manager shows "${w.name}"; go back to ${folder} as in the TARGET.` };
    }
    const idx = current.indexOf(w);
    const close = current.findIndex((l, i) => i > idx && l.role === "button" && l.name === "Close" && containerOf(current, i) === `window:${w.name}`);
    if (close >= 0) return { action: centre(current[close]), why: `The window "${w.name}" is not in the TARGET; close it.` };
  }
  for (const t of windows(target)) {
    if (windows(current).some((w) => app(w.name) === app(t.name))) continue;
    // A window of the TARGET is missing: bring it back (taskbar entry of a minimized one, else launch the app).
    const entry = current.find((l) => l.role === "button" && bare(l.name) === bare(t.name));
    const launch = current.find((l) => l.role === "button" && l.name === `Launch ${app(t.name)}`);
    if (entry ?? launch) return { action: centre((entry ?? launch)!), why: `The TARGET shows "${t.name}", which is not open; bring it back.` };
  }
  // A sheet's cells: a value that differs is an edit to undo; then select the TARGET's cell (the
  // formula bar only mirrors the selected cell, so undoing cannot fix it when the selection moved).
  for (const c of current.filter((l) => l.role === "cell")) {
    const t = target.find((l) => l.role === "cell" && l.name === c.name);
    if (t && t.value !== c.value) return { action: { type: "HOTKEY", keys: ["ctrl", "z"] }, why: `Cell ${c.name} differs from the TARGET; undo the edit.` };
  }
  for (const t of target.filter((l) => l.role === "cell" && l.states.includes("selected"))) {
    const c = current.find((l) => l.role === "cell" && l.name === t.name);
    if (c && !c.states.includes("selected")) return { action: centre(c), why: `Select cell ${t.name} again, as in the TARGET.` };
  }
  for (let i = 0; i < current.length; i++) {
    const c = current[i];
    if (c.role !== "text") continue;
    // An edited document's window is titled "*name"; it is still the same window.
    const where = (lines: TreeLine[], k: number) => containerOf(lines, k).replace(/:\*/, ":");
    const t = target.find((l, j) => l.role === "text" && l.name === c.name && where(target, j) === where(current, i));
    if (t && t.value !== c.value) return { action: { type: "HOTKEY", keys: ["ctrl", "z"] }, why: `The text of "${c.name}" differs from the TARGET; undo the edit.` };
  }
  for (const c of current.filter((l) => l.role === "switch" || l.role === "radio button" || l.role === "check box")) {
    const t = target.find((l) => l.role === c.role && l.name === c.name);
    if (t && t.states.includes("checked") !== c.states.includes("checked") && (c.role !== "radio button" || t.states.includes("checked")))
      return { action: centre(c), why: `"${c.name}" is ${c.states.includes("checked") ? "on" : "off"} but ${t.states.includes("checked") ? "on" : "off"} in the TARGET; set it back.` };
  }
  for (const t of target.filter((l) => l.states.includes("selected") && l.role === "list item")) {
    const c = current.find((l) => l.role === t.role && l.name === t.name);
    if (c && !c.states.includes("selected")) return { action: centre(c), why: `Select "${t.name}" again, as in the TARGET.` };
  }
  return undefined;
}

/** The recovery agent's answer. */
export function playRecovery(req: ReadRequest, draw: Draw, o: { errorRate: number; tasks: readonly SimDeskTask[] }): Recovered {
  const v = readRecovery(req);
  const current = v.currentTree ? parseTree(v.currentTree) : [];
  const target = v.targetTree ? parseTree(v.targetTree) : [];
  const { width, height } = screenOf(req.text, current);
  const task = findTask(req.text, o.tasks);
  const shown = [...v.contextSteps.keys()].sort((a, b) => a - b);
  const before = shown.filter((i) => i < v.targetStep);
  const after = shown.filter((i) => i >= v.targetStep);
  let answer: { actions: Action[]; why: string; kind: string } | undefined;
  if (task && before.length === v.targetStep) {
    // It can picture the TARGET (every step before R is listed) and its belief of now.
    const tgt = replay(task, before.flatMap((i) => v.contextSteps.get(i)!), width, height).pop()!;
    const believed = replay(task, [...shown.flatMap((i) => v.contextSteps.get(i)!), ...v.own], width, height).pop()!;
    const consistent = !v.currentTree || treeOf(believed, width, height) === v.currentTree;
    if (consistent) {
      const step = nextRestorativeStep(believed, tgt, width, height);
      if (step === null) answer = { actions: [], why: "The screen matches the TARGET state.", kind: "restored" };
      else if (step === "unreachable") answer = { actions: [{ type: "FAIL" }], why: "What changed cannot be undone from here.", kind: "unreachable" };
      else answer = { actions: [step.action], why: `To restore the TARGET I will ${step.rationale}.`, kind: "undo" };
    }
  }
  if (!answer) {
    const fix = target.length && current.length ? visibleFix(target, current) : undefined;
    answer = fix ? { actions: [fix.action], why: fix.why, kind: "visible" } : { actions: [], why: "I see no difference from the TARGET state.", kind: "restored" };
  }
  const slips: Array<{ actions: Action[]; why: string; kind: string }> = [];
  if (answer.kind !== "restored") slips.push({ actions: [], why: "This looks like the TARGET state.", kind: "premature-restored" });
  const wrong = clickable(current);
  if (wrong.length) {
    const l = wrong[draw.rng.int(0, wrong.length - 1)];
    slips.push({ actions: [centre(l)], why: `I will click the ${l.role} "${l.name}".`, kind: "slip" });
  }
  const rate = o.errorRate / 2;
  const pick = choose(draw, [{ weight: slips.length ? 1 - rate : 1, value: answer }, ...slips.map((s) => ({ weight: rate / slips.length, value: s }))]);
  const text = pick.actions.length ? replyWith(pick.why, pick.actions) : `${pick.why}\n${RESTORED}`;
  return { text, kind: pick.kind, undoing: after };
}
