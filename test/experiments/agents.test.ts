/**
 * The agent registry (experiments/agents): per-kind, per-role validation with field paths, defaults, the CLI fill-in
 * and the presets.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { createSimDesk, getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { AGENT_ROLES, createAgent, validateAgentSpec, ModelMeter } from "../../experiments/agents/index.ts";
import { checkConfigAgents, configAgents, fillConfigModels, resolvePair } from "../../experiments/config/agents.ts";
import { loadExperimentConfig } from "../../experiments/config/load.ts";

const err = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("agent specs", () => {
  it("validates per kind and role, naming the config field", () => {
    expect(
      validateAgentSpec("detector", { kind: "sim", profile: "noisy", recall: 0.5 }, "config.pairs.0.detector"),
    ).toEqual({ kind: "sim", profile: "noisy", recall: 0.5 });
    expect(validateAgentSpec("forward", { profile: "sloppy" }, "p")).toEqual({ kind: "sim", profile: "sloppy" });
    expect(err(() => validateAgentSpec("detector", { kind: "sim", profile: "nosy" }, "config.pairs.0.detector"))).toBe(
      'config.pairs.0.detector.profile: unknown simulated detector profile "nosy" (one of: default, decent, noisy, perfect)',
    );
    expect(err(() => validateAgentSpec("recovery", { kind: "sim", profile: "weak", skill: 2 }, "c.recovery"))).toBe(
      "c.recovery.skill: Too big: expected number to be <=1",
    );
    expect(err(() => validateAgentSpec("summarizer", { kind: "sim" }, "c.summarizer"))).toBe(
      "c.summarizer.kind: sim cannot be a summarizer (for summarizer: model)",
    );
    expect(err(() => validateAgentSpec("detector", { kind: "model", maxRetries: 99 }, "c.detector"))).toBe(
      "c.detector.maxRetries: Too big: expected number to be <=10",
    );
    expect(err(() => validateAgentSpec("detector", { kind: "model", apiKeyEnv: "my key" }, "c.detector"))).toMatch(
      /^c\.detector\.apiKeyEnv: expected an environment variable name/,
    );
    expect(err(() => validateAgentSpec("detector", { kind: "model", format: "anthropic" }, "c.detector"))).toBe(
      "c.detector.backend: the LLM detector talks to a chat model; use backend: openai (an OpenAI-compatible endpoint) or backend: langchain",
    );
    expect(err(() => validateAgentSpec("forward", "gpt-4o", "c.forward"))).toMatch(
      /^c\.forward: expected an agent spec object/,
    );
    expect(validateAgentSpec("detector", { kind: "model" }, "x")).toMatchObject({
      kind: "model",
      timeoutMs: 60_000,
      maxRetries: 2,
      format: "pyautogui",
    });
  });

  it("builds agents of every kind for their roles", async () => {
    const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-agents-")) });
    const env = createSimDesk({ blobs });
    const task = getSimDeskTask("files-rename-draft");
    const ctx = { task, seed: 1, env, blobs, meter: new ModelMeter() };
    expect(createAgent("forward", { kind: "sim", profile: "careful" }, ctx).simulated).toBe(true);
    expect(createAgent("detector", { kind: "stagnation", k: 4 }, ctx).name).toBe("stagnation(k=4)");
    expect(createAgent("detector", { kind: "loop" }, ctx).simulated).not.toBe(true);
    const llm = createAgent("detector", { kind: "model", model: "m", baseUrl: "http://127.0.0.1:1/v1" }, ctx);
    expect(llm.simulated).not.toBe(true);
    expect(() => createAgent("recovery", { kind: "sim" }, { ...ctx, envKind: "x11" })).toThrow(
      /needs SimDesk's ground truth/,
    );
    expect(createAgent("selector", { kind: "sim" }, { ...ctx, envKind: "x11" }).name).toBe("error-minus-1(x11)");
    expect(createAgent("verifier", { kind: "probe", ignore: ["clock"] }, ctx).name).toBe("probe-verifier");
    expect(() => validateAgentSpec("verifier", { kind: "probe", ignore: "clock" }, "c.verifier")).toThrow(
      /^c\.verifier\.ignore: /,
    );
    expect(AGENT_ROLES).toHaveLength(7);
  });

  it("resolves a pair's defaults: recovery = the forward spec (B.2), JSON roles on the forward endpoint", () => {
    const forward = { kind: "model", format: "uitars", model: "ui-tars", baseUrl: "http://h/v1" };
    const r = resolvePair({ forward });
    expect(r.recovery).toEqual(forward);
    expect(r.detector).toEqual({ kind: "model", model: "ui-tars", baseUrl: "http://h/v1" });
    expect(r.summarizer).toEqual({ kind: "model", model: "ui-tars", baseUrl: "http://h/v1" });
    const cua = resolvePair({ forward: { kind: "model", format: "openai-cua", model: "computer-use-preview" } });
    expect(cua.recovery).toMatchObject({ format: "openai-cua" });
    expect(cua.detector).toEqual({ kind: "sim", profile: "default" });
    expect(resolvePair({ forward: { kind: "sim", profile: "sloppy" } })).toEqual({
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "default" },
      detector: { kind: "sim", profile: "default" },
      selector: { kind: "sim", profile: "default" },
    });
  });

  it("the model presets validate once --base-url and --model fill them, and not before", () => {
    for (const name of ["end-to-end", "ideal-recovery"]) {
      const config = loadExperimentConfig(
        new URL(`../../experiments/configs/models/${name}.yaml`, import.meta.url).pathname,
      );
      expect(err(() => checkConfigAgents(config, "simdesk"))).toMatch(
        /\.model: missing; give the model name in the config or pass --model NAME$/,
      );
      const filled = fillConfigModels(config, {
        baseUrl: "http://127.0.0.1:8000/v1",
        model: "qwen",
        apiKeyEnv: "HOME",
      });
      expect(() => checkConfigAgents(filled, "simdesk")).not.toThrow();
      const agents = configAgents(filled);
      expect(
        agents.every((a) => a.spec.kind === "model" && a.spec.model === "qwen" && a.spec.apiKeyEnv === "HOME"),
      ).toBe(true);
      if (name === "end-to-end")
        expect(agents.map((a) => a.role)).toEqual(["forward", "detector", "selector", "recovery", "summarizer"]);
      if (name === "end-to-end")
        expect(filled.kind === "end-to-end" && filled.options).toMatchObject({
          recoveryStep: "llm",
          recoveryContext: "contextualized",
          recoveryBudget: 10,
          freezeWindow: 5,
        });
    }
  });
});
