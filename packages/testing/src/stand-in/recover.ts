/**
 * The stand-in as the recovery sub-agent. It infers what to undo from what its prompt shows:
 * - the screen: it fixes visible differences between the TARGET and the current tree (close a
 *   menu, dialog or extra window, undo an edited field or cell, set a switch back, reselect an
 *   item), then says RESTORED;
 * - the actions its context lists after the TARGET (a 0-E history shows them; a 0-R history, a
 *   briefing or no context does not): an action whose effect no screen shows - a shortcut with
 *   Alt, a silent toggle - it undoes by pressing it again, before fixing what it sees.
 * So the contexts (0-E, 0-R, none, contextualized) differ only by what their prompts list. With
 * `ignoreContext` it reads neither the context nor the note about it, and draws as if they were
 * not there: the contexts then give the same answers. It never knows the episode's hidden state.
 * Its answers are sampled: a slip (a wrong click) or a premature RESTORED at `slipRate`.
 */
import type { Action } from "@retrace-cua/core/action";
import { replyWith } from "./actions-text.ts";
import { ownActions } from "./play.ts";
import { shownSteps } from "./reading.ts";
import { containerOf, parseTree, treeTexts, type ReadRequest, type TreeLine } from "./request.ts";
import { choose, type Draw } from "./sampling.ts";
import { clickable } from "./world.ts";

/** The word that ends a recovery attempt (packages/models/src/llm/recoverer.ts RESTORED_TOKEN). */
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
  /** "undo-silent" (an action its context listed), "visible" (from the trees), "restored", or a slip kind. */
  kind: string;
  /** Step indices of the context actions at or after R its prompt listed (what it could know to undo). */
  undoing: number[];
}

/** Read R, E, the context and the trees out of a recovery prompt (`ignoreContext`: as if no context were given). */
export function readRecovery(req: ReadRequest, ignoreContext = false): RecoveryView {
  const text = req.text;
  const targetStep = Number(/state just before step (\d+)/.exec(text)?.[1] ?? 0);
  const errorStep = Number(/went wrong from step (\d+)/.exec(text)?.[1] ?? targetStep);
  const pre = req.messages.findIndex((m) => m.role === "user" && m.text.includes("TARGET screenshot"));
  const preamble = pre >= 0 ? req.messages[pre].text : "";
  const context = ignoreContext
    ? "none"
    : /Earlier run, steps 0 to/.test(preamble)
      ? "history"
      : /Briefing on the TARGET state/.test(preamble)
        ? "briefing"
        : "none";
  const contextSteps = new Map<number, Action[]>();
  if (context === "history")
    for (const s of shownSteps(preamble.slice(preamble.indexOf("Earlier run, steps 0 to"))))
      contextSteps.set(s.step, s.actions);
  const targetTree = treeTexts(preamble)[0];
  const currentTree = treeTexts(req.messages[req.messages.length - 1]?.text ?? "").pop();
  return {
    targetStep,
    errorStep,
    context,
    contextSteps,
    own: ownActions(req.messages, pre >= 0 ? pre + 1 : 1),
    ...(targetTree && { targetTree }),
    ...(currentTree && { currentTree }),
  };
}

/** The notes about the context in the recovery instruction (packages/models/src/llm/recoverer.ts CONTEXT_NOTES). */
const CONTEXT_NOTES = [
  /Below is the earlier run's history up to the (?:current screen|TARGET state) \([^)]*\)[^.]*\./g,
  /Below is a briefing describing the TARGET state and how it came about, including changes a screenshot cannot show\./g,
  /No history of the earlier run is given; rely on the TARGET screenshot\./g,
];

/** The prompt text a recovery answer that ignores its context is drawn from: no context, no note about it. */
export function textWithoutContext(req: ReadRequest): string {
  return req.messages
    .map((m) => {
      let t = m.text;
      for (const at of ["Earlier run, steps 0 to", "Briefing on the TARGET state"]) {
        const i = t.indexOf(at);
        if (i >= 0) t = t.slice(0, i);
      }
      for (const re of CONTEXT_NOTES) t = t.replace(re, "");
      return `[${m.role}]\n${t}`;
    })
    .join("\n");
}

/** A shortcut whose effect a screen does not show (a silent toggle): pressing it again undoes it. */
function silentToggle(a: Action): boolean {
  return a.type === "HOTKEY" && a.keys.includes("alt") && a.keys.length >= 3;
}

const sig = (a: Action) => JSON.stringify(a);

function centre(l: TreeLine): Action {
  return { type: "CLICK", x: l.x + Math.round(l.w / 2), y: l.y + Math.round(l.h / 2), button: "left", numClicks: 1 };
}

/** The next fix of a visible difference between the TARGET and the current tree, or undefined. */
export function visibleFix(target: TreeLine[], current: TreeLine[]): { action: Action; why: string } | undefined {
  const has = (lines: TreeLine[], pred: (l: TreeLine) => boolean) => lines.some(pred);
  if (has(current, (l) => l.role === "menu item") && !has(target, (l) => l.role === "menu item"))
    return { action: { type: "PRESS", key: "escape" }, why: "A menu is open that the TARGET does not show; close it." };
  for (const d of current.filter((l) => l.role === "dialog"))
    if (!has(target, (t) => t.role === "dialog" && t.name === d.name))
      return {
        action: { type: "PRESS", key: "escape" },
        why: `The "${d.name}" dialog is not in the TARGET; dismiss it.`,
      };
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
      if (place)
        return {
          action: centre(place),
          why: `The file manager shows "${w.name}"; go back to ${folder} as in the TARGET.`,
        };
    }
    const idx = current.indexOf(w);
    const close = current.findIndex(
      (l, i) => i > idx && l.role === "button" && l.name === "Close" && containerOf(current, i) === `window:${w.name}`,
    );
    if (close >= 0)
      return { action: centre(current[close]), why: `The window "${w.name}" is not in the TARGET; close it.` };
  }
  for (const t of windows(target)) {
    if (windows(current).some((w) => app(w.name) === app(t.name))) continue;
    // A window of the TARGET is missing: bring it back (taskbar entry of a minimized one, else launch the app).
    const entry = current.find((l) => l.role === "button" && bare(l.name) === bare(t.name));
    const launch = current.find((l) => l.role === "button" && l.name === `Launch ${app(t.name)}`);
    if (entry ?? launch)
      return {
        action: centre((entry ?? launch)!),
        why: `The TARGET shows "${t.name}", which is not open; bring it back.`,
      };
  }
  // A sheet's cells: a value that differs is an edit to undo; then select the TARGET's cell (the
  // formula bar only mirrors the selected cell, so undoing cannot fix it when the selection moved).
  for (const c of current.filter((l) => l.role === "cell")) {
    const t = target.find((l) => l.role === "cell" && l.name === c.name);
    if (t && t.value !== c.value)
      return {
        action: { type: "HOTKEY", keys: ["ctrl", "z"] },
        why: `Cell ${c.name} differs from the TARGET; undo the edit.`,
      };
  }
  for (const t of target.filter((l) => l.role === "cell" && l.states.includes("selected"))) {
    const c = current.find((l) => l.role === "cell" && l.name === t.name);
    if (c && !c.states.includes("selected"))
      return { action: centre(c), why: `Select cell ${t.name} again, as in the TARGET.` };
  }
  for (let i = 0; i < current.length; i++) {
    const c = current[i];
    if (c.role !== "text") continue;
    // An edited document's window is titled "*name"; it is still the same window.
    const where = (lines: TreeLine[], k: number) => containerOf(lines, k).replace(/:\*/, ":");
    const t = target.find((l, j) => l.role === "text" && l.name === c.name && where(target, j) === where(current, i));
    if (t && t.value !== c.value)
      return {
        action: { type: "HOTKEY", keys: ["ctrl", "z"] },
        why: `The text of "${c.name}" differs from the TARGET; undo the edit.`,
      };
  }
  for (const c of current.filter((l) => l.role === "switch" || l.role === "radio button" || l.role === "check box")) {
    const t = target.find((l) => l.role === c.role && l.name === c.name);
    if (
      t &&
      t.states.includes("checked") !== c.states.includes("checked") &&
      (c.role !== "radio button" || t.states.includes("checked"))
    )
      return {
        action: centre(c),
        why: `"${c.name}" is ${c.states.includes("checked") ? "on" : "off"} but ${t.states.includes("checked") ? "on" : "off"} in the TARGET; set it back.`,
      };
  }
  for (const t of target.filter((l) => l.states.includes("selected") && l.role === "list item")) {
    const c = current.find((l) => l.role === t.role && l.name === t.name);
    if (c && !c.states.includes("selected"))
      return { action: centre(c), why: `Select "${t.name}" again, as in the TARGET.` };
  }
  return undefined;
}

/** The recovery agent's answer. */
export function playRecovery(
  req: ReadRequest,
  draw: Draw,
  o: { slipRate: number; ignoreContext?: boolean },
): Recovered {
  const v = readRecovery(req, o.ignoreContext);
  const current = v.currentTree ? parseTree(v.currentTree) : [];
  const target = v.targetTree ? parseTree(v.targetTree) : [];
  const after = [...v.contextSteps.keys()].filter((i) => i >= v.targetStep).sort((a, b) => a - b);
  // Silent changes the context lists after R, newest first, less those its own answers already undid.
  const pending = after.flatMap((i) => v.contextSteps.get(i)!.filter(silentToggle)).reverse();
  const done = new Map<string, number>();
  for (const a of v.own) if (silentToggle(a)) done.set(sig(a), (done.get(sig(a)) ?? 0) + 1);
  const todo = pending.filter((a) => {
    const n = done.get(sig(a)) ?? 0;
    if (n > 0) done.set(sig(a), n - 1);
    return n === 0;
  });
  let answer: { actions: Action[]; why: string; kind: string };
  if (todo.length)
    answer = {
      actions: [todo[0]],
      why: `The history shows ${todo[0].type === "HOTKEY" ? todo[0].keys.join("+") : "an action"} after the TARGET; pressing it again undoes it.`,
      kind: "undo-silent",
    };
  else {
    const fix = target.length && current.length ? visibleFix(target, current) : undefined;
    answer = fix
      ? { actions: [fix.action], why: fix.why, kind: "visible" }
      : { actions: [], why: "I see no difference from the TARGET state.", kind: "restored" };
  }
  const slips: Array<{ actions: Action[]; why: string; kind: string }> = [];
  if (answer.kind !== "restored")
    slips.push({ actions: [], why: "This looks like the TARGET state.", kind: "premature-restored" });
  const wrong = clickable(current);
  if (wrong.length) {
    const l = wrong[draw.rng.int(0, wrong.length - 1)];
    slips.push({ actions: [centre(l)], why: `I will click the ${l.role} "${l.name}".`, kind: "slip" });
  }
  const rate = o.slipRate;
  const pick = choose(draw, [
    { weight: slips.length ? 1 - rate : 1, value: answer },
    ...slips.map((s) => ({ weight: rate / slips.length, value: s })),
  ]);
  const text = pick.actions.length ? replyWith(pick.why, pick.actions) : `${pick.why}\n${RESTORED}`;
  return { text, kind: pick.kind, undoing: after };
}
