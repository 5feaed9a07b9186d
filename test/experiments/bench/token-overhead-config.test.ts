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

describe("recovery-token-overhead config", () => {
  const raw = benchConfig(48);
  const pair = (name: string) => raw.pairs.find((p: { name: string }) => p.name === name);

  it("parses as an experiment config with both arms on the same 144 units", () => {
    const c = parseExperimentConfig(raw, "detection-presets.yaml") as unknown as { pairs: Array<{ name: string }>; seeds: number[] };
    expect(c.pairs.map((p) => p.name)).toEqual(["paper", "production"]);
    expect(raw.env.sample * raw.seeds.length).toBe(144);
  });

  it("takes layout only on the recovery role and the chat formats, with a message naming the field", () => {
    const spec = (extra: Record<string, unknown>) => ModelAgentSpecSchema.parse({ kind: "model", model: "m", ...extra });
    expect(modelRoleProblem("recovery", spec({ format: "pyautogui", layout: "cached" }))).toBeUndefined();
    expect(modelRoleProblem("selector", spec({ layout: "cached" }))).toEqual({ field: "layout", message: expect.stringMatching(/recovery-agent option/) });
    expect(modelRoleProblem("recovery", spec({ format: "anthropic", observation: "screenshot", layout: "cached" }))?.field).toBe("layout");
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
    const strip = (p: Record<string, any>) => ({ ...p, name: undefined, baseline: undefined, detector: { ...p.detector, preset: undefined }, selector: { ...p.selector, historyImages: undefined }, recovery: { ...p.recovery, layout: undefined }, summarizer: { ...p.summarizer, historyImages: undefined } });
    expect(strip(prod)).toEqual(strip(paper));
  });
});
