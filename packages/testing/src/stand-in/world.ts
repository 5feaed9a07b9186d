/**
 * The stand-in's picture of a task, from its skill book (skills.ts) alone: which task a request
 * is about (its instruction), where along the demonstration a screen it is shown sits, which plan
 * step an action it reads was, and where an intended element is on a screen it is shown. No
 * environment state, engine or ground truth: only the book and the request.
 */
import type { Action } from "@retrace-cua/core/action";
import { containerOf, parseTree, type TreeLine } from "./request.ts";
import type { SkillBook, SkillIntent, SkillTask } from "./skills.ts";

/** A plan step as an intention: the action, and for pointer actions the element it aims at. */
export interface Intent {
  action: Action;
  target?: SkillIntent;
}

/** The stand-in's picture of one task. */
export interface TaskKnowledge {
  task: SkillTask;
  /** Demonstration screen after k plan steps (linearized tree text, 1280x800). */
  trees: string[];
  intents: Intent[];
  /** Size the demonstration was recorded at. */
  width: number;
  height: number;
}

const cache = new WeakMap<SkillTask, TaskKnowledge>();

/** The book's task whose instruction the text quotes (the longest such), if any. */
export function findTask(text: string, book: SkillBook): SkillTask | undefined {
  let best: SkillTask | undefined;
  for (const t of book.tasks)
    if (text.includes(t.instruction) && (!best || t.instruction.length > best.instruction.length)) best = t;
  return best;
}

/** The knowledge of a task (memoised). */
export function knowledgeOf(task: SkillTask, book: SkillBook): TaskKnowledge {
  const hit = cache.get(task);
  if (hit) return hit;
  const k: TaskKnowledge = {
    task,
    trees: task.screens.map((s) => s.map((i) => book.lines[i]).join("\n")),
    intents: task.plan.map((action, i) => ({ action, ...(task.intents[i] && { target: task.intents[i]! }) })),
    width: book.width,
    height: book.height,
  };
  cache.set(task, k);
  return k;
}

/** A tree without positions and sizes (screen sizes differ; a context menu opens where the pointer was). */
export function layoutFree(tree: string): string {
  return tree
    .split("\n")
    .map((l) => l.split("\t").slice(0, 4).join("\t"))
    .join("\n");
}

/** Plan indices whose demonstration screen shows exactly this tree, else the same elements anywhere. */
export function matchingSteps(k: TaskKnowledge, tree: string): number[] {
  const out: number[] = [];
  k.trees.forEach((t, i) => t === tree && out.push(i));
  if (out.length) return out;
  const loose = layoutFree(tree);
  k.trees.forEach((t, i) => layoutFree(t) === loose && out.push(i));
  return out;
}

/** The plan index whose demonstration screen looks most like this tree (shared lines), and how much. */
export function nearestStep(k: TaskKnowledge, lines: readonly TreeLine[]): { step: number; similarity: number } {
  const mine = new Set(lines.map((l) => l.raw.split("\t").slice(0, 4).join("\t")));
  let best = { step: 0, similarity: -1 };
  k.trees.forEach((t, i) => {
    const theirs = new Set(
      t
        .split("\n")
        .slice(1)
        .map((l) => l.split("\t").slice(0, 4).join("\t")),
    );
    let shared = 0;
    for (const l of theirs) if (mine.has(l)) shared++;
    const sim = shared / Math.max(1, new Set([...mine, ...theirs]).size);
    if (sim > best.similarity) best = { step: i, similarity: sim };
  });
  return best;
}

/** The element a point lands on in a shown tree: the last (topmost) line whose box holds it, skipping containers. */
export function elementAt(
  lines: readonly TreeLine[],
  x: number,
  y: number,
): { line: TreeLine; index: number } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i];
    if (
      l.role === "desktop frame" ||
      l.role === "window" ||
      l.role === "list" ||
      l.role === "menu bar" ||
      l.role === "tool bar"
    )
      continue;
    if (x >= l.x && x < l.x + l.w && y >= l.y && y < l.y + l.h) return { line: l, index: i };
  }
  return undefined;
}

/**
 * Whether an action read in a request is plan step `k`: keyboard steps must be equal; a pointer
 * step must be the same kind of action on the same element - found on the screen the request
 * showed for that step when it showed one, else by where the element was in the demonstration
 * (scaled to the request's screen).
 */
export function isPlanStep(
  k: TaskKnowledge,
  step: number,
  a: Action,
  screen?: readonly TreeLine[],
  size?: { width: number; height: number },
): boolean {
  const intent = k.intents[step];
  if (!intent) return false;
  const p = intent.action;
  if (p.type !== a.type) return false;
  if (!intent.target || !("x" in a) || a.x === undefined || a.y === undefined)
    return JSON.stringify(stripPointer(p)) === JSON.stringify(stripPointer(a));
  const t = intent.target;
  if (screen?.length) {
    const hit = elementAt(screen, a.x, a.y);
    return hit !== undefined && hit.line.role === t.role && hit.line.name === t.name;
  }
  const sx = (size?.width ?? k.width) / k.width;
  const sy = (size?.height ?? k.height) / k.height;
  const [x, y, w, h] = t.box;
  return a.x >= x * sx && a.x < (x + w) * sx && a.y >= y * sy && a.y < (y + h) * sy;
}

function stripPointer(a: Action): Action {
  if ("x" in a && a.x !== undefined) return { ...a, x: 0, y: 0 } as Action;
  return a;
}

/**
 * Where an intention lands on the screen described by `lines`: the same element (role and name,
 * preferably in the same window), at the same offset inside it; `jitter` moves a centred click
 * by up to that many pixels (a model does not hit the exact centre). Undefined when the element
 * is not on screen.
 */
export function ground(
  intent: Intent,
  lines: readonly TreeLine[],
  jitter: (limit: number) => { dx: number; dy: number },
): Action | undefined {
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
  return lines.filter(
    (l) => /button|item|menu|cell|check|tab|text|link/.test(l.role) && l.role !== "menu bar" && l.w > 4 && l.h > 4,
  );
}

/** Parse a demonstration screen. */
export function demoScreen(k: TaskKnowledge, step: number): TreeLine[] {
  return parseTree(k.trees[Math.max(0, Math.min(step, k.trees.length - 1))]);
}
