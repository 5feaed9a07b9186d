/**
 * What the stand-in knows about SimDesk, the way a model knows common apps: the task catalogue
 * (instructions, reference plans, typical mistakes) and how the apps respond to input (it runs
 * SimDesk's engine privately, from a task's setup, to picture the screens along the plan and to
 * replay actions it reads in a prompt). It never talks to a running environment: its inputs are
 * the prompt's text (task, trees, action lists) and this private knowledge.
 */
import type { Action } from "../../../src/action.ts";
import type { DeskState } from "../../environments/simdesk/types.ts";
import type { SimDeskTask } from "../../environments/simdesk/ground-truth.ts";
import { applyAction } from "../../environments/simdesk/engine.ts";
import { initialState } from "../../environments/simdesk/setup.ts";
import { buildUi, hitNode } from "../../environments/simdesk/ui.ts";
import { toAxTree } from "../../environments/simdesk/ax.ts";
import { semanticHash } from "../../environments/simdesk/hashing.ts";
import { linearizeAxTree } from "../../policies/observation.ts";
import { containerOf, parseTree, type TreeLine } from "./request.ts";

/** A plan step as an intention: the action, and for pointer actions the element it aims at. */
export interface Intent {
  action: Action;
  target?: { role: string; name: string; container: string; dx: number; dy: number; centred: boolean };
}

/** The stand-in's picture of one task at one screen size. */
export interface TaskKnowledge {
  task: SimDeskTask;
  width: number;
  height: number;
  /** Reference states along the plan: index k = after k plan steps. */
  states: DeskState[];
  /** Linearized accessibility tree of each reference state. */
  trees: string[];
  /** Semantic hash of each reference state. */
  semantic: string[];
  intents: Intent[];
}

const cache = new Map<string, TaskKnowledge>();

/** The catalogue task whose instruction the text quotes (the longest such), if any. */
export function findTask(text: string, tasks: readonly SimDeskTask[]): SimDeskTask | undefined {
  let best: SimDeskTask | undefined;
  for (const t of tasks) if (text.includes(t.instruction) && (!best || t.instruction.length > best.instruction.length)) best = t;
  return best;
}

/** The linearized tree of a state (what an agent with `a11y_tree` observation is shown). */
export function treeOf(s: DeskState, width: number, height: number): string {
  return linearizeAxTree(toAxTree(buildUi(s, width, height)));
}

/** The knowledge of a task at a screen size (memoised). */
export function knowledgeOf(task: SimDeskTask, width: number, height: number): TaskKnowledge {
  const key = `${task.id}@${width}x${height}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const states = [initialState(task.setup, null)];
  const intents: Intent[] = [];
  for (const a of task.plan) {
    const s = states[states.length - 1];
    intents.push(intentOf(s, a, width, height));
    states.push(applyAction(s, a, width, height).state);
  }
  const k: TaskKnowledge = { task, width, height, states, trees: states.map((s) => treeOf(s, width, height)), semantic: states.map(semanticHash), intents };
  cache.set(key, k);
  return k;
}

/** The intention behind an action taken in state `s`: which element a pointer action aims at. */
export function intentOf(s: DeskState, a: Action, width: number, height: number): Intent {
  if (!("x" in a) || a.x === undefined || a.y === undefined || a.type === "SCROLL") return { action: a };
  const ui = buildUi(s, width, height);
  const node = hitNode(ui, a.x, a.y);
  if (!node) return { action: a };
  const lines = parseTree(treeOf(s, width, height));
  const idx = lines.findIndex((l) => l.role === node.role && l.name === node.name && l.x === node.rect[0] && l.y === node.rect[1]);
  const [x, y, w, h] = node.rect;
  const dx = a.x - x;
  const dy = a.y - y;
  const centred = Math.abs(dx - w / 2) <= 1 && Math.abs(dy - h / 2) <= 1;
  return { action: a, target: { role: node.role, name: node.name, container: idx >= 0 ? containerOf(lines, idx) : "desktop", dx, dy, centred } };
}

/** States after replaying `actions` from the task's initial state: [initial, after 1, ...]. */
export function replay(task: SimDeskTask, actions: readonly Action[], width: number, height: number): DeskState[] {
  const out = [initialState(task.setup, null)];
  for (const a of actions) {
    if (a.type === "DONE" || a.type === "FAIL" || a.type === "WAIT") {
      out.push(out[out.length - 1]);
      continue;
    }
    try {
      out.push(applyAction(out[out.length - 1], a, width, height).state);
    } catch {
      out.push(out[out.length - 1]);
    }
  }
  return out;
}

/** A tree without positions and sizes (a context menu opens where the pointer was). */
function layoutFree(tree: string): string {
  return tree
    .split("\n")
    .map((l) => l.split("\t").slice(0, 4).join("\t"))
    .join("\n");
}

/** Plan indices whose reference screen shows exactly this tree, else the same elements anywhere. */
export function matchingSteps(k: TaskKnowledge, tree: string): number[] {
  const out: number[] = [];
  k.trees.forEach((t, i) => t === tree && out.push(i));
  if (out.length) return out;
  const loose = layoutFree(tree);
  k.trees.forEach((t, i) => layoutFree(t) === loose && out.push(i));
  return out;
}

/** The plan index whose reference screen looks most like this tree (shared lines), and how much. */
export function nearestStep(k: TaskKnowledge, lines: readonly TreeLine[]): { step: number; similarity: number } {
  const mine = new Set(lines.map((l) => l.raw));
  let best = { step: 0, similarity: -1 };
  k.trees.forEach((t, i) => {
    const theirs = new Set(t.split("\n").slice(1));
    let shared = 0;
    for (const l of theirs) if (mine.has(l)) shared++;
    const sim = shared / Math.max(1, new Set([...mine, ...theirs]).size);
    if (sim > best.similarity) best = { step: i, similarity: sim };
  });
  return best;
}

/** Plan index of a state by its semantic hash, or -1 when it is off the reference path. */
export function planIndexOf(k: TaskKnowledge, s: DeskState): number {
  const h = semanticHash(s);
  return k.semantic.lastIndexOf(h);
}

/**
 * Where an intention lands on the screen described by `lines`: the same element (role and name,
 * preferably in the same window), at the same offset inside it; `jitter` moves a centred click
 * by up to that many pixels (a model does not hit the exact centre). Undefined when the element
 * is not on screen.
 */
export function ground(intent: Intent, lines: readonly TreeLine[], jitter: (limit: number) => { dx: number; dy: number }): Action | undefined {
  const t = intent.target;
  if (!t) return intent.action;
  const same = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.role === t.role && l.name === t.name);
  if (same.length === 0) return undefined;
  const inContainer = same.find(({ i }) => containerOf(lines, i) === t.container);
  const { l } = inContainer ?? same[0];
  let x = l.x + t.dx;
  let y = l.y + t.dy;
  if (t.centred) {
    const j = jitter(Math.max(0, Math.min(6, Math.floor(l.w / 4), Math.floor(l.h / 4))));
    x = l.x + Math.floor(l.w / 2) + j.dx;
    y = l.y + Math.floor(l.h / 2) + j.dy;
  }
  return { ...intent.action, x: Math.round(x), y: Math.round(y) } as Action;
}

/** Elements a pointer can act on (for wrong clicks): buttons, items, menus, cells, fields. */
export function clickable(lines: readonly TreeLine[]): TreeLine[] {
  return lines.filter((l) => /button|item|menu|cell|check|tab|text|link/.test(l.role) && l.role !== "menu bar" && l.w > 4 && l.h > 4);
}
