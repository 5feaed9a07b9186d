/**
 * Option `onStuck` (packages/core/src/runtime/stuck.ts `stuckRun`): once the recovery attempts are
 * spent, a forward agent that takes the same actions 3 times in a row on a screen they do not change
 * is stuck. "continue" (the default, the paper's) lets the episode run to the step cap; "stop" ends
 * it after the third such step with stop reason "stuck", the final state still scored.
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../../packages/core/src/action.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { ForwardPolicy, HistoryEntry, PolicyDecision, PolicyInput } from "../../../packages/core/src/policy.ts";
import { stuckRun, STUCK_STEPS } from "../../../packages/core/src/runtime/stuck.ts";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { TOY_TASK, ToyDesk, newBlobs } from "../../graphs/fixtures/toy.ts";

const ESC: Action[] = [{ type: "PRESS", key: "escape" }]; // no effect on ToyDesk: the screen never changes

/** Types "a", then presses Escape forever. */
const stuckPolicy: ForwardPolicy = {
  name: "stuck-policy",
  simulated: true,
  async propose(input: PolicyInput): Promise<PolicyDecision> {
    return { actions: input.history.length === 0 ? [{ type: "TYPING", text: "a" }] : ESC };
  },
};

/** A detector that never fires (and counts its calls). */
function quietDetector(): ErrorDetector & { calls: number } {
  const d = {
    name: "quiet",
    simulated: true,
    calls: 0,
    async detect() {
      d.calls += 1;
      return { isError: false, errorStep: null, reason: "fine", confidence: 0.9 };
    },
  };
  return d;
}

async function run(options: Record<string, unknown>, detector: ErrorDetector | null = quietDetector()) {
  const blobs = newBlobs();
  const agent = withRecovery(stuckPolicy, { ...(detector ? { detector } : {}), maxForwardSteps: 12, ...options });
  return agent.run({ task: TOY_TASK, env: new ToyDesk(blobs), blobs });
}

describe("onStuck", () => {
  it("with the recovery attempts spent, 'stop' ends the episode at the third identical no-effect step; 'continue' (the default) runs to the cap", async () => {
    const stopped = await run({ maxRecoveryIterations: 0, onStuck: "stop" });
    expect(stopped.stopReason).toBe("stuck");
    // step 0 typed "a", steps 1-3 pressed Escape: the third Escape ends it
    expect(stopped.accounting.forwardSteps).toBe(1 + STUCK_STEPS);
    expect(stopped.evaluation).toBeDefined(); // the final state is scored, as at the step cap
    for (const options of [{ maxRecoveryIterations: 0 }, { maxRecoveryIterations: 0, onStuck: "continue" }]) {
      const went = await run(options);
      expect(went.stopReason).toBe("max-steps");
      expect(went.accounting.forwardSteps).toBe(12);
    }
  });

  it("does not stop while the detector may still be asked, nor without a detector", async () => {
    const detector = quietDetector();
    const r = await run({ maxRecoveryIterations: 1, restoration: "snapshot", onStuck: "stop" }, detector);
    expect(r.stopReason).toBe("max-steps");
    expect(detector.calls).toBeGreaterThan(0);
    expect((await run({ onStuck: "stop" }, null)).stopReason).toBe("max-steps");
  });

  it("stuckRun: the same non-WAIT actions on one unchanged screen, n times", () => {
    const a: Observation = { screenshot: "aa/a.png", width: 1, height: 1 };
    const b: Observation = { screenshot: "bb/b.png", width: 1, height: 1 };
    const at = (o: Observation, actions: Action[], step = 0): HistoryEntry => ({ step, observation: o, actions });
    expect(stuckRun([at(a, ESC), at(a, ESC), at(a, ESC)], a)).toMatch(/same actions 3 times/);
    expect(stuckRun([at(a, ESC), at(a, ESC)], a)).toBeNull(); // two are not enough
    expect(stuckRun([at(a, ESC), at(a, ESC), at(a, ESC)], b)).toBeNull(); // the last one changed the screen
    expect(stuckRun([at(b, ESC), at(a, ESC), at(a, ESC)], a)).toBeNull(); // the first one changed it
    expect(stuckRun([at(a, ESC), at(a, [{ type: "PRESS", key: "enter" }]), at(a, ESC)], a)).toBeNull();
    const wait: Action[] = [{ type: "WAIT" }];
    expect(stuckRun([at(a, wait), at(a, wait), at(a, wait)], a)).toBeNull(); // waiting is not stuck
    expect(stuckRun([at(a, []), at(a, []), at(a, [])], a)).toBeNull(); // unusable outputs are policy failures
    expect(stuckRun([at(a, ESC), at(a, ESC)], a, 2)).not.toBeNull();
    // the same click parsed with its fields in another order (two model answers) is the same action
    const click1 = [{ type: "CLICK", x: 3, y: 4 }] as Action[];
    const click2 = [{ y: 4, x: 3, type: "CLICK" }] as unknown as Action[];
    expect(stuckRun([at(a, click1), at(a, click2), at(a, click1)], a)).not.toBeNull();
  });
});
