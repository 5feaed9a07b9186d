import { describe, expect, it } from "vitest";
import { InternalError, ConfigError } from "../../../packages/core/src/errors.ts";
import { resolveRecoveryOptions } from "../../../packages/core/src/runtime/options.ts";
import {
  consumeFrozenStep,
  detectorGate,
  initialFreezeState,
  startFreeze,
} from "../../../packages/core/src/runtime/freeze.ts";
import {
  isValidErrorStep,
  recoveryContextHistory,
  truncateHistory,
} from "../../../packages/core/src/runtime/history.ts";
import { addUsage, bump, emptyAccounting, withoutTiming } from "../../../packages/core/src/runtime/accounting.ts";
import { guardedDetect } from "../../../packages/core/src/runtime/detection.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import type { DetectorInput, ErrorDetector } from "../../../packages/core/src/detector.ts";

const entry = (step: number): HistoryEntry => ({
  step,
  observation: { screenshot: String(step).padStart(64, "0"), width: 1, height: 1 },
  actions: [{ type: "WAIT" }],
});
const history = [0, 1, 2, 3, 4].map(entry);

describe("resolveRecoveryOptions", () => {
  it("fills the paper's defaults", () => {
    const o = resolveRecoveryOptions();
    expect(o).toMatchObject({
      maxForwardSteps: 50,
      freezeWindow: 5,
      recoveryBudget: 10,
      maxRecoveryIterations: 3,
      recoveryStep: "error-minus-1",
      restoration: "model",
      minConfidence: 0,
      transition: "short",
      recoveryContext: "0-E",
    });
  });
  it.each([
    [{ recoveryBudget: 0 }, 'recovery options: option "recoveryBudget" must be >= 1'],
    [{ freezeWindow: -1 }, 'recovery options: option "freezeWindow" must be >= 0'],
    [{ freezeWindow: 1.5 }, 'recovery options: option "freezeWindow" must be an integer'],
    [{ minConfidence: 2 }, 'recovery options: option "minConfidence" must be <= 1'],
    [
      { restoration: "magic" },
      'recovery options: option "restoration" must be one of "model", "replay", "snapshot", "implicit", "guided", "none"',
    ],
  ])("rejects %j with a message naming the field", (input, message) => {
    expect(() => resolveRecoveryOptions(input as never)).toThrow(message);
    try {
      resolveRecoveryOptions(input as never);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).field).toBe(message.split('"')[1]);
    }
  });
  it("rejects unknown options by name", () => {
    expect(() => resolveRecoveryOptions({ freezWindow: 3 } as never)).toThrow(
      /^recovery options: unknown option "freezWindow"/,
    );
  });
});

describe("freeze window and retry cap", () => {
  it("consults, freezes for F steps, then consults again; stops after the cap", () => {
    let s = initialFreezeState();
    const opts = { maxRecoveryIterations: 2, hasDetector: true };
    expect(detectorGate(s, opts)).toBe("consult");
    s = startFreeze(s, 2);
    expect(detectorGate(s, opts)).toBe("frozen");
    s = consumeFrozenStep(s);
    expect(detectorGate(s, opts)).toBe("frozen");
    s = consumeFrozenStep(s);
    expect(detectorGate(s, opts)).toBe("consult");
    s = startFreeze(s, 0);
    expect(detectorGate(s, opts)).toBe("exhausted");
    expect(detectorGate(s, { ...opts, hasDetector: false })).toBe("no-detector");
  });
});

describe("history", () => {
  it("truncates to entries 0..R-1", () => {
    expect(truncateHistory(history, 2).map((h) => h.step)).toEqual([0, 1]);
    expect(truncateHistory(history, 0)).toEqual([]);
    expect(() => truncateHistory(history, 6)).toThrow(InternalError);
  });
  it("builds recovery contexts 0-E (every entry up to the erroneous state, 0..t-1), 0-R, none, contextualized", () => {
    // the detector fired at t = 5 (history 0..4): 0-E holds the steps after E as well
    expect(recoveryContextHistory("0-E", history, 1, 0).map((h) => h.step)).toEqual([0, 1, 2, 3, 4]);
    expect(recoveryContextHistory("0-E", history, 0, 0).map((h) => h.step)).toEqual([0, 1, 2, 3, 4]);
    expect(recoveryContextHistory("0-E", history, 4, 2).map((h) => h.step)).toEqual([0, 1, 2, 3, 4]);
    expect(recoveryContextHistory("0-E", history.slice(0, 3), 1, 0).map((h) => h.step)).toEqual([0, 1, 2]);
    expect(() => recoveryContextHistory("0-E", history, 5, 0)).toThrow(InternalError);
    expect(recoveryContextHistory("0-R", history, 3, 1).map((h) => h.step)).toEqual([0]);
    expect(recoveryContextHistory("none", history, 3, 1)).toEqual([]);
    expect(recoveryContextHistory("contextualized", history, 3, 1)).toEqual([]);
  });
  it("validates error steps against the history", () => {
    expect(isValidErrorStep(4, 5)).toBe(true);
    expect(isValidErrorStep(5, 5)).toBe(false);
    expect(isValidErrorStep(1.5, 5)).toBe(false);
  });
});

describe("accounting", () => {
  it("adds usage per role and counters immutably", () => {
    const a = emptyAccounting();
    const b = addUsage(
      a,
      [
        { role: "detector", model: "m", inputTokens: 10, outputTokens: 2, latencyMs: 5, costUsd: 0.01 },
        { role: "detector", model: "m", inputTokens: 1, outputTokens: 1, latencyMs: 1, costUsd: 1, cached: true },
        { role: "policy", model: "m", inputTokens: 3, outputTokens: 3, latencyMs: 1 },
      ],
      "policy",
    );
    expect(a.models).toEqual({});
    expect(b.models.detector).toEqual({ calls: 2, inputTokens: 11, outputTokens: 3, latencyMs: 6, costUsd: 0.01 });
    expect(b.models.policy?.calls).toBe(1);
    expect(bump(b, { detectorCalls: 2 }).detectorCalls).toBe(2);
    expect(withoutTiming(bump(b, { envMs: 5 }))).not.toHaveProperty("envMs");
  });
});

describe("guardedDetect", () => {
  const input = {
    task: { id: "t", instruction: "i" },
    history,
    observation: history[0].observation,
    step: 5,
    tick: 5,
    blobs: { get: async () => Buffer.alloc(0), has: async () => true },
  } as DetectorInput;
  const det = (detect: ErrorDetector["detect"]): ErrorDetector => ({ name: "d", detect });
  it("passes a valid detection through", async () => {
    const r = await guardedDetect(
      det(async () => ({ isError: true, errorStep: 2, reason: "x", confidence: 0.8 })),
      input,
      1000,
    );
    expect(r).toEqual({ failed: false, detection: { isError: true, errorStep: 2, reason: "x", confidence: 0.8 } });
  });
  it.each([
    [
      "a throw",
      async () => {
        throw new Error("boom");
      },
      /boom/,
    ],
    ["garbage", async () => ({ isError: 1 }), /isError/],
    ["a confidence above 1", async () => ({ isError: true, errorStep: 1, reason: "", confidence: 7 }), /confidence/],
    [
      "an error step beyond the history",
      async () => ({ isError: true, errorStep: 5, reason: "", confidence: 1 }),
      /outside the history/,
    ],
    ["a timeout", () => new Promise(() => {}), /timed out/],
  ])("turns %s into a counted failure with no error", async (_n, fn, msg) => {
    const r = await guardedDetect(det(fn as ErrorDetector["detect"]), input, 20);
    expect(r.failed).toBe(true);
    expect(r.detection.isError).toBe(false);
    expect(r.detection.failure).toMatch(msg);
  });
});

describe("EpisodeEvents", () => {
  it("delivers typed events and records a stop request", () => {
    const ev = new EpisodeEvents();
    const seen: number[] = [];
    ev.on("truncate", (e) => {
      seen.push(e.to);
      ev.stop("seen enough");
    });
    ev.emit("truncate", { taskId: "t", attempt: 1, from: 4, to: 2, notice: null });
    expect(seen).toEqual([2]);
    expect(ev.stopRequested).toBe("seen enough");
  });
});
