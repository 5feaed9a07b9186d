import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { transitionNotice } from "../../packages/graphs/src/transition-notice.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { createLoopDetector, createStagnationDetector } from "../../packages/core/src/detectors/index.ts";
import type { EpisodeComponents, RecoveryOptionsInput } from "../../packages/core/src/episode.ts";
import type { Detection, ErrorDetector } from "../../packages/core/src/detector.ts";
import type { StateVerifier } from "../../packages/core/src/recovery.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, createToyRecoverer, newBlobs } from "./fixtures/toy.ts";

function setup(
  opts: { slipTicks?: number[]; skill?: number; detector?: ErrorDetector | null; pointerMoves?: boolean } = {},
) {
  const blobs = newBlobs();
  const env = new ToyDesk(blobs);
  const policy = createToyPolicy({ slipTicks: opts.slipTicks, pointerMoves: opts.pointerMoves });
  const toyDetector = createToyDetector();
  const detector = (opts.detector === undefined ? toyDetector : opts.detector) as typeof toyDetector | null;
  const recoverer = createToyRecoverer({ skill: opts.skill });
  const components: EpisodeComponents = { policy, env, blobs, recoverer, ...(detector ? { detector } : {}) };
  return { blobs, env, policy, detector, recoverer, components };
}

async function run(s: ReturnType<typeof setup>, options: RecoveryOptionsInput = {}, events?: EpisodeEvents) {
  return runEpisode({ task: TOY_TASK, components: s.components, options, events });
}

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

  it("replay restoration reproduces the target state hash exactly", async () => {
    const s = setup({ slipTicks: [4], pointerMoves: true });
    const hashes = new Map<number, string>();
    const events = new EpisodeEvents();
    let hashAtEnd: string | null = null;
    events.on("step", (e) => {
      // hash of o_{t+1}, first pass only
      if (e.record.role === "forward" && !hashes.has(e.record.step + 1))
        hashes.set(e.record.step + 1, s.env.stateHash());
    });
    events.on("recovery-start", (e) => {
      expect(e.recoveryStep).toBe(3);
    });
    events.on("recovery-end", () => {
      hashAtEnd = s.env.stateHash();
    });
    // record o_0's hash before the first step
    const origReset = s.env.reset.bind(s.env);
    s.env.reset = async (task) => {
      const o = await origReset(task);
      if (!hashes.has(0)) hashes.set(0, s.env.stateHash());
      return o;
    };
    const r = await run(s, { restoration: "replay", freezeWindow: 0 }, events);
    expect(hashAtEnd).toBe(hashes.get(3));
    expect(hashes.get(3)).not.toBe(hashes.get(4));
    expect(r.accounting.replaySteps).toBe(3);
    expect(r.trajectory.steps.filter((x) => x.role === "replay").map((x) => x.step)).toEqual([0, 1, 2]);
    expect(r.trajectory.events.find((e) => e.kind === "recovery-end")!.detail.restored).toBe(true);
    expect(r.success).toBe(true);
  });

  it("replay with R = 0 is a plain reset", async () => {
    const s = setup({ slipTicks: [2] });
    const r = await run(s, { restoration: "replay", recoveryStep: "zero", freezeWindow: 0 });
    expect(r.accounting.replaySteps).toBe(0);
    expect(s.env.resets).toBe(2);
    expect(r.success).toBe(true);
  });

  it("retries a replay that desynchronises and records each try", async () => {
    const s = setup({ slipTicks: [3], pointerMoves: true });
    const orig = s.env.reset.bind(s.env);
    s.env.reset = async (task) => {
      const o = await orig(task);
      if (s.env.resets === 2) {
        s.env.text = "q"; // the first replay starts from a desynchronised state
        return s.env.observe();
      }
      return o;
    };
    const r = await run(s, { restoration: "replay", freezeWindow: 0, replayRetries: 3 });
    const tries = r.trajectory.steps.filter((x) => x.role === "replay").map((x) => x.info?.try);
    expect(tries).toEqual([1, 1, 2, 2]);
    expect(r.trajectory.events.filter((e) => e.kind === "reset").length).toBe(3);
    expect(r.success).toBe(true);
  });

  it("replay without ground truth is verified by SSIM, or by the verifier when one is given", async () => {
    const s = setup({ slipTicks: [3] });
    Object.assign(s.env, { capabilities: { ...s.env.capabilities, groundTruth: false } });
    const r = await run(s, { restoration: "replay", freezeWindow: 0 });
    const end = r.trajectory.events.find((e) => e.kind === "recovery-end")!;
    expect(end.detail.restored).toBe(true);
    expect(String(end.detail.reason)).toMatch(/SSIM to o_2 = 1\.0000/);

    const s2 = setup({ slipTicks: [3] });
    Object.assign(s2.env, { capabilities: { ...s2.env.capabilities, groundTruth: false } });
    let verifies = 0;
    const verifier = {
      name: "strict",
      verify: async () => (
        verifies++,
        {
          verdict: "mismatch" as const,
          reason: "looks different",
          usage: [{ role: "verifier" as const, model: "m", inputTokens: 2, outputTokens: 1, latencyMs: 1 }],
        }
      ),
    };
    const r2 = await runEpisode({
      task: TOY_TASK,
      components: { ...s2.components, verifier },
      options: { restoration: "replay", freezeWindow: 0, replayRetries: 2, maxRecoveryIterations: 1 },
    });
    const end2 = r2.trajectory.events.find((e) => e.kind === "recovery-end")!;
    expect(verifies).toBe(2);
    expect(end2.detail.restored).toBe(false);
    expect(r2.trajectory.events.filter((e) => e.kind === "reset").length).toBe(3);
    expect(r2.accounting.models.verifier?.calls).toBe(2);
  });

  it("snapshot restoration restores the environment-native snapshot of o_R", async () => {
    const s = setup({ slipTicks: [3], pointerMoves: true });
    const r = await run(s, { restoration: "snapshot", freezeWindow: 0 });
    const end = r.trajectory.events.find((e) => e.kind === "recovery-end")!;
    expect(end.detail.restored).toBe(true);
    expect(end.detail.confirmation).toBe("ssim"); // the state hash (the oracle) decided
    expect(r.accounting.recoverySteps + r.accounting.replaySteps).toBe(0);
    expect(r.success).toBe(true);
  });

  it("snapshot restoration without a state hash follows the one confirmation rule: the verifier decides, else the restore is only claimed", async () => {
    const verdicts: Array<"match" | "mismatch"> = [];
    for (const [verdict, expected] of [
      ["match", "verifier"],
      ["mismatch", "refused"],
      [undefined, "claimed"],
    ] as const) {
      const s = setup({ slipTicks: [3], pointerMoves: true });
      Object.assign(s.env, { capabilities: { ...s.env.capabilities, groundTruth: false } }); // an environment with no ground-truth state hash
      const verifier = verdict && {
        name: "v",
        verify: async () => (verdicts.push(verdict), { verdict, reason: "looked", usage: [] }),
      };
      const r = await runEpisode({
        task: TOY_TASK,
        components: { ...s.components, ...(verifier ? { verifier } : {}) },
        options: { restoration: "snapshot", freezeWindow: 0, maxRecoveryIterations: 1 },
      });
      const end = r.trajectory.events.find((e) => e.kind === "recovery-end")!;
      expect(end.detail.confirmation, String(verdict)).toBe(expected);
      expect(end.detail.restored, String(verdict)).toBe(expected !== "refused");
    }
    expect(verdicts).toEqual(["match", "mismatch"]);
  });

  it("implicit recovery (paper: pi_R = pi) leaves environment and history alone and gives the policy no recovery instruction", async () => {
    const s = setup({ slipTicks: [2] });
    const r = await run(s, { restoration: "implicit", freezeWindow: 0, maxRecoveryIterations: 1 });
    expect(r.accounting.recoveryAttempts).toBe(1);
    expect(s.policy.inputs.filter((i) => i.notice !== undefined && i.notice !== null)).toEqual([]);
    // the decision right after the recovery sees the untouched history
    const after = s.policy.inputs.find((i) => i.tick === 3)!;
    expect(after.history.length).toBe(3);
    expect(r.trajectory.events.some((e) => e.kind === "truncate")).toBe(false);
    expect(r.trajectory.events.find((e) => e.kind === "recovery-end")!.detail.reason).toMatch(/^implicit recovery/);
    expect(r.success).toBe(false); // the toy policy never fixes anything itself
  });

  it("guided recovery leaves environment and history alone and tells the policy which step went wrong", async () => {
    const s = setup({ slipTicks: [2] });
    const r = await run(s, { restoration: "guided", freezeWindow: 0, maxRecoveryIterations: 1 });
    const noticed = s.policy.inputs.find((i) => i.notice)!;
    expect(noticed.history.length).toBe(3);
    expect(noticed.notice).toMatch(/step 2 went off track/);
    expect(r.accounting.recoveryAttempts).toBe(1);
    expect(r.trajectory.events.some((e) => e.kind === "truncate")).toBe(false);
    expect(r.success).toBe(false);
  });

  it("restoration none only monitors: detections are recorded, nothing is triggered", async () => {
    const s = setup({ slipTicks: [2] });
    const r = await run(s, { restoration: "none", freezeWindow: 0 });
    expect(r.accounting.recoveryAttempts).toBe(0);
    expect(r.trajectory.steps.filter((x) => x.detection?.isError).length).toBeGreaterThan(0);
  });

  it.each<[string, ErrorDetector["detect"]]>([
    [
      "throws",
      async () => {
        throw new Error("model server down");
      },
    ],
    ["returns garbage", async () => ({ isError: "yes", errorStep: "two" }) as unknown as Detection],
    [
      "returns an error step outside the history",
      async () => ({ isError: true, errorStep: 99, reason: "?", confidence: 1 }),
    ],
    ["returns nothing", async () => undefined as unknown as Detection],
    ["hangs past the timeout", () => new Promise<Detection>(() => {})],
  ])("a detector that %s neither stops nor derails the episode", async (_name, detect) => {
    const bad: ErrorDetector = { name: "bad", detect };
    const s = setup({ detector: bad });
    const r = await runEpisode({
      task: TOY_TASK,
      components: s.components,
      options: {},
      knobs: { detectorTimeoutMs: 30 },
    });
    const base = await run(setup({ detector: null }));
    expect(r.success).toBe(true);
    expect(r.accounting.detectorCalls).toBe(6);
    expect(r.accounting.detectorFailures).toBe(6);
    expect(r.accounting.recoveryAttempts).toBe(0);
    expect(r.trajectory.steps.map((x) => x.actions)).toEqual(base.trajectory.steps.map((x) => x.actions));
    expect(r.trajectory.steps[0].detection?.failure).toBeTruthy();
  });

  it("the heuristic stagnation and loop detectors plug into the runtime and blame the first idle step", async () => {
    // A policy stuck pressing a dead key from step 2 on: the screen stops changing.
    const stuck = (name: string) => ({
      name,
      async propose(i: { history: readonly unknown[]; tick: number }) {
        const t = i.history.length;
        if (t >= 2 && i.tick < 8) return { actions: [{ type: "PRESS" as const, key: "f13" }] };
        if (t >= 6) return { actions: [{ type: "DONE" as const }] };
        return { actions: [{ type: "TYPING" as const, text: "abcdef"[t] }] };
      },
    });
    for (const [detector, E] of [
      [createStagnationDetector({ k: 3 }), 2],
      [createLoopDetector({ minCycle: 1, maxCycle: 2, repeats: 3 }), 3],
    ] as const) {
      const s = setup({ detector });
      const events = new EpisodeEvents();
      const detections: number[] = [];
      events.on("detection", (e) => e.triggered && detections.push(e.detection.errorStep!));
      await runEpisode({
        task: TOY_TASK,
        components: { ...s.components, policy: stuck("stuck") },
        options: { restoration: "replay", freezeWindow: 0, maxRecoveryIterations: 1 },
        events,
      });
      expect(detections).toEqual([E]);
    }
  });

  it("a listener can stop the episode", async () => {
    const s = setup();
    const events = new EpisodeEvents();
    events.on("step", (e) => {
      if (e.record.step === 1) events.stop("enough");
    });
    const r = await run(s, {}, events);
    expect(r.stopReason).toBe("aborted");
    expect(r.accounting.forwardSteps).toBe(2);
  });

  it("emits typed events in order for a recovery", async () => {
    const s = setup({ slipTicks: [2] });
    const events = new EpisodeEvents();
    const seen: string[] = [];
    for (const name of [
      "detection",
      "selection",
      "recovery-start",
      "recovery-step",
      "recovery-end",
      "truncate",
      "episode-end",
    ] as const) {
      events.on(name, () => seen.push(name));
    }
    await run(s, { freezeWindow: 5 }, events);
    const firstRecovery = seen.slice(seen.indexOf("selection") - 1, seen.indexOf("truncate") + 1);
    expect(firstRecovery).toEqual([
      "detection",
      "selection",
      "recovery-start",
      "recovery-step",
      "recovery-step",
      "recovery-end",
      "truncate",
    ]);
    expect(seen.at(-1)).toBe("episode-end");
  });

  it("an environment failure ends the episode as env-error, not a crash", async () => {
    const s = setup();
    s.env.failAtStep = 3;
    const r = await run(s);
    expect(r.stopReason).toBe("env-error");
    expect(r.envError).toMatch(/toy desktop crashed/);
    expect(r.success).toBe(false);
  });

  it("rejects invalid options with a ConfigError naming the field", async () => {
    const s = setup();
    await expect(run(s, { recoveryBudget: 0 })).rejects.toThrow(/^runEpisode: option "recoveryBudget" must be >= 1$/);
    await expect(run(s, { recoveryBudget: 0 })).rejects.toBeInstanceOf(ConfigError);
    await expect(run(s, { restoration: "model", recoveryContext: "contextualized" })).rejects.toThrow(/summarizer/);
    await expect(
      runEpisode({ task: TOY_TASK, components: { ...s.components, recoverer: undefined }, options: {} }),
    ).rejects.toThrow(/components.recoverer/);
  });

  it("gives the recovery sub-agent the target observation and the chosen context", async () => {
    const s = setup({ slipTicks: [3] });
    await run(s, { freezeWindow: 0, recoveryContext: "0-R" });
    const first = s.recoverer.inputs[0];
    expect(first.target.step).toBe(2);
    expect(first.target.observation.text).toBe("ab");
    expect(first.errorStep).toBe(3);
    expect(first.context.kind).toBe("0-R");
    expect(first.context.history.length).toBe(2);
    expect(first.budget).toEqual({ used: 0, max: 10 });
    // 0-E holds the history up to the erroneous state (0..t-1), the erroneous step E included
    const s0 = setup({ slipTicks: [3] });
    await run(s0, { freezeWindow: 0, recoveryContext: "0-E" });
    expect(s0.recoverer.inputs[0].errorStep).toBe(3);
    expect(s0.recoverer.inputs[0].context.history.map((h) => h.step)).toEqual([0, 1, 2, 3]);
    expect(s0.recoverer.inputs[0].context.history[3].actions).toEqual([{ type: "TYPING", text: "x" }]); // the wrong action a_E
    const s2 = setup({ slipTicks: [3] });
    const summarizer = {
      name: "sum",
      summarize: async () => ({
        summary: "typed a and b",
        prompt: "sum@1",
        usage: [{ role: "summarizer" as const, model: "m", inputTokens: 1, outputTokens: 1, latencyMs: 1 }],
      }),
    };
    const r2 = await runEpisode({
      task: TOY_TASK,
      components: { ...s2.components, summarizer },
      options: { freezeWindow: 0, recoveryContext: "contextualized" },
    });
    expect(s2.recoverer.inputs[0].context).toEqual({ kind: "contextualized", history: [], summary: "typed a and b" });
    expect(r2.accounting.models.summarizer?.calls).toBe(1);
    expect(r2.prompts).toContain("sum@1");
  });

  it("a verifier that rejects a restored claim keeps the sub-agent going within its budget", async () => {
    const s = setup({ slipTicks: [3] });
    let verifies = 0;
    const verifier = {
      name: "v",
      verify: async () => ({ verdict: (++verifies === 1 ? "mismatch" : "match") as "mismatch" | "match", reason: "r" }),
    };
    const r = await runEpisode({
      task: TOY_TASK,
      components: { ...s.components, verifier },
      options: { freezeWindow: 0 },
    });
    expect(verifies).toBe(2);
    expect(r.success).toBe(true);
  });

  it.each<[string, StateVerifier["verify"]]>([
    ["abstains", async () => ({ verdict: "abstain", reason: "cannot tell" })],
    [
      "throws",
      async () => {
        throw new Error("verifier server down");
      },
    ],
    ["returns garbage", async () => ({ verdict: "yes" }) as unknown as Awaited<ReturnType<StateVerifier["verify"]>>],
  ])("a verifier that %s never confirms a restored claim (onAbstain: reject, the default)", async (_name, verify) => {
    const s = setup({ slipTicks: [3] });
    let calls = 0;
    const verifier: StateVerifier = { name: "v", verify: (i) => (calls++, verify(i)) };
    const r = await runEpisode({
      task: TOY_TASK,
      components: { ...s.components, verifier },
      options: { freezeWindow: 0, maxRecoveryIterations: 1, recoveryBudget: 4 },
    });
    const end = r.trajectory.events.find((e) => e.kind === "recovery-end")!;
    expect(calls).toBeGreaterThan(0);
    expect(end.detail.restored).toBe(false);
    expect(String(end.detail.reason)).toMatch(/abstained \(not confirmed\).*budget is spent/);
  });

  it("with onAbstain: ssim an abstention is decided by SSIM >= 0.99 against the target", async () => {
    const s = setup({ slipTicks: [3] });
    const verifier: StateVerifier = { name: "v", verify: async () => ({ verdict: "abstain", reason: "cannot tell" }) };
    const r = await runEpisode({
      task: TOY_TASK,
      components: { ...s.components, verifier },
      options: { freezeWindow: 0, maxRecoveryIterations: 1, onAbstain: "ssim" },
    });
    const end = r.trajectory.events.find((e) => e.kind === "recovery-end")!;
    expect(end.detail.restored).toBe(true);
    expect(String(end.detail.reason)).toMatch(/onAbstain ssim: SSIM 1\.0000 >= 0\.99/);
    expect(r.success).toBe(true);
  });

  it("is deterministic: the same setup gives the same trajectory", async () => {
    const a = await run(setup({ slipTicks: [2, 7] }), { freezeWindow: 1 });
    const b = await run(setup({ slipTicks: [2, 7] }), { freezeWindow: 1 });
    const strip = (r: typeof a) => r.trajectory.steps.map(({ envMs: _e, ...x }) => x);
    expect(strip(a)).toEqual(strip(b));
    expect(a.success).toBe(b.success);
    const s = setup({ slipTicks: [2, 7] });
    const c = await runEpisode({
      task: TOY_TASK,
      components: s.components,
      options: { freezeWindow: 1 },
      checkpointer: false,
    });
    expect(strip(c)).toEqual(strip(a));
  });
});
