/**
 * The runtime's acceptance tests on SimDesk with the seeded simulated agents (results simulated).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { transitionNotice } from "../../packages/graphs/src/transition-notice.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import type { Detection, DetectorInput, ErrorDetector } from "../../packages/core/src/detector.ts";
import type { EpisodeComponents, EpisodeResult, RecoveryOptionsInput } from "../../packages/core/src/episode.ts";
import type { PolicyInput } from "../../packages/core/src/policy.ts";
import { EpisodeEvents, type SelectionEvent } from "../../packages/core/src/runtime/events.ts";
import { errorRandomStep } from "../../packages/core/src/selectors/error-random.ts";
import {
  SIMDESK_TASKS,
  createSimDesk,
  fullStateHash,
  type SimDesk,
  type SimDeskTask,
} from "../../packages/simdesk/src/simdesk.ts";
import {
  createSimAgents,
  type SimDetectorProfileName,
  type SimRecovererProfileName,
} from "../../packages/simdesk/src/agents/index.ts";

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-simdesk-rt-")), "blobs") });
const desk = createSimDesk({ blobs });
const MEDIUM = SIMDESK_TASKS.filter((t) => t.plan.length >= 8).slice(0, 12);

interface Rig {
  env: SimDesk;
  components: EpisodeComponents;
  detectorCalls: DetectorInput[];
  policyInputs: PolicyInput[];
}

function rig(
  task: SimDeskTask,
  seed: number,
  o: {
    recoverer?: SimRecovererProfileName;
    detector?: SimDetectorProfileName | ErrorDetector | null;
    forward?: "default" | "sloppy";
  } = {},
): Rig {
  const agents = createSimAgents({
    task,
    groundTruth: desk,
    seed,
    recoverer: o.recoverer ?? "skilled",
    detector: typeof o.detector === "string" ? o.detector : "decent",
    forward: o.forward ?? "sloppy",
  });
  const detectorCalls: DetectorInput[] = [];
  const policyInputs: PolicyInput[] = [];
  const inner = o.detector && typeof o.detector === "object" ? o.detector : agents.detector;
  const detector: ErrorDetector = {
    name: inner.name,
    simulated: true,
    detect: (i) => (detectorCalls.push(i), inner.detect(i)),
  };
  const policy = {
    name: agents.policy.name,
    simulated: true,
    propose: (i: PolicyInput) => (policyInputs.push(i), agents.policy.propose(i)),
  };
  return {
    env: desk,
    detectorCalls,
    policyInputs,
    components: { policy, env: desk, blobs, recoverer: agents.recoverer, ...(o.detector === null ? {} : { detector }) },
  };
}

async function run(
  task: SimDeskTask,
  r: Rig,
  options: RecoveryOptionsInput,
  events?: EpisodeEvents,
): Promise<EpisodeResult> {
  return runEpisode({ task, components: r.components, options: { seed: 0, ...options }, events });
}

describe("recovery runtime on SimDesk (simulated agents)", () => {
  it.each([0, 1, 5])(
    "with F=%i the detector is silent for exactly F forward steps after each recovery and consulted otherwise",
    async (F) => {
      let recoveries = 0;
      for (const task of MEDIUM.slice(0, 4)) {
        const r = rig(task, 1);
        const res = await run(task, r, { freezeWindow: F, maxRecoveryIterations: 3 });
        recoveries += res.accounting.recoveryAttempts;
        const { steps, events } = res.trajectory;
        expect(r.detectorCalls.length).toBe(res.accounting.detectorCalls);
        expect(steps.filter((s) => s.detection).length).toBe(r.detectorCalls.length);
        const forward = steps.filter((s) => s.role === "forward");
        // walk the forward steps: after each recovery-end the next F forward steps are frozen
        let frozenLeft = 0;
        let attempts = 0;
        const last = forward.at(-1)!;
        for (const s of forward) {
          const endsBefore = events.filter((e) => e.kind === "recovery-end" && e.afterSeq < s.seq).length;
          if (endsBefore > attempts) {
            attempts = endsBefore;
            frozenLeft = F;
          }
          if (s === last && (res.stopReason === "done" || res.stopReason === "fail" || res.stopReason === "max-steps"))
            break;
          if (attempts >= 3) {
            // retry cap spent: the detector is never consulted again
            expect(s.detection).toBeUndefined();
          } else if (frozenLeft > 0) {
            expect(s.frozen).toBe(true);
            expect(s.detection).toBeUndefined();
            frozenLeft--;
          } else {
            expect(s.frozen).toBeUndefined();
            expect(s.detection).toBeDefined();
          }
        }
        expect(res.accounting.frozenSkipped).toBe(forward.filter((s) => s.frozen).length);
      }
      expect(recoveries).toBeGreaterThan(0);
    },
  );

  it("never exceeds the recovery budget, the retry cap or the forward budget", async () => {
    let attempts = 0;
    for (const task of SIMDESK_TASKS.slice(0, 10)) {
      const res = await run(task, rig(task, 2, { recoverer: "weak", detector: "noisy" }), {
        freezeWindow: 1,
        maxRecoveryIterations: 2,
        recoveryBudget: 3,
        maxForwardSteps: 25,
      });
      attempts += res.accounting.recoveryAttempts;
      expect(res.accounting.recoveryAttempts).toBeLessThanOrEqual(2);
      expect(res.accounting.forwardSteps).toBeLessThanOrEqual(25);
      for (const a of [1, 2])
        expect(res.trajectory.steps.filter((s) => s.role === "recovery" && s.attempt === a).length).toBeLessThanOrEqual(
          3,
        );
      expect(res.accounting.recoverySteps).toBe(res.trajectory.steps.filter((s) => s.role === "recovery").length);
    }
    expect(attempts).toBeGreaterThan(5);
  });

  it("after each restoration the next proposal sees exactly the truncated history plus the transition string", async () => {
    let checked = 0;
    for (const task of MEDIUM.slice(0, 8)) {
      const r = rig(task, 3);
      const events = new EpisodeEvents();
      const cuts: Array<{ to: number; historyBefore: PolicyInput["history"]; proposalsBefore: number }> = [];
      events.on("truncate", (e) => {
        const lastCall = r.detectorCalls.at(-1)!;
        cuts.push({ to: e.to, historyBefore: lastCall.history, proposalsBefore: r.policyInputs.length });
      });
      await run(task, r, { freezeWindow: 2 }, events);
      for (const cut of cuts) {
        const next = r.policyInputs[cut.proposalsBefore];
        if (!next) continue; // the episode ended right after
        expect(next.history).toEqual(cut.historyBefore.slice(0, cut.to));
        expect(next.step).toBe(cut.to);
        expect(next.notice).toBe(transitionNotice(cut.to));
        expect(r.policyInputs[cut.proposalsBefore + 1]?.notice).toBeUndefined();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it.each(["zero", "error-minus-1", "error-random"] as const)(
    "the %s selector picks the right recovery step",
    async (strategy) => {
      const seen: SelectionEvent[] = [];
      for (const task of MEDIUM.slice(0, 5)) {
        const events = new EpisodeEvents();
        events.on("selection", (e) => seen.push(e));
        await run(task, rig(task, 4), { recoveryStep: strategy, seed: 4 }, events);
      }
      expect(seen.length).toBeGreaterThan(0);
      for (const s of seen) {
        const E = s.errorStep;
        if (strategy === "zero") expect(s.recoveryStep).toBe(0);
        if (strategy === "error-minus-1") expect(s.recoveryStep).toBe(Math.max(0, E - 1));
        if (strategy === "error-random") {
          expect(s.recoveryStep).toBe(errorRandomStep(4, `${s.taskId}/4`, E));
          expect(s.recoveryStep).toBeLessThanOrEqual(Math.max(0, E - 1));
        }
      }
    },
  );

  it("the llm strategy asks the injected selector (the simulated stand-in) and keeps R within 0..E", async () => {
    const seen: SelectionEvent[] = [];
    let asked = 0;
    for (const task of MEDIUM.slice(0, 4)) {
      const r = rig(task, 4);
      const agents = createSimAgents({ task, groundTruth: desk, seed: 4 });
      const selector = {
        name: agents.selector.name,
        simulated: true,
        select: (i: Parameters<typeof agents.selector.select>[0]) => (asked++, agents.selector.select(i)),
      };
      const events = new EpisodeEvents();
      events.on("selection", (e) => seen.push(e));
      await runEpisode({
        task,
        components: { ...r.components, selector },
        options: { recoveryStep: "llm", seed: 4 },
        events,
      });
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(asked).toBe(seen.length);
    for (const s of seen) {
      expect(s.strategy).toBe("llm");
      expect(s.recoveryStep).toBeGreaterThanOrEqual(0);
      expect(s.recoveryStep).toBeLessThanOrEqual(s.errorStep);
    }
  });

  it("replay restoration reproduces the target's full state hash exactly", async () => {
    let compared = 0;
    for (const task of MEDIUM.slice(0, 6)) {
      const r = rig(task, 5);
      const events = new EpisodeEvents();
      let targetHash = "";
      events.on("recovery-start", (e) => (targetHash = fullStateHash(desk.loadState(e.target.stateId!))));
      events.on("recovery-end", (e) => {
        expect(e.restored).toBe(true);
        expect(desk.stateHash()).toBe(targetHash);
        compared++;
      });
      const res = await run(task, r, { restoration: "replay", freezeWindow: 2 }, events);
      expect(res.accounting.recoverySteps).toBe(0);
    }
    expect(compared).toBeGreaterThan(0);
  });

  it.each<[string, ErrorDetector["detect"]]>([
    [
      "throws",
      async () => {
        throw new Error("detector endpoint down");
      },
    ],
    ["returns garbage", async () => ({ verdict: "off track" }) as unknown as Detection],
  ])("a detector that %s does not stop or derail the episode", async (_n, detect) => {
    for (const task of MEDIUM.slice(0, 3)) {
      const bad = await run(task, rig(task, 6, { detector: { name: "bad", detect } }), {});
      const none = await run(task, rig(task, 6, { detector: null }), {});
      expect(bad.success).toBe(none.success);
      expect(bad.stopReason).toBe(none.stopReason);
      expect(bad.trajectory.steps.map((s) => s.actions)).toEqual(none.trajectory.steps.map((s) => s.actions));
      expect(bad.accounting.detectorFailures).toBe(bad.accounting.detectorCalls);
      expect(bad.accounting.detectorCalls).toBeGreaterThan(0);
      expect(bad.accounting.recoveryAttempts).toBe(0);
    }
  });
});
