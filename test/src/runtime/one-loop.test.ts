/**
 * The one recovery loop's shared rules (src/runtime): the confirmation rule and vocabulary, and the
 * typed check of a user's restore result at the attempt function (issue 41): a malformed result is
 * a refused attempt with a one-line reason naming the routine, and the run continues.
 */
import { describe, expect, it } from "vitest";
import { confirmRestoration } from "../../../packages/core/src/runtime/confirm.ts";
import { checkRestoreResult } from "../../../packages/core/src/runtime/restore.ts";
import { StepRecovery } from "../../../packages/core/src/runtime/step-recovery.ts";
import { postRestoration } from "../../../packages/core/src/prompts/index.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { StateVerifier } from "../../../packages/core/src/recovery.ts";
import type { RecoveryReport } from "../../../packages/core/src/runtime/recovery-report.ts";

const obs = (screenshot: string): Observation => ({ screenshot, width: 1, height: 1 });
const noBlobs = {
  get: async () => {
    throw new Error("no blob should be read");
  },
} as never;
const verifier = (verdict: "match" | "mismatch" | "abstain"): StateVerifier => ({
  name: "stub-verifier",
  verify: async () => ({ verdict, reason: `said ${verdict}` }),
});

describe("the one confirmation rule", () => {
  it("names how a restoration was confirmed: claimed, verifier, ssim after an allowed abstention, refused", async () => {
    const target = obs("a");
    const same = obs("a");
    expect((await confirmRestoration({ target, current: same, blobs: noBlobs, unchecked: "claim" })).confirmation).toBe(
      "claimed",
    );
    expect(
      (
        await confirmRestoration({
          target,
          current: same,
          blobs: noBlobs,
          unchecked: "claim",
          verifier: verifier("match"),
        })
      ).confirmation,
    ).toBe("verifier");
    expect(
      (
        await confirmRestoration({
          target,
          current: same,
          blobs: noBlobs,
          unchecked: "claim",
          verifier: verifier("mismatch"),
        })
      ).confirmation,
    ).toBe("refused");
    expect(
      (
        await confirmRestoration({
          target,
          current: same,
          blobs: noBlobs,
          unchecked: "claim",
          verifier: verifier("abstain"),
        })
      ).confirmation,
    ).toBe("refused");
    const ssim = await confirmRestoration({
      target,
      current: same,
      blobs: noBlobs,
      unchecked: "claim",
      verifier: verifier("abstain"),
      onAbstain: "ssim",
    });
    expect(ssim).toMatchObject({ confirmation: "ssim", ssim: 1, verdict: "abstain" });
    // The ground-truth oracle decides before any verifier.
    expect(
      (
        await confirmRestoration({
          target,
          current: same,
          blobs: noBlobs,
          unchecked: "claim",
          verifier: verifier("match"),
          oracle: () => false,
        })
      ).confirmation,
    ).toBe("refused");
  });
});

describe("a user's restore result is checked at the attempt function", () => {
  it("refuses null, a string 'false', negative steps and an inconsistent confirmation, naming the routine", () => {
    expect(checkRestoreResult(null, "option restore")).toEqual({
      ok: false,
      reason:
        "restore() (option restore) returned null: return { restored: boolean, confirmation?, steps?, observation?, detail? }",
    });
    const s = checkRestoreResult({ restored: "false" }, "option restore");
    expect(s.ok).toBe(false);
    expect((s as { reason: string }).reason).toMatch(
      /^restore\(\) \(option restore\) returned a malformed result, "restored" is "false" \(must be a boolean/,
    );
    expect(checkRestoreResult({ restored: true, steps: -1 }, "r").ok).toBe(false);
    expect(checkRestoreResult({ restored: true, confirmation: "refused" }, "r").ok).toBe(false);
    expect(checkRestoreResult({ restored: true }, "r")).toEqual({
      ok: true,
      result: { restored: true, confirmation: "claimed", steps: 0 },
    });
    expect(checkRestoreResult({ restored: false, steps: 2 }, "r")).toEqual({
      ok: true,
      result: { restored: false, confirmation: "refused", steps: 2 },
    });
  });

  for (const [label, bad] of [
    ["null", null],
    ['{ restored: "false" }', { restored: "false" }],
  ] as const) {
    it(`a restore routine returning ${label}: the attempt is refused, the context untouched, the run goes on`, async () => {
      const reports: RecoveryReport[] = [];
      let detections = 0;
      const loop = new StepRecovery(
        {
          detector: {
            name: "d",
            detect: async () =>
              ++detections === 2
                ? { isError: true, errorStep: 1, reason: "wrong", confidence: 1 }
                : { isError: false, errorStep: null, reason: "ok", confidence: 1 },
          },
          blobs: noBlobs,
          restore: async () => bad as never,
          routine: "test option restore",
          env: { observe: async () => obs("after") },
          postRestoration,
          onRecovery: (r) => void reports.push(r),
          freezeWindow: 0,
          maxRecoveryIterations: 3,
          recoveryStep: "error-minus-1",
          minConfidence: 0,
          transition: "short",
          unconfirmedRestoration: "disclose-and-cut",
          seed: 0,
          settleMs: 0,
          restoration: "model",
          detectorTimeoutMs: 0,
        },
        { id: "t", instruction: "x" },
      );
      const ends: { confirmation: string; reason: string }[] = [];
      loop.events.on("recovery-end", (e) => void ends.push({ confirmation: e.confirmation, reason: e.reason }));
      loop.start(obs("s0"));
      expect(await loop.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs("s1"))).toBeNull();
      // The detector fires: the routine's malformed result refuses the attempt and leaves the context as it was.
      expect(await loop.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs("s2"))).toBeNull();
      expect(loop.state.history).toHaveLength(2);
      expect(ends).toHaveLength(1);
      expect(ends[0].confirmation).toBe("refused");
      expect(ends[0].reason).toMatch(/^restore\(\) \(test option restore\) returned /);
      expect(reports[0]).toMatchObject({
        restored: false,
        confirmation: "refused",
        contextCut: false,
        notice: null,
        errorStep: 1,
        recoveryStep: 0,
      });
      // The run continues: the next step is recorded and the detector consulted again.
      await loop.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs("s3"));
      expect(loop.state.history).toHaveLength(3);
      expect(detections).toBe(3);
    });
  }
});

describe("options are resolved once", () => {
  it("resolving resolved options is a no-op returning the same object; new input is validated", async () => {
    const { resolveRecoveryOptions } = await import("../../../packages/core/src/runtime/options.ts");
    const once = resolveRecoveryOptions({ freezeWindow: 2 });
    expect(resolveRecoveryOptions(once)).toBe(once);
    expect(once.freezeWindow).toBe(2);
    expect(() => resolveRecoveryOptions({ ...once, freezeWindow: -1 })).toThrow(
      /^recovery options: option "freezeWindow" must be >= 0$/,
    );
  });
});

describe("the restoration kind goes by its option's name in records", () => {
  it("writes `restoration` into the trajectory details; the events keep `mode` beside it for one release", async () => {
    const { startRecovery, endRecovery } = await import("../../../packages/core/src/runtime/attempt.ts");
    const { EpisodeEvents } = await import("../../../packages/core/src/runtime/events.ts");
    const events = new EpisodeEvents();
    const seen: unknown[] = [];
    events.on("recovery-start", (e) => void seen.push({ restoration: e.restoration, mode: e.mode }));
    events.on("recovery-end", (e) => void seen.push({ restoration: e.restoration, mode: e.mode }));
    const sink = { events, taskId: "t" };
    const start = startRecovery(sink, {
      attempt: 1,
      restoration: "snapshot",
      errorStep: 2,
      recoveryStep: 1,
      target: obs("a"),
      detection: { error: true, step: 2, confidence: 0.9, reason: "r" } as never,
    });
    const end = endRecovery(sink, {
      attempt: 1,
      restoration: "snapshot",
      confirmation: "claimed",
      steps: 0,
      reason: "done",
    });
    expect(start).toMatchObject({ restoration: "snapshot" });
    expect(end).toMatchObject({ restoration: "snapshot", restored: true });
    expect("mode" in start || "mode" in end).toBe(false);
    expect(seen).toEqual([
      { restoration: "snapshot", mode: "snapshot" },
      { restoration: "snapshot", mode: "snapshot" },
    ]);
  });
});
