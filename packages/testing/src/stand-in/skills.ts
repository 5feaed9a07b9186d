/**
 * The stand-in's skill book: what it knows about SimDesk tasks before any request arrives, the way
 * a model knows a task it has seen demonstrated. Per task: the instruction, the reference plan,
 * the screens a demonstration of the plan passed through (linearized accessibility trees at
 * 1280x800), the element each pointer step aims at, and the task's typical mistakes.
 *
 * It is data (skills.json), recorded once from the catalogue by experiments/stand-in/skill-book.ts;
 * nothing here can compute an environment's state. What the stand-in knows about an episode comes
 * from the request alone.
 */
import { readFileSync } from "node:fs";
import type { Action } from "@retrace-cua/core/action";

/** The element a pointer step of the plan aims at, on the demonstration's screen before it. */
export interface SkillIntent {
  role: string;
  name: string;
  /** The window, dialog, menu or tool bar it sits in (`role:name`), or "desktop". */
  container: string;
  /** Where in the element the demonstration clicked. */
  dx: number;
  dy: number;
  /** True when the demonstration clicked the element's centre. */
  centred: boolean;
  /** The element's box on the demonstration's screen: [x, y, w, h]. */
  box: [number, number, number, number];
}

/** One task as the stand-in knows it. */
export interface SkillTask {
  id: string;
  instruction: string;
  plan: Action[];
  /** intents[k]: the element plan[k] aims at (null for keyboard steps). */
  intents: Array<SkillIntent | null>;
  /** screens[k]: the demonstration's screen after k plan steps, as indices into {@link SkillBook.lines}. */
  screens: number[][];
  /** Typical mistakes at a plan step (what a careless agent does instead). */
  mistakes: Array<{ atStep: number; kind: string; actions: Action[] }>;
}

/** The whole book. */
export interface SkillBook {
  version: 1;
  /** Screen size of the demonstrations. */
  width: number;
  height: number;
  /** Every distinct tree line (header included), shared by all screens. */
  lines: string[];
  tasks: SkillTask[];
}

let loaded: SkillBook | undefined;

/** The skill book shipped with the stand-in (skills.json next to this file). */
export function defaultSkillBook(): SkillBook {
  loaded ??= JSON.parse(readFileSync(new URL("./skills.json", import.meta.url), "utf8")) as SkillBook;
  return loaded;
}
