/**
 * The simulated forward policy: follows a SimDesk task's reference plan, slips now and then, and
 * mostly carries on as if nothing happened (a state-tracking failure), with a small chance to
 * notice a slip on the next step and undo it (implicit recovery).
 *
 * Its plan position lives in its own context: every decision stores `{ plan, next }` in the
 * history entry's memo, and the next decision reads it back from the last entry. Truncating the
 * history to entries 0..k-1 therefore makes it continue from where entry k-1 said (plan step k
 * when there were no slips). Every draw comes from (seed, task id, input.tick), never from a
 * counter, so a restarted process gives the same decisions and a retry from a restored state
 * (a later tick) is a fresh draw.
 */
import { formatAction, type Action } from "@retrace-cua/core/action";
import { ConfigError } from "@retrace-cua/core/errors";
import type { AxNode } from "@retrace-cua/core/observation";
import type { ForwardPolicy, HistoryEntry, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import { createRng } from "@retrace-cua/core/rng";
import type { SimDeskTask, SlipKind } from "@retrace-cua/core/ground-truth";
import {
  DEFAULT_SLIP_MIX,
  SimForwardOptionsSchema,
  formatParams,
  parseSimOptions,
  requireTask,
  simulated,
  type Simulated,
  type SlipMix,
} from "./options.ts";
import { actionPoint, drawSlip } from "./slips.ts";

/** Options of {@link createSimForwardPolicy}. */
export interface SimForwardPolicyOptions {
  /** The SimDesk task whose plan the policy follows. */
  task: SimDeskTask;
  /** Seed of every draw (combined with the task id and the episode tick). @default 0 */
  seed?: number | string;
  /** Probability of a slip at each plan step. @default 0.1 */
  slipRate?: number;
  /** Relative weights of the slip kinds; kinds that do not apply at a step are left out. @default DEFAULT_SLIP_MIX */
  slipMix?: SlipMix;
  /** Probability of noticing a visible slip on the next step and undoing it (implicit recovery). @default 0.05 */
  noticeRate?: number;
}

/** What the policy writes into each history entry's memo. */
export type SimForwardMemo = {
  /** The plan index this step was meant to carry out. */
  plan: number;
  /** The plan index the policy believes comes next. */
  next: number;
  /** What the step was. */
  kind: "plan" | "slip" | "notice" | "done";
  /** The slip kind, for `kind: "slip"`. */
  slip?: SlipKind;
};

/** A seeded simulated forward policy; `label` describes its configuration for reports. */
export type SimForwardPolicy = Simulated<ForwardPolicy>;

/** Slips the policy can notice on the next step (latent ones are invisible, a DONE ends the episode). */
const NOTICEABLE: ReadonlySet<SlipKind> = new Set<SlipKind>(["misclick", "typo", "wrong-item", "skip"]);
/** Roles of things a slip can open that escape closes: dialogs, and menus shown with their items. */
const OVERLAY_ROLE = /^(dialog|alert|alert dialog)$/i;
const MENU_ROLE = /^(menu|popup menu)$/i;

/** Read a memo written by this policy, or null. */
export function readForwardMemo(entry: HistoryEntry | undefined): SimForwardMemo | null {
  const m = entry?.memo;
  if (!m || typeof m !== "object" || Array.isArray(m)) return null;
  const { plan, next, kind } = m as Record<string, unknown>;
  if (typeof plan !== "number" || typeof next !== "number" || typeof kind !== "string") return null;
  return m as SimForwardMemo;
}

/**
 * The plan position a history implies: the `next` of the last entry carrying this policy's memo,
 * or (for a history without memos) its length.
 */
export function planPositionOf(history: readonly HistoryEntry[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const memo = readForwardMemo(history[i]);
    if (memo) return memo.next;
  }
  return history.length;
}

/** The name of the deepest named widget under a pointer action, for response text. */
export function widgetNameAt(root: AxNode | undefined, a: Action): string | null {
  const p = actionPoint(a);
  if (!root || !p) return null;
  let found: string | null = null;
  const walk = (n: AxNode): void => {
    if (!n.bounds) return n.children?.forEach(walk);
    const [x, y, w, h] = n.bounds;
    if (p.x < x || p.y < y || p.x >= x + w || p.y >= y + h) return;
    if (n.name) found = `${n.role} "${n.name}"`;
    n.children?.forEach(walk);
  };
  walk(root);
  return found;
}

/** `CLICK(600,400) on button "Save"` when the screen says what is there. */
function describeActions(actions: Action[], root: AxNode | undefined): string {
  return actions
    .map((a) => {
      const w = widgetNameAt(root, a);
      return w ? `${formatAction(a)} on ${w}` : formatAction(a);
    })
    .join(" ");
}

/** Whether a menu or dialog is open (escape would close it). */
export function hasOverlay(node: AxNode | undefined): boolean {
  if (!node) return false;
  if (OVERLAY_ROLE.test(node.role)) return true;
  // A menu-bar label is a childless "menu"; an open menu lists its items as children.
  if (MENU_ROLE.test(node.role) && (node.children?.length ?? 0) > 0) return true;
  return (node.children ?? []).some(hasOverlay);
}

/** Create the simulated forward policy for one SimDesk task. */
export function createSimForwardPolicy(options: SimForwardPolicyOptions): SimForwardPolicy {
  const factory = "createSimForwardPolicy";
  const task = requireTask(factory, options?.task);
  const { seed, slipRate, slipMix, noticeRate } = parseSimOptions(factory, SimForwardOptionsSchema, {
    ...options,
    task: undefined,
  });
  const mix = slipMix ?? DEFAULT_SLIP_MIX;
  const label = `sim-forward(${formatParams({ seed, slipRate, noticeRate, slipMix: slipMix ?? undefined })})`;

  const decide = (input: PolicyInput): PolicyDecision => {
    if (input.task.id !== task.id) {
      throw new ConfigError(
        `${factory}: policy was created for task "${task.id}" but asked about "${input.task.id}"; create one policy per task`,
        { field: "task" },
      );
    }
    const rng = createRng(seed, task.id, "sim-forward", input.tick);
    const k = planPositionOf(input.history);
    const last = input.history[input.history.length - 1];
    const lastMemo = readForwardMemo(last);

    // Implicit recovery: the step right after a visible slip may notice it.
    if (
      lastMemo?.kind === "slip" &&
      lastMemo.slip &&
      NOTICEABLE.has(lastMemo.slip) &&
      rng.fork("notice").chance(noticeRate)
    ) {
      return notice(lastMemo, last!, input);
    }
    if (k >= task.plan.length || task.plan[k].type === "DONE") {
      return {
        actions: [{ type: "DONE" }],
        response: `plan complete (step ${k}): DONE`,
        memo: { plan: k, next: task.plan.length, kind: "done" },
      };
    }
    if (rng.fork("slip").chance(slipRate)) {
      const slip = drawSlip(mix, task, k, input.observation, rng.fork("slip-kind"));
      if (slip) {
        return {
          actions: slip.actions,
          response: `plan step ${k}: slip(${slip.kind}) ${slip.detail}: ${describeActions(slip.actions, input.observation.axTree)}`,
          memo: { plan: k, next: slip.next, kind: "slip", slip: slip.kind },
        };
      }
    }
    return {
      actions: [task.plan[k]],
      response: `plan step ${k}: ${describeActions([task.plan[k]], input.observation.axTree)}`,
      memo: { plan: k, next: k + 1, kind: "plan" },
    };
  };

  const notice = (memo: SimForwardMemo, last: HistoryEntry, input: PolicyInput): PolicyDecision => {
    const k = memo.plan;
    let actions: Action[];
    let next: number;
    let what: string;
    if (memo.slip === "skip") {
      actions = [task.plan[k]];
      next = memo.next;
      what = `do skipped plan step ${k}`;
    } else if (last.observation.screenshot === input.observation.screenshot) {
      actions = [task.plan[k]];
      next = k + 1;
      what = `slip had no visible effect, redo plan step ${k}`;
    } else if (hasOverlay(input.observation.axTree)) {
      actions = [{ type: "PRESS", key: "escape" }];
      next = k;
      what = "close what the slip opened";
    } else {
      actions = [{ type: "HOTKEY", keys: ["ctrl", "z"] }];
      next = k;
      what = "undo the slip";
    }
    return {
      actions,
      response: `noticed slip(${memo.slip}) at plan step ${k}: ${what}: ${actions.map(formatAction).join(" ")}`,
      memo: { plan: k, next, kind: "notice" },
    };
  };

  return simulated("sim-forward", label, { propose: async (input: PolicyInput) => decide(input) });
}
