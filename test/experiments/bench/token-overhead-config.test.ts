/**
 * The `recovery-token-overhead` bench line's arms (experiments/configs/stand-in/detection-presets.yaml):
 * the paper arm is the paper's setup untouched (every-step detector, default context for every
 * recovery role); the production arm differs only by the production recipe (docs/cost.md): the
 * production detection preset, the recovery agent's cache-friendly layout and one screenshot for
 * the selector and the summarizer.
 */
import { describe, expect, it } from "vitest";
import { benchConfig } from "../../../experiments/bench/token-overhead.ts";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { ModelAgentSpecSchema, modelRoleProblem } from "../../../experiments/agents/model-spec.ts";
import { endToEndConditions } from "../../../experiments/runner/conditions.ts";
import type { EndToEndConfig } from "../../../experiments/config/schema.ts";
import { PRODUCTION_RECOVERY } from "../../../packages/core/src/runtime/preset-recovery.ts";

describe("recovery-token-overhead config", () => {
  const raw = benchConfig(48);
  const pair = (name: string) => raw.pairs.find((p: { name: string }) => p.name === name);

  it("parses as an experiment config with both arms on the same 144 units", () => {
    const c = parseExperimentConfig(raw, "detection-presets.yaml") as unknown as {
      pairs: Array<{ name: string }>;
      seeds: number[];
    };
    expect(c.pairs.map((p) => p.name)).toEqual(["paper", "production"]);
    expect(raw.env.sample * raw.seeds.length).toBe(144);
  });

  it("takes layout only on the recovery role and the chat formats, with a message naming the field", () => {
    const spec = (extra: Record<string, unknown>) =>
      ModelAgentSpecSchema.parse({ kind: "model", model: "m", ...extra });
    expect(modelRoleProblem("recovery", spec({ format: "pyautogui", layout: "cached" }))).toBeUndefined();
    expect(modelRoleProblem("selector", spec({ layout: "cached" }))).toEqual({
      field: "layout",
      message: expect.stringMatching(/recovery-agent option/),
    });
    expect(
      modelRoleProblem("recovery", spec({ format: "anthropic", observation: "screenshot", layout: "cached" }))?.field,
    ).toBe("layout");
  });

  it("keeps the paper arm the paper's and gives the production arm its recipe, nothing else", () => {
    const paper = pair("paper");
    const prod = pair("production");
    expect(paper.detector.preset).toBe("paper");
    expect(paper.selector.historyImages).toBeUndefined();
    expect(paper.summarizer.historyImages).toBeUndefined();
    expect(prod.detector.preset).toBe("production");
    expect(prod.selector.historyImages).toBe(1);
    expect(prod.summarizer.historyImages).toBe(1);
    expect(paper.recovery.layout).toBeUndefined();
    expect(prod.recovery.layout).toBe("cached");
    // Everything else is the same in both arms.
    // the paper arm pins the paper's cap and budget on its own pair (a global value would override the production
    // recipe)
    expect(paper.maxRecoveryIterations).toEqual([3]);
    expect(paper.options).toEqual({ recoveryBudget: 10 });
    // the production arm discloses an unconfirmed restoration and keeps the history (the library's default; the
    // paper's claim stays on the paper arm: the config's default)
    expect(prod.options).toEqual({ unconfirmedRestoration: "disclose-and-keep" });
    expect(raw.maxRecoveryIterations).toBeUndefined();
    expect(raw.options.recoveryBudget).toBeUndefined();
    const strip = (p: Record<string, any>) => ({
      ...p,
      name: undefined,
      baseline: undefined,
      maxRecoveryIterations: undefined,
      options: undefined,
      detector: { ...p.detector, preset: undefined },
      selector: { ...p.selector, historyImages: undefined },
      recovery: { ...p.recovery, layout: undefined },
      summarizer: { ...p.summarizer, historyImages: undefined },
    });
    expect(strip(prod)).toEqual(strip(paper));
  });

  it("runs the paper arm with exactly the paper's recovery (cap 3, budget 10, the paper's claim) and the production arm with its preset's recipe (cap 1, budget 5, stop a repeating attempt, stop a stuck agent) and a disclosed unconfirmed restoration", () => {
    const c = parseExperimentConfig(raw, "detection-presets.yaml") as EndToEndConfig;
    const conditions = endToEndConditions(c);
    expect(conditions.map((x) => x.id)).toEqual(["paper.no-recovery", "paper.max-rec-3", "production.max-rec-1"]);
    const [bare, paper, prod] = conditions.map((x) => x.options);
    // the paper arm: the config's options plus its own pinned budget 10 and cap 3 (App. B.2, the paper's end-to-end
    // runs)
    expect(paper).toMatchObject(c.options);
    expect(paper).toEqual({ ...bare, maxRecoveryIterations: 3 });
    expect(paper).toMatchObject({
      recoveryBudget: 10,
      maxRecoveryIterations: 3,
      recoveryStep: "llm",
      recoveryContext: "contextualized",
      freezeWindow: 5,
    });
    expect(bare.maxRecoveryIterations).toBe(0);
    // the production arm: the same options but the preset's recovery recipe
    expect(PRODUCTION_RECOVERY).toEqual({
      maxRecoveryIterations: 1,
      recoveryBudget: 5,
      onRecoveryRepeat: "stop",
      onStuck: "stop",
    });
    expect(prod).toEqual({ ...bare, ...PRODUCTION_RECOVERY, unconfirmedRestoration: "disclose-and-keep" });
    expect(paper.unconfirmedRestoration).toBe("claim-recovered");
    // the paper arm runs every recovery attempt until its budget is spent (the runtime's default)
    expect(paper.onRecoveryRepeat).toBeUndefined();
    expect(bare.onRecoveryRepeat).toBeUndefined();
    // ... and runs a stuck agent to the step cap (the runtime's default), where production stops it
    expect(paper.onStuck).toBeUndefined();
    expect(bare.onStuck).toBeUndefined();
    expect(bare.unconfirmedRestoration).toBe("claim-recovered");
  });
});
