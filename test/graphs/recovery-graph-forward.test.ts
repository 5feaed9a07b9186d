import { describe, expect, it } from "vitest";
import { transitionNotice } from "../../packages/graphs/src/transition-notice.ts";
import type { ErrorDetector } from "../../packages/core/src/detector.ts";
import { createToyDetector } from "./fixtures/toy.ts";
import { run, setup } from "./fixtures/recovery-setup.ts";

describe("recovery graph on ToyDesk", () => {
  it("runs a clean episode to success and consults the detector after every non-final forward step", async () => {
    const s = setup();
    const r = await run(s);
    expect(r.success).toBe(true);
    expect(r.stopReason).toBe("done");
    expect(r.accounting.forwardSteps).toBe(7);
    expect(r.accounting.detectorCalls).toBe(6);
    expect(r.accounting.recoveryAttempts).toBe(0);
    expect(r.trajectory.steps.map((x) => x.role)).toEqual(Array(7).fill("forward"));
    // the final DONE decision reports no model usage in the toy policy
    expect(r.accounting.models.policy?.calls).toBe(6);
    expect(r.accounting.models.policy?.inputTokens).toBe(60);
  });

  it.each([
    [0, 8, 0, "sequential"],
    [1, 7, 1, "sequential"],
    [5, 3, 5, "sequential"],
    [0, 8, 0, "overlapped"],
    [1, 7, 1, "overlapped"],
    [5, 3, 5, "overlapped"],
  ] as const)(
    "with freeze window F=%i the detector is called exactly %i times (%i frozen), %s detection",
    async (F, calls, frozen, detection) => {
      // Slip at tick 2 (step 2 types "x"): detection #3 fires, R = 1, two recovery steps (ticks 3, 4),
      // then forward steps 1..5 (5 detect phases, the first F frozen) and DONE.
      const s = setup({ slipTicks: [2] });
      const r = await run(s, { freezeWindow: F, detection });
      // overlapped: the proposal made alongside the firing detection is thrown away, nothing else
      expect(r.accounting.discardedProposals).toBe(detection === "overlapped" ? 1 : 0);
      expect(s.detector!.calls.length).toBe(calls);
      expect(r.accounting.detectorCalls).toBe(calls);
      expect(r.accounting.frozenSkipped).toBe(frozen);
      expect(r.trajectory.steps.filter((x) => x.frozen).length).toBe(frozen);
      expect(r.success).toBe(true);
      // no detector call during the window: the calls after the recovery start at tick 5 + F
      const afterRecovery = s.detector!.calls.filter((c) => c.tick > 4).map((c) => c.tick);
      expect(afterRecovery.every((tick) => tick >= 6 + F)).toBe(true);
    },
  );

  it("judges the DONE step too with detectDone (the paper's: once per forward step), so a premature DONE starts a recovery", async () => {
    // Slip at tick 2 (recovery, then F=5 frozen steps 1..5) and at tick 9 (step 5 types "x" while
    // frozen): the DONE at step 6 is the first step the detector may judge after the second slip.
    const plain = setup({ slipTicks: [2, 9] });
    const ended = await run(plain, { freezeWindow: 5 });
    expect(ended).toMatchObject({ success: false, stopReason: "done" });
    expect(ended.accounting.recoveryAttempts).toBe(1);
    const judged = setup({ slipTicks: [2, 9] });
    const r = await run(judged, { freezeWindow: 5, detectDone: true });
    expect(r.accounting.recoveryAttempts).toBe(2);
    // the detection sits on the DONE step and the episode went on instead of ending there
    const doneStep = r.trajectory.steps.find(
      (x) => x.role === "forward" && x.actions.some((a) => a.type === "DONE") && x.detection?.isError,
    );
    expect(doneStep?.detection).toMatchObject({ isError: true, errorStep: 5 });
    expect(r.trajectory.steps.indexOf(doneStep!)).toBeLessThan(r.trajectory.steps.length - 1);
    expect(r).toMatchObject({ success: true, stopReason: "done" });
    // on a clean episode the DONE step is one more detector call (7 steps, 7 calls)
    const clean = await run(setup(), { detectDone: true });
    expect(clean.accounting.detectorCalls).toBe(7);
  });

  it("shows the paper's short transition string by default and retrace's detailed one when asked", async () => {
    const short = setup({ slipTicks: [3] });
    await run(short, { freezeWindow: 0 });
    expect(short.policy.inputs.find((i) => i.notice)!.notice).toBe(
      "Note: the environment has been recovered to the state it had at step 2.",
    );
    const detailed = setup({ slipTicks: [3] });
    const r = await run(detailed, { freezeWindow: 0, transition: "detailed" });
    const notice = detailed.policy.inputs.find((i) => i.notice)!.notice!;
    expect(notice).toBe(transitionNotice(2, "detailed"));
    expect(notice).toMatch(/do not assume anything you did after step 2 still holds/);
    expect(r.prompts).toContain("post-restoration.transition-detailed@1");
    expect(r.prompts).not.toContain("post-restoration.transition@2");
  });

  it("has no confidence gate by default (the paper's); minConfidence 0.5 is retrace's gated variant", async () => {
    const unsure = (inner: ErrorDetector): ErrorDetector => ({
      name: "unsure",
      detect: async (i) => ({ ...(await inner.detect(i)), confidence: 0.3 }),
    });
    const paper = setup({ slipTicks: [3] });
    paper.components.detector = unsure(createToyDetector());
    expect((await run(paper, { freezeWindow: 0 })).accounting.recoveryAttempts).toBe(1);
    const gated = setup({ slipTicks: [3] });
    gated.components.detector = unsure(createToyDetector());
    const r = await run(gated, { freezeWindow: 0, minConfidence: 0.5 });
    expect(r.accounting.recoveryAttempts).toBe(0);
    expect(r.accounting.detectorCalls).toBeGreaterThan(0);
  });

  it("after restoration the next proposal sees exactly the truncated history plus the transition string", async () => {
    const s = setup({ slipTicks: [3] });
    const r = await run(s, { freezeWindow: 0 });
    expect(r.success).toBe(true);
    // Step 3 typed "x"; E = 3, R = E-1 = 2.
    const atDetection = s.detector!.calls.find((c) => c.tick === 4)!;
    const next = s.policy.inputs.find((i) => i.tick > 4)!;
    expect(next.history).toEqual(atDetection.history.slice(0, 2));
    expect(next.step).toBe(2);
    expect(next.notice).toBe(transitionNotice(2));
    expect(next.observation.text).toBe("ab");
    expect(next.observation.screenshot).toBe(atDetection.history[2].observation.screenshot);
    // the notice is shown once
    expect(s.policy.inputs.filter((i) => i.notice).length).toBe(1);
    expect(r.prompts).toContain("post-restoration.transition@2");
    const kinds = r.trajectory.events.map((e) => e.kind);
    expect(kinds).toEqual(["reset", "recovery-start", "recovery-end", "truncate"]);
  });

  it("never exceeds the recovery budget per attempt nor the retry cap, and then continues without recovery", async () => {
    // Weak recoverer types junk; every detection triggers until the cap of 2 is spent.
    const s = setup({ slipTicks: [1], skill: 0 });
    const r = await run(s, { freezeWindow: 0, maxRecoveryIterations: 2, recoveryBudget: 3, maxForwardSteps: 20 });
    expect(r.accounting.recoveryAttempts).toBe(2);
    expect(r.accounting.recoverySteps).toBe(6);
    for (const attempt of [1, 2]) {
      expect(r.trajectory.steps.filter((x) => x.role === "recovery" && x.attempt === attempt).length).toBe(3);
    }
    // after the cap the detector is not consulted any more
    const lastRecoverySeq = Math.max(...r.trajectory.steps.filter((x) => x.role === "recovery").map((x) => x.seq));
    expect(r.trajectory.steps.filter((x) => x.seq > lastRecoverySeq && x.detection).length).toBe(0);
    expect(r.accounting.forwardSteps).toBeLessThanOrEqual(20);
    expect(r.success).toBe(false);
  });

  it("stops at the forward budget with stopReason max-steps", async () => {
    const s = setup();
    const r = await run(s, { maxForwardSteps: 4 });
    expect(r.stopReason).toBe("max-steps");
    expect(r.accounting.forwardSteps).toBe(4);
    expect(r.success).toBe(false);
  });
});
