/**
 * Builds the stand-in's skill book (packages/testing/src/stand-in/skills.json): what a model that
 * has seen one demonstration of each SimDesk task knows about it, recorded once from the
 * catalogue. Per task: the instruction, the reference plan (its actions), the screens the
 * demonstration passed through (linearized accessibility trees, as an agent is shown them), the
 * element each pointer step aims at, and the task's typical mistakes (as actions).
 *
 * It is the only place SimDesk's engine touches the stand-in, and it runs here, at build time:
 * the stand-in itself imports none of SimDesk's state, engine, ground truth or restore planner
 * (test/adapters/testing/stand-in/knowledge.test.ts checks its module graph), so at run time it
 * knows nothing of an episode beyond what a request shows.
 *
 *   npx tsx --conditions=retrace-dev experiments/stand-in/skill-book.ts   # rewrite skills.json after the catalogue changes
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Action } from "@retrace-cua/core/action";
import type { DeskState } from "@retrace-cua/simdesk/types";
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { SIMDESK_TASKS } from "@retrace-cua/simdesk/tasks/index";
import { applyAction } from "@retrace-cua/simdesk/engine";
import { initialState } from "@retrace-cua/simdesk/setup";
import { buildUi, hitNode } from "@retrace-cua/simdesk/ui";
import { toAxTree } from "@retrace-cua/simdesk/ax";
import { linearizeAxTree } from "@retrace-cua/models/policies/observation";
import { containerOf, parseTree } from "@retrace-cua/testing/stand-in/request";
import type { SkillBook, SkillIntent, SkillTask } from "@retrace-cua/testing/stand-in/skills";

/** Where the skill book lives. */
export const SKILL_BOOK_FILE = fileURLToPath(
  new URL("../../packages/testing/src/stand-in/skills.json", import.meta.url),
);

/** The screen size the demonstrations were recorded at (SimDesk's default). */
const WIDTH = 1280;
const HEIGHT = 800;

function treeOf(s: DeskState): string {
  return linearizeAxTree(toAxTree(buildUi(s, WIDTH, HEIGHT)));
}

function intentOf(s: DeskState, a: Action): SkillIntent | null {
  if (!("x" in a) || a.x === undefined || a.y === undefined || a.type === "SCROLL") return null;
  const node = hitNode(buildUi(s, WIDTH, HEIGHT), a.x, a.y);
  if (!node) return null;
  const lines = parseTree(treeOf(s));
  const idx = lines.findIndex(
    (l) => l.role === node.role && l.name === node.name && l.x === node.rect[0] && l.y === node.rect[1],
  );
  const [x, y, w, h] = node.rect;
  const dx = a.x - x;
  const dy = a.y - y;
  const centred = Math.abs(dx - w / 2) <= 1 && Math.abs(dy - h / 2) <= 1;
  return {
    role: node.role,
    name: node.name,
    container: idx >= 0 ? containerOf(lines, idx) : "desktop",
    dx,
    dy,
    centred,
    box: [x, y, w, h],
  };
}

/** The skill book of a catalogue (deterministic: same catalogue, same bytes). */
export function buildSkillBook(tasks: readonly SimDeskTask[] = SIMDESK_TASKS): SkillBook {
  const table = new Map<string, number>();
  const lines: string[] = [];
  const ref = (tree: string) =>
    tree.split("\n").map((l) => {
      let i = table.get(l);
      if (i === undefined) {
        i = lines.length;
        lines.push(l);
        table.set(l, i);
      }
      return i;
    });
  const out: SkillTask[] = tasks.map((task) => {
    let s = initialState(task.setup, null);
    const screens = [ref(treeOf(s))];
    const intents: Array<SkillIntent | null> = [];
    for (const a of task.plan) {
      intents.push(intentOf(s, a));
      s = applyAction(s, a, WIDTH, HEIGHT).state;
      screens.push(ref(treeOf(s)));
    }
    return {
      id: task.id,
      instruction: task.instruction,
      plan: task.plan,
      intents,
      screens,
      mistakes: task.mistakes.map((m) => ({ atStep: m.atStep, kind: m.kind, actions: m.actions })),
    };
  });
  return { version: 1, width: WIDTH, height: HEIGHT, lines, tasks: out };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SKILL_BOOK_FILE, JSON.stringify(buildSkillBook()) + "\n");
  process.stdout.write(`wrote ${SKILL_BOOK_FILE}\n`);
}
