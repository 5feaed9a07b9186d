/**
 * Builds task plans by driving the engine: every step names a widget by id, the builder looks up
 * its rect in the current layout, checks that a click at its centre hits it, and records the
 * action. No hard-coded pixels; plans are valid for any screen of at least 1280x800.
 */
import type { Action } from "@retrace-cua/core/action";
import type { MistakeSpec, SimDeskTask, SlipKind } from "@retrace-cua/core/ground-truth";
import type { DeskState } from "../types.ts";
import { center, findNode, type UiNode } from "../ui-types.ts";
import { applyAction } from "../engine.ts";
import { buildUi, hitNode } from "../ui.ts";
import { initialState, type SimDeskSetup } from "../setup.ts";
import type { Check } from "../evaluate.ts";
import type { AppId } from "../types.ts";
import { pointOfOffset } from "../apps/editor.ts";
import { bodyRect } from "../apps/geometry.ts";
import { ConfigError } from "@retrace-cua/core/errors";

export const PLAN_WIDTH = 1280;
export const PLAN_HEIGHT = 800;

/** Records plan steps and mistakes while applying them to a state. */
export class PlanBuilder {
  state: DeskState;
  readonly plan: Action[] = [];
  readonly mistakes: MistakeSpec[] = [];
  private readonly recorded: Action[];

  constructor(
    state: DeskState,
    private readonly taskId: string,
    recordInto?: Action[],
  ) {
    this.state = state;
    this.recorded = recordInto ?? this.plan;
  }

  ui(): UiNode {
    return buildUi(this.state, PLAN_WIDTH, PLAN_HEIGHT);
  }

  /** Apply and record one action; a plan step that does nothing is a bug in the task. */
  act(a: Action, allowNoop = false): this {
    const r = applyAction(this.state, a, PLAN_WIDTH, PLAN_HEIGHT);
    if (r.info.noop && !allowNoop)
      throw new ConfigError(`task ${this.taskId}: step ${this.recorded.length} ${JSON.stringify(a)} did nothing`);
    this.state = r.state;
    this.recorded.push(a);
    return this;
  }

  /** Centre of a widget, checked to be the widget a click there would hit. */
  at(id: string): { x: number; y: number } {
    const ui = this.ui();
    const n = findNode(ui, id);
    if (!n) throw new ConfigError(`task ${this.taskId}: no widget ${id} at step ${this.recorded.length}`);
    const c = center(n.rect);
    const hit = hitNode(ui, c.x, c.y);
    if (hit?.id !== id)
      throw new ConfigError(
        `task ${this.taskId}: widget ${id} is covered by ${hit?.id ?? "nothing"} at step ${this.recorded.length}`,
      );
    return c;
  }

  click(id: string): this {
    const c = this.at(id);
    return this.act({ type: "CLICK", x: c.x, y: c.y, button: "left", numClicks: 1 });
  }
  dbl(id: string): this {
    const c = this.at(id);
    return this.act({ type: "DOUBLE_CLICK", x: c.x, y: c.y });
  }
  right(id: string): this {
    const c = this.at(id);
    return this.act({ type: "RIGHT_CLICK", x: c.x, y: c.y });
  }
  moveTo(id: string): this {
    const c = this.at(id);
    return this.act({ type: "MOVE_TO", x: c.x, y: c.y });
  }
  dragTo(id: string): this {
    const c = this.at(id);
    return this.act({ type: "DRAG_TO", x: c.x, y: c.y });
  }
  type(text: string): this {
    return this.act({ type: "TYPING", text });
  }
  press(key: string): this {
    return this.act({ type: "PRESS", key });
  }
  hotkey(...keys: string[]): this {
    return this.act({ type: "HOTKEY", keys });
  }

  // Macros over common widgets.
  launch(app: AppId): this {
    return this.click(`taskbar.launch.${app}`);
  }
  task(app: AppId): this {
    return this.click(`taskbar.task.${app}`);
  }
  place(name: string): this {
    return this.click(`files.place.${name}`);
  }
  item(name: string): this {
    return this.click(`files.item.${name}`);
  }
  open(name: string): this {
    return this.dbl(`files.item.${name}`);
  }
  menu(app: AppId, menu: string, item: string): this {
    this.click(`${app}.menu.${menu}`);
    return this.click(`menu.item.${item}`);
  }
  /** Click (1-3 times) at a text offset in the open editor. */
  clickText(offset: number, clicks = 1): this {
    const w = this.state.windows.find((x) => x.id === "editor");
    if (!w || w.view.app !== "editor") throw new ConfigError(`task ${this.taskId}: no editor open`);
    const p = pointOfOffset(w.view.editor, bodyRect(w), offset);
    return this.act(
      clicks === 2
        ? { type: "DOUBLE_CLICK", x: p.x, y: p.y }
        : { type: "CLICK", x: p.x, y: p.y, button: "left", numClicks: clicks },
    );
  }
  /** Double-click the word at `needle` (`offset` characters into it) in the open editor. */
  word(needle: string, offset = 1): this {
    return this.clickText(this.find(needle) + offset, 2);
  }
  /** Offset of `needle` in the open editor's text. */
  find(needle: string): number {
    const w = this.state.windows.find((x) => x.id === "editor");
    const i = w?.view.app === "editor" ? w.view.editor.text.indexOf(needle) : -1;
    if (i < 0) throw new ConfigError(`task ${this.taskId}: "${needle}" not in the editor`);
    return i;
  }
  cell(ref: string): this {
    return this.click(`sheet.cell.${ref}`);
  }

  /** Record a mistake at the current step: `build` acts on a copy of the current state. */
  mistake(kind: SlipKind, note: string, build: (b: PlanBuilder) => void): this {
    const actions: Action[] = [];
    const fork = new PlanBuilder(structuredClone(this.state), `${this.taskId} (mistake)`, actions);
    build(fork);
    this.mistakes.push({ atStep: this.plan.length, kind, note, actions });
    return this;
  }
}

/** Declarative task definition. */
export interface TaskDef {
  id: string;
  instruction: string;
  apps: AppId[];
  tags?: string[];
  setup: SimDeskSetup;
  checks: Check[];
  build(b: PlanBuilder): void;
}

function typo(text: string): string {
  const i = Math.max(1, Math.floor(text.length / 2));
  const t = text.slice(0, i - 1) + text[i] + text[i - 1] + text.slice(i + 1);
  return t === text ? text + "x" : t;
}

/** Build a SimDeskTask: run the plan through the engine, add typo and latent mistakes. */
export function defineSimDeskTask(def: TaskDef): SimDeskTask {
  const b = new PlanBuilder(initialState(def.setup, null), def.id);
  def.build(b);
  const mistakes = [...b.mistakes];
  // A typo for every typed text of 3+ characters (newlines kept so Enter still happens).
  b.plan.forEach((a, i) => {
    if (a.type !== "TYPING") return;
    const body = a.text.replace(/\n$/, "");
    if (body.length < 3 || body.includes("\n")) return;
    mistakes.push({
      atStep: i,
      kind: "typo",
      note: `typed ${JSON.stringify(typo(body))} instead of ${JSON.stringify(body)}`,
      actions: [{ type: "TYPING", text: typo(body) + a.text.slice(body.length) }],
    });
  });
  // A latent slip that every task can suffer: a system shortcut that silently toggles a setting.
  if (!mistakes.some((m) => m.kind === "latent")) {
    const at = Math.min(2, b.plan.length - 1);
    mistakes.push({
      atStep: at,
      kind: "latent",
      note: "pressed Ctrl+Alt+D, silently toggling Do not disturb",
      actions: [{ type: "HOTKEY", keys: ["ctrl", "alt", "d"] }, b.plan[at]],
    });
  }
  mistakes.sort((x, y) => x.atStep - y.atStep);
  const n = b.plan.length;
  return {
    id: def.id,
    env: "simdesk",
    instruction: def.instruction,
    apps: def.apps,
    tags: [...(def.tags ?? []), ...(def.apps.length > 1 ? ["cross-app"] : [])],
    setup: def.setup,
    evaluator: { checks: def.checks },
    plan: b.plan,
    mistakes,
    horizon: n <= 8 ? "short" : n <= 16 ? "medium" : "long",
  };
}
