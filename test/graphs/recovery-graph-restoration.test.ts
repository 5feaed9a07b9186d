import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { TOY_TASK } from "./fixtures/toy.ts";
import { run, setup } from "./fixtures/recovery-setup.ts";

describe("recovery graph on ToyDesk", () => {
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
});
