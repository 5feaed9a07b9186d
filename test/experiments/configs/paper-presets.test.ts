/**
 * The model presets are the paper's setting by default (50 forward steps, no confidence gate, the
 * neutral detector, the short transition string, every screenshot of a summarized or 0-E history),
 * and end-to-end-variants.yaml runs retrace's variants beside it in one run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { loadExperimentConfig, parseExperimentConfig } from "../../../experiments/config/load.ts";
import { checkConfigAgents, fillConfigModels } from "../../../experiments/config/agents.ts";
import { endToEndConditions } from "../../../experiments/runner/conditions.ts";
import type { EndToEndConfig } from "../../../experiments/config/schema.ts";
import { resolveRecoveryOptions } from "../../../packages/core/src/runtime/options.ts";
import { maxTokensOf } from "../../../experiments/agents/model-spec.ts";

const preset = (name: string) => new URL(`../../../experiments/configs/models/${name}.yaml`, import.meta.url).pathname;
const filled = (name: string) =>
  fillConfigModels(loadExperimentConfig(preset(name)), { baseUrl: "http://127.0.0.1:8000/v1", model: "qwen" });

describe("the paper presets", () => {
  it("end-to-end.yaml resolves to the paper's protocol", () => {
    const config = filled("end-to-end") as EndToEndConfig;
    expect(() => checkConfigAgents(config, "simdesk")).not.toThrow();
    const conditions = endToEndConditions(config);
    expect(conditions.map((c) => c.id)).toEqual([
      "model.no-recovery",
      "model.max-rec-1",
      "model.max-rec-3",
      "model.max-rec-5",
    ]);
    for (const c of conditions) {
      expect(resolveRecoveryOptions(c.options)).toMatchObject({
        maxForwardSteps: 50,
        minConfidence: 0,
        transition: "short",
        unconfirmedRestoration: "claim-recovered",
        recoveryBudget: 10,
        freezeWindow: 5,
        recoveryStep: "llm",
        recoveryContext: "contextualized",
      });
    }
    const pair = config.pairs[0];
    expect(pair.detector).toMatchObject({ kind: "model", stance: "neutral" });
    expect(pair.summarizer).toMatchObject({ historyImages: 50 });
    expect(pair.recovery).toMatchObject({ historyImages: 50, maxTokens: "paper" });
    expect(pair.forward).toMatchObject({ maxTokens: "paper" });
    // the detector judges the DONE step too (B.2: once per forward step)
    for (const c of conditions) expect(resolveRecoveryOptions(c.options)).toMatchObject({ detectDone: true });
    expect(resolveRecoveryOptions({})).toMatchObject({ detectDone: false });
  });

  it("maxTokens: paper resolves to the paper's budget for the models it names (B.2) and to the agent's default otherwise", () => {
    expect(maxTokensOf({ maxTokens: "paper", model: "meituan/EvoCUA-32B" })).toBe(32768);
    expect(maxTokensOf({ maxTokens: "paper", model: "Qwen/Qwen3.5-9B-Thinking" })).toBe(3000);
    expect(maxTokensOf({ maxTokens: "paper", model: "ByteDance-Seed/UI-TARS-1.5-7B" })).toBe(500);
    expect(maxTokensOf({ maxTokens: "paper", model: "gpt-4o" })).toBeUndefined();
    expect(maxTokensOf({ maxTokens: 1234, model: "EvoCUA" })).toBe(1234);
    expect(maxTokensOf({})).toBeUndefined();
  });

  it("ideal-recovery.yaml runs 50 forward steps", () => {
    const config = filled("ideal-recovery");
    expect(resolveRecoveryOptions(config.options)).toMatchObject({ maxForwardSteps: 50, minConfidence: 0 });
  });

  it("recovery-eval.yaml shows the recoverer and the summarizer every screenshot of their history", () => {
    const raw = parseYaml(readFileSync(preset("recovery-eval"), "utf8")) as {
      eval: { recoverers: Array<{ agent: { historyImages?: number } }>; summarizer: { historyImages?: number } };
    };
    expect(raw.eval.recoverers.every((r) => r.agent.historyImages === 50)).toBe(true);
    expect(raw.eval.summarizer.historyImages).toBe(50);
    // implicit recovery sees the full history (A.2), not the forward agent's 3-screenshot window
    expect((raw.eval as { implicitHistoryImages?: number }).implicitHistoryImages).toBe(50);
  });

  it("end-to-end-variants.yaml runs retrace's variants beside the paper's defaults, one baseline for both", () => {
    const config = filled("end-to-end-variants") as EndToEndConfig;
    expect(() => checkConfigAgents(config, "simdesk")).not.toThrow();
    const conditions = endToEndConditions(config);
    expect(conditions.map((c) => c.id)).toEqual([
      "paper.no-recovery",
      "paper.max-rec-1",
      "paper.max-rec-3",
      "paper.max-rec-5",
      "retrace.max-rec-1",
      "retrace.max-rec-3",
      "retrace.max-rec-5",
    ]);
    const options = (id: string) => resolveRecoveryOptions(conditions.find((c) => c.id === id)!.options);
    expect(options("paper.max-rec-3")).toMatchObject({
      minConfidence: 0,
      transition: "short",
      unconfirmedRestoration: "claim-recovered",
      maxForwardSteps: 50,
      maxRecoveryIterations: 3,
    });
    expect(options("retrace.max-rec-3")).toMatchObject({
      minConfidence: 0.5,
      transition: "detailed",
      unconfirmedRestoration: "disclose-and-keep",
      maxForwardSteps: 50,
      maxRecoveryIterations: 3,
    });
    // a pair's options override only what they name: the config's options hold for the rest
    for (const c of conditions)
      expect(resolveRecoveryOptions(c.options)).toMatchObject({
        recoveryStep: "llm",
        recoveryContext: "contextualized",
        detection: "sequential",
        recoveryBudget: 10,
      });
    expect(config.pairs[1].options).toEqual({
      minConfidence: 0.5,
      transition: "detailed",
      unconfirmedRestoration: "disclose-and-keep",
    });
    expect(config.pairs.map((p) => (p.detector as { stance?: string }).stance)).toEqual(["neutral", "cautious"]);
  });

  it("an experiment config without unconfirmedRestoration runs the paper's claim-recovered (the library defaults to disclose-and-keep)", () => {
    const config = loadExperimentConfig(
      new URL("../../../experiments/configs/end-to-end.yaml", import.meta.url).pathname,
    ) as EndToEndConfig;
    const conditions = endToEndConditions(config);
    expect(conditions.length).toBeGreaterThan(0);
    for (const c of conditions)
      expect(resolveRecoveryOptions(c.options).unconfirmedRestoration).toBe("claim-recovered");
    // A config with no options at all runs the paper's too.
    const { options: _o, ...bare } = parseYaml(
      readFileSync(new URL("../../../experiments/configs/end-to-end.yaml", import.meta.url).pathname, "utf8"),
    ) as Record<string, unknown>;
    for (const c of endToEndConditions(parseExperimentConfig(bare) as EndToEndConfig))
      expect(resolveRecoveryOptions(c.options).unconfirmedRestoration).toBe("claim-recovered");
    expect(resolveRecoveryOptions({}).unconfirmedRestoration).toBe("disclose-and-keep");
  });

  it("rejects a stance outside the detector, and pair options that belong to the config or the condition", () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-presets-"));
    const base = parseYaml(readFileSync(preset("end-to-end"), "utf8")) as Record<string, any>;
    const write = (patch: (c: Record<string, any>) => void) => {
      const c = structuredClone(base);
      patch(c);
      const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(c));
      return file;
    };
    const stanceOnForward = fillConfigModels(
      loadExperimentConfig(write((c) => (c.pairs[0].forward.stance = "cautious"))),
      { baseUrl: "http://127.0.0.1:8000/v1", model: "q" },
    );
    expect(() => checkConfigAgents(stanceOnForward, "simdesk")).toThrow(/forward\.stance: stance is a detector option/);
    expect(() => loadExperimentConfig(write((c) => (c.pairs[0].options = { settleMs: 5 })))).toThrow(/settleMs/);
    expect(() => loadExperimentConfig(write((c) => (c.pairs[0].options = { transition: "long" })))).toThrow(
      /transition/,
    );
  });
});
