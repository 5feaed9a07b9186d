/**
 * Experiment configs take the detection preset: `detector: { preset, model }` is an agent kind of its own,
 * a paper pair and a production pair compare in one run through the runner against the stand-in behind a
 * recording proxy, the bench line's stand-in config validates, and the production preset's cap and budget
 * fill only what neither the pair nor the config sets. The other paths: detection-preset-paths.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createAgent, validateAgentSpec } from "../../../experiments/agents/registry.ts";
import { AgentSpecSchema } from "../../../experiments/agents/spec.ts";
import { checkConfigAgents, configAgents, fillConfigModels } from "../../../experiments/config/agents.ts";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runExperiment } from "../../../experiments/runner/experiment.ts";
import { endToEndConditions, sweepConditions } from "../../../experiments/runner/conditions.ts";
import type { EndToEndConfig, SweepConfig } from "../../../experiments/config/schema.ts";
import { RecoveryOptionsSchema } from "../../../packages/core/src/episode.ts";
import { createSimDeskRuntime } from "../../../experiments/runtime/simdesk.ts";
import { benchConfig } from "../../../experiments/bench/token-overhead.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { tempBlobs } from "./fixtures.ts";
import { judgeBodies, proxy, standIn, userParts, useStandInBehindProxy } from "./detection-preset-fixtures.ts";

useStandInBehindProxy();

describe("every path takes the preset", () => {
  it("experiment configs: `detector: { preset, model }` is a kind of its own, with its judge's model spec", async () => {
    const spec = AgentSpecSchema.parse({
      preset: "production",
      model: { model: "retrace-stand-in", baseUrl: standIn.url, observation: "a11y_tree" },
      historySteps: 2,
    });
    expect(spec.kind).toBe("preset");
    validateAgentSpec("detector", spec, "config.pairs.0.detector");
    const blobs = tempBlobs();
    const d = createAgent("detector", spec, { blobs } as never);
    expect(d.name).toContain("cascade(");
    expect(() =>
      validateAgentSpec(
        "detector",
        { kind: "preset", preset: "paper", historySteps: 3, model: { model: "m", baseUrl: standIn.url } },
        "config.pairs.0.detector",
      ),
    ).toThrow(/^config\.pairs\.0\.detector\.historySteps: only the production preset takes "historySteps"/);
    expect(() =>
      validateAgentSpec(
        "detector",
        { kind: "preset", preset: "production", model: { model: "m", baseUrl: standIn.url, temperature: 9 } },
        "config.pairs.0.detector",
      ),
    ).toThrow(ConfigError);
    expect(() =>
      validateAgentSpec(
        "forward",
        { kind: "preset", preset: "production", model: { model: "m" } },
        "config.pairs.0.forward",
      ),
    ).toThrow(/forward.*kind: preset cannot be a forward/);
  });

  it("experiment configs: a paper pair and a production pair compare in one run through the runner", async () => {
    const judgeSpec = { model: "retrace-stand-in", observation: "a11y_tree", temperature: 0.7 };
    const pair = (name: string, preset: string) => ({
      name,
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { preset, model: judgeSpec },
      ...(name === "production" ? { baseline: false } : { maxRecoveryIterations: [2] }),
    });
    const c = fillConfigModels(
      parseExperimentConfig({
        kind: "end-to-end",
        name: "preset-test",
        env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
        seeds: { count: 1 },
        options: { maxForwardSteps: 15 },
        pairs: [pair("paper", "paper"), pair("production", "production")],
      }),
      { baseUrl: proxy.url },
    );
    expect(configAgents(c).find((a) => a.path === "config.pairs.1.detector.model")?.spec).toMatchObject({
      kind: "model",
      baseUrl: proxy.url,
    });
    checkConfigAgents(c, "simdesk");
    const dir = mkdtempSync(join(tmpdir(), "retrace-preset-run-"));
    try {
      const from = proxy.bodies.length;
      const run = await runExperiment(c, createSimDeskRuntime(), { out: join(dir, "run"), workers: 1 });
      expect(run.lines.map((l) => l.condition).sort()).toEqual([
        "paper.max-rec-2",
        "paper.max-rec-2",
        "paper.no-recovery",
        "paper.no-recovery",
        "production.max-rec-1",
        "production.max-rec-1",
      ]);
      const lines = (cond: string) => run.lines.filter((l) => l.condition === cond);
      const calls = (cond: string) => lines(cond).reduce((s, l) => s + (l.models?.detector?.calls ?? 0), 0);
      const steps = (cond: string) => lines(cond).reduce((s, l) => s + l.forwardSteps, 0);
      expect(calls("production.max-rec-1")).toBeGreaterThan(0);
      expect(calls("production.max-rec-1")).toBeLessThan(steps("production.max-rec-1"));
      const bodies = judgeBodies(from);
      const prod = bodies.filter((b) => userParts(b)[0].text.includes("Below is each step's action, oldest first"));
      expect(prod).toHaveLength(calls("production.max-rec-1"));
      expect(bodies.length - prod.length).toBe(calls("paper.max-rec-2"));
      const text = prod
        .map((b) =>
          userParts(b)
            .map((p) => p.text ?? "")
            .join("\n"),
        )
        .join("\n");
      expect(text).toContain("(changed lines of the accessibility tree):");
      expect(text).not.toContain("Accessibility tree:\n"); // no full tree in the production judge's requests
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the shipped stand-in config of the bench line validates, both presets with the judge filled from --base-url", () => {
    const c = fillConfigModels(parseExperimentConfig(benchConfig(48)), { baseUrl: standIn.url });
    checkConfigAgents(c, "simdesk");
    const detectors = configAgents(c).filter((a) => a.role === "detector");
    expect(detectors.map((a) => [a.path, a.spec.kind])).toEqual([
      ["config.pairs.0.detector", "preset"],
      ["config.pairs.0.detector.model", "model"],
      ["config.pairs.1.detector", "preset"],
      ["config.pairs.1.detector.model", "model"],
    ]);
    expect(detectors.map((a) => (a.spec as { preset?: string }).preset)).toEqual([
      "paper",
      undefined,
      "production",
      undefined,
    ]);
  });

  it("experiment configs: the production preset's cap and budget fill only what neither the pair nor the config sets; bad values", () => {
    const judgeSpec = { model: "retrace-stand-in", observation: "a11y_tree" };
    const bare = {
      kind: "end-to-end",
      name: "caps",
      env: { kind: "simdesk", tasks: ["files-rename-folder"] },
      seeds: [0],
    };
    const base = { ...bare, maxRecoveryIterations: [3], options: { recoveryBudget: 10 } };
    const pair = (name: string, extra: object) => ({
      name,
      forward: { kind: "sim" },
      recovery: { kind: "sim" },
      baseline: false,
      ...extra,
    });
    // each condition's options as the runtime resolves them (what the user did not set is the runtime's default)
    const resolved = (o: object) => RecoveryOptionsSchema.parse(o);
    const idsOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map((c) => [
        c.id,
        resolved(c.options).maxRecoveryIterations,
        resolved(c.options).recoveryBudget,
      ]);
    const ids = (pairs: object[]) => idsOf(base, pairs);
    const paper = { preset: "paper", model: judgeSpec };
    const prod = { preset: "production", model: judgeSpec };
    // nothing set by the user: the recipe for production, the runtime's default (the paper's) otherwise
    expect(idsOf(bare, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      ["a.max-rec-1", 1, 10],
      ["a.max-rec-3", 3, 10],
      ["a.max-rec-5", 5, 10],
      ["b.max-rec-1", 1, 5],
    ]);
    // the config's explicit global caps and budget win over the recipe, for every pair
    expect(ids([pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      ["a.max-rec-3", 3, 10],
      ["b.max-rec-3", 3, 10],
    ]);
    expect(idsOf({ ...bare, maxRecoveryIterations: [1, 3, 5] }, [pair("b", { detector: prod })])).toEqual([
      ["b.max-rec-1", 1, 5],
      ["b.max-rec-3", 3, 5],
      ["b.max-rec-5", 5, 5],
    ]);
    expect(idsOf({ ...bare, options: { recoveryBudget: 7 } }, [pair("b", { detector: prod })])).toEqual([
      ["b.max-rec-1", 1, 7],
    ]);
    // the pair's own (its list, its options, its detector spec's fields) win over the config's
    expect(ids([pair("b", { detector: { ...prod, maxRecoveryIterations: 2, recoveryBudget: 6 } })])).toEqual([
      ["b.max-rec-2", 2, 6],
    ]);
    expect(ids([pair("b", { detector: prod, maxRecoveryIterations: [1, 5], options: { recoveryBudget: 8 } })])).toEqual(
      [
        ["b.max-rec-1", 1, 8],
        ["b.max-rec-5", 5, 8],
      ],
    );
    expect(ids([pair("c", { maxRecoveryIterations: [1] })])).toEqual([["c.max-rec-1", 1, 10]]);
    // a sweep: the caps are its axis; the budget as above
    const sweep = (options: object) =>
      sweepConditions(
        parseExperimentConfig({
          ...bare,
          kind: "sweep",
          pair: pair("s", { detector: prod }),
          params: { freezeWindow: [5] },
          maxRecoveryIterations: [1],
          baseline: false,
          options,
        }) as SweepConfig,
      ).map((c) => resolved(c.options).recoveryBudget);
    expect(sweep({})).toEqual([5]);
    expect(
      sweepConditions(
        parseExperimentConfig({
          ...bare,
          kind: "sweep",
          pair: pair("s", { detector: paper }),
          params: { freezeWindow: [5] },
          maxRecoveryIterations: [1],
          baseline: false,
        }) as SweepConfig,
      ).map((c) => resolved(c.options).recoveryBudget),
    ).toEqual([10]);
    expect(sweep({ recoveryBudget: 9 })).toEqual([9]);
    // the repeat check: the production recipe stops a repeating attempt unless the config or the pair says otherwise
    const repeatOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map(
        (c) => resolved(c.options).onRecoveryRepeat,
      );
    expect(repeatOf(base, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      "continue",
      "stop",
    ]);
    expect(repeatOf({ ...base, options: { onRecoveryRepeat: "continue" } }, [pair("b", { detector: prod })])).toEqual([
      "continue",
    ]);
    expect(repeatOf(base, [pair("a", { detector: paper, options: { onRecoveryRepeat: "stop" } })])).toEqual(["stop"]);
    const stuckOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map(
        (c) => resolved(c.options).onStuck,
      );
    expect(stuckOf(base, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      "continue",
      "stop",
    ]);
    expect(stuckOf({ ...base, options: { onStuck: "continue" } }, [pair("b", { detector: prod })])).toEqual([
      "continue",
    ]);
    expect(stuckOf(base, [pair("a", { detector: paper, options: { onStuck: "stop" } })])).toEqual(["stop"]);
    expect(() => parseExperimentConfig({ ...base, pairs: [pair("c", { maxRecoveryIterations: [0] })] })).toThrow(
      /pairs\.0\.maxRecoveryIterations\.0/,
    );
    expect(() => parseExperimentConfig({ ...base, pairs: [pair("c", { maxRecoveryIterations: [1, 1] })] })).toThrow(
      /pairs\.0\.maxRecoveryIterations/,
    );
  });
});
