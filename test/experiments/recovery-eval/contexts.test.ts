/**
 * The simulated recovery evaluation's context rows differ for a documented reason: the simulated
 * recoverer reads what its context shows (the wrong actions, the path to the target, a summary,
 * or only the target screenshot) and its skill follows `contextEffects`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSimDeskDataset, runSimDeskRecoveryEval } from "../../../experiments/recovery-eval/run.ts";
import { contextView, SIM_CONTEXT_NEUTRAL } from "../../../packages/simdesk/src/agents/index.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";

const EFFECTS = { errorInference: 0.75, targetInference: 0.7, summaryFidelity: 0.9, blindFalseDone: 2 };
const entries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    step: i,
    observation: { screenshot: "x", width: 1, height: 1 },
    actions: [],
  })) as HistoryEntry[];

describe("simulated recoverer context effects", () => {
  it("keeps full skill when the context shows the wrong actions, and loses it as information goes", () => {
    const target = { step: 3, observation: { screenshot: "x", width: 1, height: 1 } };
    expect(contextView({ target, context: { kind: "0-E", history: entries(5) } }, 0.9, 0.025, EFFECTS)).toEqual({
      wrongActions: true,
      path: "steps",
      skill: 0.9,
      falseDoneRate: 0.025,
    });
    expect(contextView({ target, context: { kind: "0-R", history: entries(3) } }, 0.9, 0.025, EFFECTS)).toEqual({
      wrongActions: false,
      path: "steps",
      skill: 0.675,
      falseDoneRate: 0.025,
    });
    expect(
      contextView(
        { target, context: { kind: "contextualized", history: [], summary: "Task: ..." } },
        0.9,
        0.025,
        EFFECTS,
      ),
    ).toEqual({ wrongActions: false, path: "summary", skill: 0.608, falseDoneRate: 0.025 });
    expect(contextView({ target, context: { kind: "none", history: [] } }, 0.9, 0.025, EFFECTS)).toEqual({
      wrongActions: false,
      path: "none",
      skill: 0.473,
      falseDoneRate: 0.05,
    });
    expect(
      contextView({ target, context: { kind: "none", history: [] } }, 0.9, 0.025, SIM_CONTEXT_NEUTRAL),
    ).toMatchObject({ skill: 0.9, falseDoneRate: 0.025 });
  });

  it("makes the context rows of the recovery evaluation differ in the documented order (0-E > 0-R >= contextualized >= none, 0-R > none)", async () => {
    const root = mkdtempSync(join(tmpdir(), "retrace-ctx-"));
    await buildSimDeskDataset({ out: join(root, "ds"), limit: 16, seed: 3, seedStepsPerTrajectory: 4, distances: [1] });
    const { report } = await runSimDeskRecoveryEval({
      dataset: join(root, "ds"),
      out: join(root, "ev"),
      recoveryBudget: [1, 3],
      seed: 3,
      weak: false,
    });
    const rate = (ctx: string) => {
      const rows = report.table.filter((r) => r.variant === `explicit-skilled/${ctx}`);
      return rows.reduce((s, r) => s + r.success * r.n, 0) / rows.reduce((s, r) => s + r.n, 0);
    };
    const [e, r, c, n] = ["0-E", "0-R", "contextualized", "none"].map(rate);
    expect(report.samples).toBeGreaterThanOrEqual(12);
    expect(e).toBeGreaterThan(r);
    expect(r).toBeGreaterThan(n);
    expect(c).toBeGreaterThanOrEqual(n);
    expect(c).toBeLessThanOrEqual(r);
  }, 120_000);
});

describe("eval-recovery rationale analysis with an embedding model", () => {
  it("scores rationales through --embeddings-url and reports the method, beside the keyword baseline", async () => {
    const { startScriptedOpenAIServer } = await import("../../../packages/testing/src/scripted-openai-server.ts");
    const { buildProgram } = await import("../../../experiments/cli.ts");
    const { readFileSync } = await import("node:fs");
    // A deterministic stand-in embedding: counts of a few restorative words, plus a constant.
    const words = ["undo", "restore", "revert", "back", "close"];
    const embed = (inputs: string[]) =>
      inputs.map((t) => [1, ...words.map((w) => (t.toLowerCase().match(new RegExp(w, "g")) ?? []).length)]);
    const server = await startScriptedOpenAIServer({
      script: Array.from({ length: 40 }, () => ({ endpoint: "embeddings" as const, embeddings: embed })),
    });
    try {
      const root = mkdtempSync(join(tmpdir(), "retrace-emb-"));
      await buildSimDeskDataset({
        out: join(root, "ds"),
        limit: 3,
        seed: 1,
        seedStepsPerTrajectory: 2,
        distances: [1],
      });
      await buildProgram().parseAsync([
        "node",
        "retrace",
        "eval-recovery",
        "--dataset",
        join(root, "ds"),
        "--out",
        join(root, "ev"),
        "--recovery-budget",
        "3",
        "--no-contexts",
        "-q",
        "--embeddings-url",
        server.url,
        "--embeddings-model",
        "stand-in",
      ]);
      const report = JSON.parse(readFileSync(join(root, "ev", "recovery-eval.json"), "utf8"));
      expect(report.rationaleMethod).toMatch(
        /^openai-embeddings\(stand-in\), restorative when the best similarity >= 0.5/,
      );
      const skilled = report.table.find((r: { variant: string }) => r.variant === "explicit-skilled/0-E");
      const implicit = report.table.find((r: { variant: string }) => r.variant === "implicit/0-E");
      expect(skilled.rationaleSimilarity).toBeGreaterThan(implicit.rationaleSimilarity);
      expect(typeof skilled.restorativeIntent).toBe("number");
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.every((r) => r.path === "/v1/embeddings" && r.body.model === "stand-in")).toBe(true);
      server.verify({ allowUnconsumed: true });
    } finally {
      await server.close();
    }
    await expect(
      buildProgram().parseAsync([
        "node",
        "retrace",
        "eval-recovery",
        "--dataset",
        "x",
        "-q",
        "--embeddings-model",
        "m",
      ]),
    ).rejects.toThrow(/--embeddings-model needs --embeddings-url/);
  }, 120_000);
});
