/**
 * `detector: { kind: cascade, gates, detector }` from configs: validated up front with the field path, run through the
 * runner on SimDesk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { validateAgentSpec, isSimulatedSpec } from "../../experiments/agents/index.ts";
import {
  allSimulated,
  checkConfigAgents,
  configAgents,
  fillConfigModels,
  usesModels,
} from "../../experiments/config/agents.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";

const out = mkdtempSync(join(tmpdir(), "retrace-cascade-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const config = (detector: unknown) =>
  parseExperimentConfig({
    kind: "end-to-end",
    name: "cascade-test",
    env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
    seeds: { count: 2 },
    maxRecoveryIterations: [2],
    options: { maxForwardSteps: 20 },
    pairs: [
      {
        name: "p",
        forward: { kind: "sim", profile: "sloppy" },
        recovery: { kind: "sim", profile: "skilled" },
        detector,
      },
    ],
  });
const errorOf = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
};

describe("cascade detector kind", () => {
  it("fails up front on a bad gate with the config field path", () => {
    const e = errorOf(() =>
      checkConfigAgents(
        config({ kind: "cascade", gates: [{ kind: "loop" }, { kind: "every-other" }], detector: { kind: "sim" } }),
        "simdesk",
      ),
    );
    expect(e.field).toBe("config.pairs.0.detector.gates.1.kind");
    expect(e.message).toMatch(/^config\.pairs\.0\.detector\.gates\.1\.kind: /);
    expect(e.message).not.toContain("\n");
  });

  it("validates the inner detector recursively, naming its field", () => {
    const e = errorOf(() =>
      checkConfigAgents(config({ kind: "cascade", detector: { kind: "sim", recall: 7 } }), "simdesk"),
    );
    expect(e.field).toBe("config.pairs.0.detector.detector.recall");
    expect(e.message).toMatch(/^config\.pairs\.0\.detector\.detector\.recall: /);
    expect(errorOf(() => validateAgentSpec("detector", { kind: "cascade" }, "d")).field).toBe("d.detector");
    expect(
      errorOf(() =>
        validateAgentSpec(
          "detector",
          { kind: "cascade", detector: { kind: "cascade", detector: { kind: "nope" } } },
          "d",
        ),
      ).field,
    ).toBe("d.detector.detector.kind");
    expect(
      errorOf(() => validateAgentSpec("forward", { kind: "cascade", detector: { kind: "sim" } }, "f")).message,
    ).toMatch(/cascade cannot be a forward/);
  });

  it("is simulated exactly when its inner detector is, and fills --model into a model inner detector", () => {
    expect(isSimulatedSpec({ kind: "cascade", detector: { kind: "sim" } } as { kind: string })).toBe(true);
    expect(isSimulatedSpec({ kind: "cascade", detector: { kind: "loop" } } as { kind: string })).toBe(false);
    const c = config({ kind: "cascade", detector: { kind: "model" } });
    expect(usesModels(c)).toBe(true);
    expect(errorOf(() => checkConfigAgents(c, "simdesk")).field).toBe("config.pairs.0.detector.detector.model");
    const filled = fillConfigModels(c, { model: "m1", baseUrl: "http://127.0.0.1:9/v1" });
    expect(configAgents(filled).find((a) => a.path === "config.pairs.0.detector.detector")?.spec).toMatchObject({
      kind: "model",
      model: "m1",
    });
    expect(() => checkConfigAgents(filled, "simdesk")).not.toThrow();
    expect(allSimulated(config({ kind: "cascade", detector: { kind: "sim" } }))).toBe(true);
  });

  it("runs on SimDesk through the runner and reports gate counters in the results", async () => {
    const c = config({
      kind: "cascade",
      gates: [{ kind: "no-effect" }, { kind: "loop" }, { kind: "every-k", k: 2 }, { kind: "before-done" }],
      detector: { kind: "sim", profile: "decent" },
    });
    checkConfigAgents(c, "simdesk");
    const run = await runExperiment(c, createSimDeskRuntime(), { out: join(out, "run"), workers: 1 });
    const recovering = run.lines.filter((l) => l.condition === "p.max-rec-2");
    expect(recovering).toHaveLength(4);
    for (const l of recovering) {
      expect(l.status).toBe("ok");
      const g = l.detectorGates;
      expect(g, l.key).toBeDefined();
      expect(g!.steps).toBeGreaterThan(0);
      expect(g!.asked).toBeLessThanOrEqual(g!.steps);
      expect(l.detectorCalls).toBeGreaterThan(0);
    }
    const total = (k: string) => recovering.reduce((s, l) => s + (l.detectorGates?.[k] ?? 0), 0);
    expect(total("every-k")).toBeGreaterThan(0);
    expect(total("asked")).toBeLessThan(total("steps"));
    expect(run.summary.simulated).toBe(true);
  });
});
