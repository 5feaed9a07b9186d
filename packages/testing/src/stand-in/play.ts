/**
 * The stand-in as a forward agent and as the perturber: it reads the task and the current
 * accessibility tree from the prompt, finds where along the task's demonstration (its skill book)
 * that screen is, and answers the next plan step grounded on the element it sees (pyautogui
 * code). It samples: a configurable share of answers are mistakes (a wrong click, a typo, a
 * catalogue mistake, a stray shortcut that silently toggles a setting, a skipped step, a
 * premature DONE; the task's catalogue mistakes weigh 3, the generic ones 1), and clicks land anywhere near an
 * element's
 * centre. Without a tree in the prompt it estimates its position from its own earlier answers.
 *
 * After a cut (the prompt carries the post-restoration transition string) it loses track of the
 * state at `postCutErrorRate`: it acts as if what it did after the restored step still held, and
 * answers the plan step after the one the screen calls for (or DONE at the end of the plan). The
 * more the transition string says, the less often: each of "your later actions were removed from
 * your history" and "do not assume ... / look at it carefully" halves the rate (paper Sec. 6.3;
 * prompts/post-restoration-transition*.ts: the short string says neither, the detailed both).
 */
import type { Action } from "@retrace-cua/core/action";
import { actionsOfAnswer, parseActionText, replyWith } from "./actions-text.ts";
import { readHistory } from "./reading.ts";
import {
  parseTree,
  screenOf,
  stepLines,
  treeTexts,
  type ReadMessage,
  type ReadRequest,
  type TreeLine,
} from "./request.ts";
import { choose, happens, pickOne, type Candidate, type Draw } from "./sampling.ts";
import type { SkillBook } from "./skills.ts";
import {
  clickable,
  findTask,
  ground,
  knowledgeOf,
  matchingSteps,
  nearestStep,
  type Intent,
  type TaskKnowledge,
} from "./world.ts";

/** What the forward and perturber roles need besides the request. */
export interface PlayOptions {
  /** Share of forward answers (at temperature 1) that are mistakes. */
  errorRate: number;
  /**
   * Chance (at temperature 1) that the first answer after a cut loses track of the state, before the transition
   * string's cues.
   */
  postCutErrorRate: number;
  /** Relative weight per mistake kind (misclick, latent, premature-done, skip, wrong-item, typo); 1 when absent. */
  slipMix?: Partial<Record<string, number>>;
  book: SkillBook;
}

/** An answer and what it was, for the server's log. */
export interface Played {
  text: string;
  /** "correct", "done", a mistake kind, "lost", "lost-after-cut" or "unknown-task". */
  kind: string;
  /** The plan index the stand-in believed it was at (-1: unknown). */
  step: number;
  /** After a cut: the chance of losing track this prompt gave (the transition string's cues applied). */
  cutRate?: number;
}

/** Where along the plan the prompt's screen is. */
interface Position {
  know: TaskKnowledge;
  step: number;
  onPath: boolean;
  lines: TreeLine[];
}

/** The agent's own earlier actions, from the older-steps summary and its past answers. */
export function ownActions(messages: readonly ReadMessage[], from = 0): Action[] {
  const out: Action[] = [];
  for (const m of messages.slice(from)) {
    if (m.role === "user" && m.text.startsWith("Earlier steps"))
      for (const line of stepLines(m.text, "plain").values()) out.push(...parseActionText(line));
    else if (m.role === "assistant" && m.text.trim() !== "Understood.") out.push(...actionsOfAnswer(m.text));
  }
  return out;
}

function sameAction(a: Action | undefined, b: Action): boolean {
  if (!a || a.type !== b.type) return false;
  if ("x" in a && "x" in b && a.x !== undefined && b.x !== undefined)
    return Math.abs(a.x - b.x) <= 8 && Math.abs((a.y ?? 0) - (b.y ?? 0)) <= 8;
  return JSON.stringify(a) === JSON.stringify(b);
}

function locate(req: ReadRequest, o: PlayOptions, task: TaskKnowledge["task"], from: number): Position {
  const last = req.messages[req.messages.length - 1];
  const treeText = treeTexts(last?.text ?? "").pop();
  const lines = treeText ? parseTree(treeText) : [];
  const know = knowledgeOf(task, o.book);
  const mine = ownActions(req.messages, from);
  if (treeText) {
    const steps = matchingSteps(know, treeText);
    if (steps.length) {
      // Screens that look alike (e.g. a folder before and after its files moved): prefer a step the
      // last action leads to, then the one nearest to how many steps the agent has taken.
      const lastAction = mine[mine.length - 1];
      const led = steps.filter((k) => k > 0 && sameAction(lastAction, task.plan[k - 1]));
      const pool = led.length ? led : steps;
      const step = pool.reduce((a, b) => (Math.abs(b - mine.length) < Math.abs(a - mine.length) ? b : a));
      return { know, step, onPath: true, lines };
    }
    return { know, step: nearestStep(know, lines).step, onPath: false, lines };
  }
  // No screen: where its own answers, read as plan steps, have brought it.
  const reading = readHistory(
    know,
    mine.map((a, i) => ({ step: i, actions: [a] })),
    undefined,
    screenOf(req.text),
  );
  const k = reading.before[reading.before.length - 1];
  return { know, step: k >= 0 ? k : Math.min(mine.length, task.plan.length), onPath: k >= 0, lines };
}

/** The chance of losing track after a cut that the prompt's transition string leaves (0 without one). */
export function cutRateOf(text: string, base: number): number {
  if (!/the environment has been recovered/i.test(text)) return 0;
  let rate = base;
  if (/later actions were removed from your history/i.test(text)) rate /= 2;
  if (/do not assume anything you did after/i.test(text) || /look at it carefully before acting/i.test(text)) rate /= 2;
  return rate;
}

function jitterOf(draw: Draw) {
  return (limit: number) => {
    if (draw.greedy || limit <= 0) return { dx: 0, dy: 0 };
    const r = Math.max(0, Math.round(limit * Math.min(1, draw.temperature)));
    return { dx: draw.rng.int(-r, r), dy: draw.rng.int(-r, r) };
  };
}

/** What an action is for, in words. */
export function describeIntent(i: Intent | undefined, a: Action): string {
  if (i?.target)
    return `${a.type === "DOUBLE_CLICK" ? "double-click" : a.type === "RIGHT_CLICK" ? "right-click" : "click"} the ${i.target.role} "${i.target.name}"`;
  if (a.type === "TYPING") return `type ${JSON.stringify(a.text)}`;
  if (a.type === "HOTKEY") return `press ${a.keys.join("+")}`;
  if (a.type === "PRESS") return `press ${a.key}`;
  if (a.type === "DONE") return "say the task is done";
  return a.type.toLowerCase();
}

const THOUGHTS = ["I need to {x}.", "Next, I will {x}.", "Looking at the screen, the next step is to {x}."];

function say(draw: Draw, what: string): string {
  return pickOne(draw, THOUGHTS).replace("{x}", what);
}

function wrongClick(draw: Draw, p: Position, avoid?: Intent): Action[] | undefined {
  const options = clickable(p.lines).filter(
    (l) => !(avoid?.target && l.role === avoid.target.role && l.name === avoid.target.name),
  );
  if (!options.length) return undefined;
  const l = pickOne(draw, options);
  return [{ type: "CLICK", x: l.x + Math.round(l.w / 2), y: l.y + Math.round(l.h / 2), button: "left", numClicks: 1 }];
}

/** The forward agent's answer. */
export function playForward(req: ReadRequest, draw: Draw, o: PlayOptions): Played {
  const task = findTask(req.text, o.book);
  if (!task)
    return {
      text: "I do not know how to do this task in the applications I can see.\nFAIL",
      kind: "unknown-task",
      step: -1,
    };
  const p = locate(req, o, task, 0);
  const { know, step: k } = p;
  const n = task.plan.length;
  const jitter = jitterOf(draw);
  // The transition string is in the last message only on the first decision after a cut.
  const cutRate = cutRateOf(req.messages[req.messages.length - 1]?.text ?? "", o.postCutErrorRate);
  if (cutRate > 0 && happens(draw, cutRate)) {
    // It assumes what it did after the restored step still holds: the step the screen calls for is "done".
    const ahead = k + 1;
    const actions: Action[] =
      ahead >= n ? [{ type: "DONE" }] : [ground(know.intents[ahead], p.lines, jitter) ?? know.intents[ahead].action];
    const why =
      ahead >= n
        ? "I had already finished the task before the recovery."
        : say(draw, describeIntent(know.intents[ahead], actions[0]));
    return { text: replyWith(why, actions), kind: "lost-after-cut", step: k, cutRate };
  }
  let correct: { actions: Action[]; why: string; kind: string };
  if (p.onPath && k >= n) correct = { actions: [{ type: "DONE" }], why: "The task looks complete.", kind: "done" };
  else if (
    !p.onPath &&
    p.lines.some((l) => l.role === "menu item" || l.role === "dialog") &&
    !know.trees[k].includes("\tmenu item\t") &&
    !/^dialog\t/m.test(know.trees[k])
  ) {
    correct = {
      actions: [{ type: "PRESS", key: "escape" }],
      why: "Something I did not expect is open; I will close it first.",
      kind: "lost",
    };
  } else {
    const intent = know.intents[Math.min(k, n - 1)];
    const a = ground(intent, p.lines, jitter) ?? (p.lines.length ? undefined : intent.action);
    correct = a
      ? { actions: [a], why: say(draw, describeIntent(intent, a)), kind: p.onPath ? "correct" : "lost" }
      : {
          actions: [{ type: "PRESS", key: "escape" }],
          why: "I cannot find what I need on screen; I will close whatever is in the way.",
          kind: "lost",
        };
  }
  const mistakes: Array<{ actions: Action[]; kind: string }> = [];
  let catalogue = 0;
  if (k < n) {
    for (const m of task.mistakes.filter((m) => m.atStep === k)) mistakes.push({ actions: m.actions, kind: m.kind });
    catalogue = mistakes.length;
    const wrong = wrongClick(draw, p, know.intents[k]);
    if (wrong) mistakes.push({ actions: wrong, kind: "misclick" });
    // A stray shortcut that silently toggles a setting (SimDesk's "latent" slip), then the right step.
    if (correct.kind === "correct" && !task.mistakes.some((m) => m.atStep === k && m.kind === "latent"))
      mistakes.push({
        actions: [{ type: "HOTKEY", keys: ["ctrl", "alt", pickOne(draw, ["d", "l"])] }, ...correct.actions],
        kind: "latent",
      });
    if (k > 0) mistakes.push({ actions: [{ type: "DONE" }], kind: "premature-done" });
    if (k + 1 < n) {
      const skip = ground(know.intents[k + 1], p.lines, jitter);
      if (skip) mistakes.push({ actions: [skip], kind: "skip" });
    }
  }
  // The task's typical mistakes (its catalogue: a wrong item, a stray shortcut) are 3 times as likely as a generic
  // slip.
  const weightOf = (i: number) => (i < catalogue ? 3 : 1) * (o.slipMix?.[mistakes[i].kind] ?? 1);
  const total = mistakes.reduce((sum, _m, i) => sum + weightOf(i), 0);
  const candidates: Candidate<{ actions: Action[]; kind: string; why?: string }>[] = [
    { weight: total > 0 ? 1 - o.errorRate : 1, value: correct },
    ...(total > 0 ? mistakes.map((m, i) => ({ weight: (o.errorRate * weightOf(i)) / total, value: m })) : []),
  ];
  const pick = choose(draw, candidates);
  const why = pick.why ?? say(draw, describeIntent(undefined, pick.actions[0]));
  return { text: replyWith(why, pick.actions), kind: pick.kind, step: k, ...(cutRate > 0 && { cutRate }) };
}

/** The perturber's answer: one plausible, state-changing mistake at the current screen. */
export function playPerturber(req: ReadRequest, draw: Draw, o: PlayOptions): Played {
  const task = findTask(req.text, o.book);
  const lines = parseTree(treeTexts(req.messages[req.messages.length - 1]?.text ?? "").pop() ?? "");
  const options: Array<{ actions: Action[]; kind: string }> = [
    { actions: [{ type: "HOTKEY", keys: ["ctrl", "alt", "d"] }], kind: "latent" },
  ];
  let k = -1;
  if (task) {
    const p = locate(req, o, task, 0);
    k = p.step;
    for (const m of task.mistakes.filter((m) => m.atStep === k && p.onPath))
      options.push({ actions: m.actions, kind: m.kind });
    const wrong = wrongClick(draw, p, p.know.intents[k]);
    if (wrong) options.push({ actions: wrong, kind: "misclick" });
  } else if (lines.length) {
    const l = pickOne(draw, clickable(lines).length ? clickable(lines) : lines);
    options.push({
      actions: [
        { type: "CLICK", x: l.x + Math.round(l.w / 2), y: l.y + Math.round(l.h / 2), button: "left", numClicks: 1 },
      ],
      kind: "misclick",
    });
  }
  if (lines.some((l) => l.role === "text" && l.states.includes("focused")))
    options.push({ actions: [{ type: "TYPING", text: "oops" }], kind: "typo" });
  // Catalogue mistakes are the visible, task-breaking ones a dataset wants; a silent toggle is rarer.
  const weight = (kind: string, i: number) => (i === 0 ? 0.25 : kind === "misclick" || kind === "typo" ? 1 : 3);
  const pick = choose(
    draw,
    options.map((v, i) => ({ weight: weight(v.kind, i), value: v })),
  );
  return {
    text: replyWith(`To lead the task astray, I will ${describeIntent(undefined, pick.actions[0])}.`, pick.actions),
    kind: pick.kind,
    step: k,
  };
}
