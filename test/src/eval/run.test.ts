import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { buildRecoveryDataset } from "../../../packages/evaluation/src/dataset/build.ts";
import type { RecoverySample } from "../../../packages/evaluation/src/dataset/types.ts";
import { evaluateRecovery, type RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";
import { episodeIntent, keywordIntent } from "../../../packages/evaluation/src/eval/intent.ts";
import { oracleAgreement, recoveryTable } from "../../../packages/evaluation/src/eval/summary.ts";
import { getSimDeskTask, type SimDesk, type SimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { createSimForwardPolicy } from "../../../packages/simdesk/src/agents/index.ts";
import {
  createEvalSimDesk,
  simDeskTruth,
  simulatedDatasetPolicies,
  simulatedVariants,
  taskMap,
} from "../../../experiments/recovery-eval/simdesk.ts";

const TASKS = ["files-rename-draft", "files-trash-two", "files-restore-report", "files-new-folder-drag"].map((id) =>
  getSimDeskTask(id),
);
let desk: SimDesk;
let blobs: BlobStore;
let samples: RecoverySample[];
let runs: RecoveryRun[];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-eval-"));
  blobs = new BlobStore({ dir: join(dir, "blobs") });
  desk = createEvalSimDesk(blobs, join(dir, "states"));
  const p = simulatedDatasetPolicies(desk, 2);
  const build = await buildRecoveryDataset({
    env: desk,
    blobs,
    tasks: TASKS,
    forwardPolicy: ({ task }) =>
      createSimForwardPolicy({ task: task as SimDeskTask, seed: 0, slipRate: 0, noticeRate: 0 }),
    perturbationPolicy: p.perturbationPolicy,
    distances: [1, 3],
    seedStepsPerTrajectory: 2,
    replays: 1,
    seed: 2,
  });
  samples = build.samples;
  runs = await evaluateRecovery({
    env: desk,
    blobs,
    tasks: taskMap(TASKS),
    samples,
    variants: simulatedVariants(desk, 2),
    recoveryBudget: [1, 3],
    truth: simDeskTruth(desk),
  });
});

describe("evaluateRecovery on SimDesk (simulated policies)", () => {
  it("judges every sample under every variant and budget, each oracle part reported", () => {
    expect(samples.length).toBeGreaterThanOrEqual(4);
    expect(runs).toHaveLength(samples.length * 6 * 2);
    for (const r of runs) {
      expect(r.status).toBe("judged");
      expect(r.simulated).toBe(true);
      expect(r.stepsUsed).toBeLessThanOrEqual(r.budget);
      expect(r.verdict!.success).toBe(r.verdict!.ro.pass && r.verdict!.rtc.pass);
      expect(typeof r.truth).toBe("boolean");
    }
  });

  it("a stop hook ends the evaluation before the next sample and keeps the runs so far", async () => {
    let asked = 0;
    const some = await evaluateRecovery({
      env: desk,
      blobs,
      tasks: taskMap(TASKS),
      samples: samples.slice(0, 3),
      variants: simulatedVariants(desk, 2).slice(0, 1),
      recoveryBudget: [1],
      stop: () => (++asked > 2 ? "budget spent" : undefined),
    });
    expect(asked).toBe(3);
    expect(some.map((r) => r.sampleId)).toEqual(samples.slice(0, 2).map((s) => s.id));
  });

  it("shows explicit (skilled) recovery above implicit recovery, and more steps helping", () => {
    const table = recoveryTable(runs);
    const cell = (variant: string, r: number, d: number) =>
      table.find((x) => x.variant === variant && x.budget === r && x.distance === d)!;
    for (const d of [1, 3]) {
      expect(cell("explicit-skilled/0-E", 3, d).success.rate).toBeGreaterThan(cell("implicit/0-E", 3, d).success.rate);
      expect(cell("explicit-skilled/0-E", 3, d).success.rate).toBeGreaterThanOrEqual(
        cell("explicit-skilled/0-E", 1, d).success.rate,
      );
      expect(cell("explicit-skilled/0-E", 3, d).intent.rate).toBeGreaterThan(cell("implicit/0-E", 3, d).intent.rate);
    }
    const row = cell("implicit/0-E", 1, 1);
    expect(row.success.lo).toBeLessThanOrEqual(row.success.rate);
    expect(row.success.hi).toBeGreaterThanOrEqual(row.success.rate);
  });

  it("agrees with ground truth better with both oracle parts than with R_O alone (noise off)", () => {
    const a = oracleAgreement(runs);
    const by = (o: string) => a.find((x) => x.oracle === o)!;
    expect(by("R_O").n).toBe(runs.length);
    expect(by("R_O AND R_TC").falsePositive).toBeLessThanOrEqual(by("R_O").falsePositive);
    expect(by("R_O AND R_TC").falsePositive).toBeLessThanOrEqual(by("R_TC").falsePositive);
    for (const x of a) expect(x.truePositive + x.falsePositive + x.trueNegative + x.falseNegative).toBe(x.n);
  });

  it("restoring a snapshot of the verified error state gives the same verdicts as replaying every time", async () => {
    const some = samples.slice(0, 2);
    const variants = simulatedVariants(desk, 2, { contexts: false, weak: false });
    const a = await evaluateRecovery({
      env: desk,
      blobs,
      tasks: taskMap(TASKS),
      samples: some,
      variants,
      recoveryBudget: [3],
    });
    const b = await evaluateRecovery({
      env: desk,
      blobs,
      tasks: taskMap(TASKS),
      samples: some,
      variants,
      recoveryBudget: [3],
      reuseSnapshots: false,
    });
    expect(b.map((r) => [r.actions, r.verdict])).toEqual(a.map((r) => [r.actions, r.verdict]));
  });

  it("excludes a sample whose error state cannot be reconstructed, instead of judging it", async () => {
    const broken = { ...samples[0], error: { ...samples[0].error, stateHash: "0".repeat(64) } };
    const r = await evaluateRecovery({
      env: desk,
      blobs,
      tasks: taskMap(TASKS),
      samples: [broken],
      variants: simulatedVariants(desk, 2, { contexts: false, weak: false }),
      recoveryBudget: [1],
    });
    expect(r.every((x) => x.status === "reconstruction-failed")).toBe(true);
    expect(r[0].reason).toMatch(/not reproduced/);
    const t = recoveryTable(r);
    expect(t[0]).toMatchObject({ n: 0, excluded: 1 });
  });

  it("refuses a contextualized variant without a summarizer", async () => {
    const v = simulatedVariants(desk, 2).find((x) => x.kind === "explicit" && x.context === "contextualized");
    if (v?.kind !== "explicit") throw new Error("no contextualized variant");
    await expect(
      evaluateRecovery({
        env: desk,
        blobs,
        tasks: taskMap(TASKS),
        samples,
        variants: [{ ...v, summarizer: undefined }],
      }),
    ).rejects.toThrow(ConfigError);
  });
});

describe("restorative intent", () => {
  it("reads restorative rationales and ignores forward ones", () => {
    expect(keywordIntent("restore: undo typing in editor: HOTKEY(ctrl+z)")).toBe(true);
    expect(keywordIntent("I should close the dialog and go back to the folder")).toBe(true);
    expect(keywordIntent('plan step 4: TYPING("final.txt")')).toBe(false);
    expect(keywordIntent("plan step 2: slip(wrong-item) selected notes.txt")).toBe(false);
    expect(keywordIntent("  ")).toBeNull();
    expect(episodeIntent(["plan step 1", undefined, "revert the rename"])).toEqual({
      judged: 2,
      restorative: 1,
      intent: true,
    });
    expect(episodeIntent([undefined])).toEqual({ judged: 0, restorative: 0, intent: null });
  });
});

describe("recovery contexts", () => {
  it("give 0-E the history through the perturbation without the perturber's text, 0-R up to the target, none nothing", async () => {
    const { historyToError, historyToTarget, recoveryContextFor } =
      await import("../../../packages/evaluation/src/eval/episode.ts");
    const s = samples.find((x) => x.distance === 3)!;
    const e = historyToError(s);
    expect(e).toHaveLength(s.targetStep + 3);
    expect(e.slice(s.targetStep).every((h) => h.response === undefined && h.memo === undefined)).toBe(true);
    expect(e.slice(s.targetStep).map((h) => h.actions)).toEqual(s.perturbation.map((p) => p.actions));
    expect(e.map((h) => h.step)).toEqual(e.map((_, i) => i));
    expect(historyToTarget(s)).toHaveLength(s.targetStep);
    const task = TASKS.find((t) => t.id === s.taskId)!;
    expect((await recoveryContextFor(s, task, "none", blobs)).history).toEqual([]);
    const { simSummarizer } = await import("../../../experiments/recovery-eval/simdesk.ts");
    const c = await recoveryContextFor(s, task, "contextualized", blobs, simSummarizer);
    expect(c.history).toEqual([]);
    expect(c.summary).toContain(task.instruction);
  });
});

describe("failures during recovery", () => {
  it("records a recoverer whose model API fails as a policy error, excluded from the rates", async () => {
    const { AdapterError } = await import("../../../packages/core/src/errors.ts");
    const failing = {
      name: "down",
      async propose(): Promise<never> {
        throw new AdapterError("HTTP 503 from the model server", { retryable: true });
      },
    };
    const r = await evaluateRecovery({
      env: desk,
      blobs,
      tasks: taskMap(TASKS),
      samples: samples.slice(0, 1),
      variants: [{ id: "down", kind: "explicit", context: "none", recoverer: () => failing }],
      recoveryBudget: [1],
    });
    expect(r[0].status).toBe("policy-error");
    expect(r[0].verdict).toBeUndefined();
    expect(r[0].reason).toMatch(/HTTP 503/);
    expect(recoveryTable(r)[0]).toMatchObject({ n: 0, excluded: 1 });
  });
});
