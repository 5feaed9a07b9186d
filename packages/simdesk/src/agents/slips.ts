/**
 * How the simulated forward policy turns one plan step into a slip. Pure functions of the plan
 * step, the observation and an Rng, so they can be tested on their own.
 */
import type { Action } from "@retrace-cua/core/action";
import type { AxNode, Observation } from "@retrace-cua/core/observation";
import type { Rng } from "@retrace-cua/core/rng";
import { SLIP_KINDS, type MistakeSpec, type SimDeskTask, type SlipKind } from "@retrace-cua/core/ground-truth";

/** A slip the policy makes instead of plan step `planStep`. */
export interface Slip {
  kind: SlipKind;
  actions: Action[];
  /** The plan index the policy believes comes next (state-tracking failure: usually planStep + 1). */
  next: number;
  /** What happened, for the response text. */
  detail: string;
}

/** Roles that name clickable widgets in an accessibility tree. */
const CLICKABLE_ROLE =
  /^(button|push button|toggle button|menu ?item|list ?item|tree ?item|link|check ?box|radio ?button|tab|cell|row header|column header|icon|entry|text ?field|combo ?box|option|switch|slider)$/i;
/** Containers, bars and static text: never a "wrong item" on their own. */
const NOT_CLICKABLE_ROLE =
  /^(desktop|desktop frame|screen|application|window|frame|panel|group|root|task ?bar|tool ?bar|title ?bar|status ?bar|menu ?bar|menu|tab ?list|list|tree|table|grid|text|label|static.*|heading|header|image|separator|dialog|alert)$/i;

/** The point a pointer action targets, when it has one. */
export function actionPoint(a: Action): { x: number; y: number } | null {
  if ("x" in a && "y" in a && typeof a.x === "number" && typeof a.y === "number") return { x: a.x, y: a.y };
  return null;
}

/** Clickable widgets (with bounds) of an accessibility tree, depth first. */
export function clickableNodes(root: AxNode | undefined): AxNode[] {
  const out: AxNode[] = [];
  const walk = (n: AxNode): void => {
    const leafish = !n.children || n.children.length === 0;
    if (n.bounds && n.bounds[2] > 0 && n.bounds[3] > 0 && !(n.states ?? []).includes("disabled")) {
      // A leaf "menu" is a menu-bar label (it opens its menu); an open menu has its items as children.
      if (CLICKABLE_ROLE.test(n.role) || (leafish && (/^menu$/i.test(n.role) || !NOT_CLICKABLE_ROLE.test(n.role))))
        out.push(n);
    }
    for (const c of n.children ?? []) walk(c);
  };
  if (root) walk(root);
  return out;
}

function contains(n: AxNode, p: { x: number; y: number }): boolean {
  const [x, y, w, h] = n.bounds!;
  return p.x >= x && p.x < x + w && p.y >= y && p.y < y + h;
}

/** The same pointer action moved 12-48 px in a random direction, kept on screen. */
export function misclick(a: Action, obs: Pick<Observation, "width" | "height">, rng: Rng): Action | null {
  const p = actionPoint(a);
  if (!p) return null;
  const angle = rng.next() * 2 * Math.PI;
  const dist = rng.int(12, 48);
  const x = Math.min(obs.width - 1, Math.max(0, Math.round(p.x + dist * Math.cos(angle))));
  const y = Math.min(obs.height - 1, Math.max(0, Math.round(p.y + dist * Math.sin(angle))));
  return { ...a, x, y } as Action;
}

const NEIGHBOURS = "qwertyuiopasdfghjklzxcvbnm";

/** A TYPING action with one character dropped, doubled, swapped or replaced; never equal to the original. */
export function typo(a: Action, rng: Rng): Action | null {
  if (a.type !== "TYPING" || a.text.length === 0) return null;
  const t = a.text;
  const i = rng.int(0, t.length - 1);
  const op = t.length === 1 ? 3 : rng.int(0, 3);
  let out: string;
  if (op === 0) out = t.slice(0, i) + t.slice(i + 1);
  else if (op === 1) out = t.slice(0, i + 1) + t[i] + t.slice(i + 1);
  else if (op === 2 && i + 1 < t.length && t[i] !== t[i + 1]) out = t.slice(0, i) + t[i + 1] + t[i] + t.slice(i + 2);
  else {
    let c = rng.pick([...NEIGHBOURS]);
    if (c === t[i].toLowerCase()) c = c === "x" ? "z" : "x";
    out = t.slice(0, i) + c + t.slice(i + 1);
  }
  if (out === t) out = t + t[t.length - 1];
  return { type: "TYPING", text: out };
}

/** A click on a different clickable widget than the one the plan step targets. */
export function wrongItem(a: Action, obs: Observation, rng: Rng): Action | null {
  const p = actionPoint(a);
  const candidates = clickableNodes(obs.axTree).filter((n) => !p || !contains(n, p));
  if (candidates.length === 0) return null;
  const [x, y, w, h] = rng.pick(candidates).bounds!;
  return { type: "CLICK", x: Math.round(x + w / 2), y: Math.round(y + h / 2), button: "left", numClicks: 1 };
}

/** The task's own mistake of this kind at this plan step, if any. */
export function taskMistake(task: SimDeskTask, planStep: number, kind: SlipKind): MistakeSpec | undefined {
  return (task.mistakes ?? []).find((m) => m.atStep === planStep && m.kind === kind && m.actions.length > 0);
}

/**
 * Build a slip of `kind` at plan step `k`, or null when that kind does not apply here
 * (no coordinates to misclick, no text to mistype, no latent mistake for this step...).
 */
export function makeSlip(kind: SlipKind, task: SimDeskTask, k: number, obs: Observation, rng: Rng): Slip | null {
  const step = task.plan[k];
  const spec = taskMistake(task, k, kind);
  if (kind === "premature-done")
    return k < task.plan.length - 1
      ? { kind, actions: [{ type: "DONE" }], next: task.plan.length, detail: "declared DONE early" }
      : null;
  if (kind === "skip") {
    if (k + 1 >= task.plan.length) return null;
    return { kind, actions: [task.plan[k + 1]], next: k + 2, detail: `skipped plan step ${k}` };
  }
  if (spec) return { kind, actions: spec.actions, next: k + 1, detail: spec.note };
  if (kind === "latent") return null;
  const built =
    kind === "misclick" ? misclick(step, obs, rng) : kind === "typo" ? typo(step, rng) : wrongItem(step, obs, rng);
  return built ? { kind, actions: [built], next: k + 1, detail: `${kind} instead of plan step ${k}` } : null;
}

/** Draw a kind by weight from those that apply (non-null slips); null when none applies. */
export function drawSlip(
  mix: Readonly<Partial<Record<SlipKind, number>>>,
  task: SimDeskTask,
  k: number,
  obs: Observation,
  rng: Rng,
): Slip | null {
  const options: Array<{ slip: Slip; weight: number }> = [];
  for (const kind of SLIP_KINDS) {
    const weight = mix[kind];
    if (!weight || weight <= 0) continue;
    const slip = makeSlip(kind, task, k, obs, rng.fork(kind));
    if (slip) options.push({ slip, weight });
  }
  if (options.length === 0) return null;
  let r = rng.next() * options.reduce((s, o) => s + o.weight, 0);
  for (const o of options) {
    r -= o.weight;
    if (r < 0) return o.slip;
  }
  return options[options.length - 1].slip;
}
