/**
 * Destructive moves of a weak simulated recoverer: the ways the paper (Sections 6.2/6.3) sees weak
 * recovery actively derail a trajectory, modelled on SimDesk from the current observation and
 * well-known shortcuts only (never from SimDesk internals):
 * - over-undo: ctrl+z pressed several times, past the target, undoing good progress;
 * - close without saving: ctrl+w on the focused window, or "Don't Save" when an unsaved-changes
 *   dialog is on screen;
 * - select-all then delete: clears the focused document or field, or sends every selected file
 *   to the Trash;
 * - flipping a switch / checkbox / radio button in view (changing a setting the task may check).
 * These are SIMULATED failure modes; draws come from the caller's seeded rng.
 */
import type { Action } from "@retrace-cua/core/action";
import type { AxNode, Observation } from "@retrace-cua/core/observation";
import type { Rng } from "@retrace-cua/core/rng";

/** Kinds of destructive move. */
export const HARM_KINDS = ["over-undo", "close-unsaved", "select-all-delete", "flip-setting"] as const;
export type HarmKind = (typeof HARM_KINDS)[number];

/** A destructive move: its actions and a description for the response text. */
export interface HarmfulMove {
  kind: HarmKind;
  actions: Action[];
  what: string;
}

const TOGGLE_ROLE = /^(switch|check ?box|radio button|toggle button)$/i;
const DISCARD_NAME = /^(don'?t save|discard|close without saving)$/i;

function find(node: AxNode | undefined, test: (n: AxNode) => boolean, out: AxNode[] = []): AxNode[] {
  if (!node) return out;
  if (test(node)) out.push(node);
  for (const c of node.children ?? []) find(c, test, out);
  return out;
}

function clickCentre(n: AxNode): Action | null {
  if (!n.bounds) return null;
  const [x, y, w, h] = n.bounds;
  return { type: "CLICK", x: Math.round(x + w / 2), y: Math.round(y + h / 2), button: "left", numClicks: 1 };
}

/**
 * One destructive move for the current observation. An unsaved-changes dialog on screen is
 * answered "Don't Save" (the move a confused agent makes to get rid of it); otherwise a move is
 * drawn among those that apply (flip-setting only when a toggle is in view).
 */
export function pickHarmfulMove(observation: Observation, rng: Rng): HarmfulMove {
  const discard = find(observation.axTree, (n) => /button/i.test(n.role) && DISCARD_NAME.test(n.name.trim()));
  const discardClick = discard.length ? clickCentre(discard[0]) : null;
  if (discardClick)
    return { kind: "close-unsaved", actions: [discardClick], what: `dismiss the prompt with "${discard[0].name}"` };
  const toggles = find(
    observation.axTree,
    (n) => TOGGLE_ROLE.test(n.role) && !!n.bounds && !(n.states ?? []).includes("disabled"),
  );
  const kinds: HarmKind[] = [
    "over-undo",
    "over-undo",
    "close-unsaved",
    "select-all-delete",
    ...(toggles.length ? (["flip-setting", "flip-setting"] as const) : []),
  ];
  const kind = rng.pick(kinds);
  switch (kind) {
    case "over-undo": {
      const n = rng.int(2, 4);
      return {
        kind,
        actions: Array.from({ length: n }, () => ({ type: "HOTKEY", keys: ["ctrl", "z"] }) as Action),
        what: `undo ${n} times`,
      };
    }
    case "close-unsaved":
      return { kind, actions: [{ type: "HOTKEY", keys: ["ctrl", "w"] }], what: "close the window to start over" };
    case "select-all-delete":
      return {
        kind,
        actions: [
          { type: "HOTKEY", keys: ["ctrl", "a"] },
          { type: "PRESS", key: "delete" },
        ],
        what: "select all and delete the stray content",
      };
    case "flip-setting": {
      const t = rng.pick(toggles);
      return { kind, actions: [clickCentre(t)!], what: `toggle ${t.role} "${t.name}" back` };
    }
  }
}
