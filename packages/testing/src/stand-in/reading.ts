/**
 * How the stand-in reads an agent's history from a request, as a model would: the action line of
 * each step, the screen shown before a step (when the request shows one), and the current screen.
 * From those and its skill book it estimates where along the task's plan each step was taken, and
 * which steps left the plan. It sees nothing the request does not show: a change no shown screen
 * reveals (a silent toggle) is visible to it only as an action that is not the plan's.
 */
import type { Action } from "@retrace-cua/core/action";
import { parseActionText } from "./actions-text.ts";
import { parseTree, stepLines, type TreeLine } from "./request.ts";
import { isPlanStep, matchingSteps, type TaskKnowledge } from "./world.ts";

/** One step of a history as a request shows it. */
export interface ShownStep {
  step: number;
  actions: Action[];
  /** The screen before the step, when shown. */
  screen?: string;
}

/** The steps a text lists (`Step i action: ...`), with the screens shown before them. */
export function shownSteps(text: string): ShownStep[] {
  const screens = new Map<number, string>();
  for (const m of text.matchAll(/(?:Screen|Screenshot) before step (\d+):\nAccessibility tree:\n/g))
    screens.set(Number(m[1]), treeAt(text, m.index! + m[0].length - "Accessibility tree:\n".length));
  return [...stepLines(text, "action")]
    .sort((a, b) => a[0] - b[0])
    .map(([step, line]) => ({
      step,
      actions: parseActionText(line),
      ...(screens.has(step) && { screen: screens.get(step)! }),
    }));
}

/** The tree starting at `at` ("Accessibility tree:\n..."), its header line included. */
export function treeAt(text: string, at: number): string {
  const lines = text.slice(at + "Accessibility tree:\n".length).split("\n");
  const kept: string[] = [];
  for (const [n, line] of lines.entries()) {
    if (n > 0 && line.split("\t").length < 6) break;
    kept.push(line);
  }
  return kept.join("\n");
}

/** What the stand-in makes of a history. */
export interface HistoryReading {
  /** before[i]: estimated plan index before step i (-1: off the plan); before[t] = now. */
  before: number[];
  /**
   * Steps whose actions include one that is not the plan's, though the screens after them stay on the plan (a silent
   * change).
   */
  suspicious: Set<number>;
  /** Steps that ended the task (DONE) before the plan was complete. */
  prematureDone: Set<number>;
}

/**
 * Read a history: a shown screen that is a demonstration screen fixes the position (the match
 * nearest to the running estimate); a shown screen that is not puts the step off the plan;
 * between shown screens, an action that is the plan's next step advances the estimate, any other
 * leaves the plan (WAIT keeps it).
 */
export function readHistory(
  k: TaskKnowledge,
  steps: readonly ShownStep[],
  current: string | undefined,
  size?: { width: number; height: number },
): HistoryReading {
  const n = k.task.plan.length;
  const before: number[] = [];
  const suspicious = new Set<number>();
  const prematureDone = new Set<number>();
  let pos = 0;
  const fix = (screen: string | undefined, estimate: number): number => {
    if (screen === undefined) return estimate;
    const m = matchingSteps(k, screen);
    if (!m.length) return -1;
    const ref = estimate >= 0 ? estimate : 0;
    return m.reduce((a, b) => (Math.abs(b - ref) < Math.abs(a - ref) ? b : a));
  };
  steps.forEach((s, i) => {
    pos = fix(s.screen, pos);
    before[i] = pos;
    if (pos < 0) return;
    const lines: TreeLine[] | undefined = s.screen ? parseTree(s.screen) : undefined;
    if (s.actions.some((a) => a.type === "DONE")) {
      if (pos < n) prematureDone.add(i);
      return;
    }
    const planned = pos < n && s.actions.some((a) => isPlanStep(k, pos, a, lines, size));
    const others = s.actions.filter((a) => a.type !== "WAIT" && !(pos < n && isPlanStep(k, pos, a, lines, size)));
    if (planned) {
      pos++;
      if (others.length) suspicious.add(i);
    } else if (others.length) pos = -1;
  });
  before[steps.length] = fix(current, pos);
  // A later shown screen on the plan clears an action-only estimate of being off it.
  for (let i = steps.length - 1; i >= 0; i--)
    if (before[i] < 0 && steps[i].screen === undefined && before[i + 1] >= 0)
      before[i] = Math.max(0, before[i + 1] - 1);
  // A step whose extra action is followed by an off-plan screen is an error, not a silent change.
  for (const i of [...suspicious]) if (before[i + 1] < 0) suspicious.delete(i);
  return { before, suspicious, prematureDone };
}

/**
 * The last step (index into the shown steps) taken from a position on the plan before the history left it for good, or
 * -1 when it never left.
 */
export function leftAt(r: HistoryReading): number {
  const t = r.before.length - 1;
  if (r.before[t] >= 0) return -1;
  let good = t;
  while (good > 0 && r.before[good] < 0) good--;
  return good;
}
