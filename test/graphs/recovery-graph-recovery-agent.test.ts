import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import type { StateVerifier } from "../../packages/core/src/recovery.ts";
import { TOY_TASK } from "./fixtures/toy.ts";
import { run, setup } from "./fixtures/recovery-setup.ts";

describe("recovery graph on ToyDesk", () => {
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
