/**
 * `settleMs` in the recovery-eval config: the environment's default when left out (OSWorld: the
 * paper's 10 s), an explicit value wins, and the value used is recorded in the dataset manifest
 * (settings.settleMs, config.settleSource) and in recovery-eval.json (settleMs, settleSource).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { parseRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import {
  buildConfiguredDataset,
  recoveryEvalSettle,
  runConfiguredRecoveryEval,
} from "../../../experiments/recovery-eval/models.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-eval-settle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const models = {
  kind: "recovery-eval",
  name: "s",
  dataset: { forward: { kind: "model" }, perturber: { kind: "model" } },
};

describe("settleMs of the recovery evaluation", () => {
  it("defaults per environment (osworld 10 s, others 0); an explicit value wins; a bad one names the field", () => {
    for (const [kind, ms] of [
      ["osworld", 10_000],
      ["x11", 0],
      ["docker", 0],
      ["simdesk", 0],
    ] as const) {
      expect(recoveryEvalSettle(parseRecoveryEvalConfig({ ...models, env: { kind } }, "c", { model: "m" }))).toEqual({
        settleMs: ms,
        source: "environment default",
        env: kind,
      });
    }
    expect(
      recoveryEvalSettle(
        parseRecoveryEvalConfig({ ...models, env: { kind: "osworld" }, settleMs: 0 }, "c", { model: "m" }),
      ),
    ).toEqual({ settleMs: 0, source: "config", env: "osworld" });
    expect(() => parseRecoveryEvalConfig({ ...models, settleMs: -1 }, "c.yaml", { model: "m" })).toThrowError(
      ConfigError,
    );
    expect(() => parseRecoveryEvalConfig({ ...models, settleMs: -1 }, "c.yaml", { model: "m" })).toThrowError(
      /^c\.yaml\.settleMs: /,
    );
  });

  it("records the value used in dataset.json and recovery-eval.json", async () => {
    const config = parseRecoveryEvalConfig({
      kind: "recovery-eval",
      name: "sim",
      env: { kind: "simdesk", tasks: ["files-rename-draft"] },
      settleMs: 5,
      dataset: { forward: { kind: "sim" }, perturber: { kind: "sim" }, replays: 1, seedSteps: 1, distances: [1] },
      eval: {
        recoveryBudget: [1],
        recoverers: [{ name: "r", agent: { kind: "sim", profile: "skilled" }, contexts: ["0-E"] }],
      },
    });
    const ds = join(dir, "ds");
    await buildConfiguredDataset({ config, out: ds, preflight: false });
    const manifest = JSON.parse(readFileSync(join(ds, "dataset.json"), "utf8"));
    expect(manifest.config).toMatchObject({ settleMs: 5, settleSource: "config" });
    const ev = join(dir, "eval");
    const { report } = await runConfiguredRecoveryEval({ config, out: ev, dataset: ds, preflight: false });
    expect(report).toMatchObject({ settleMs: 5, settleSource: "config" });
    expect(JSON.parse(readFileSync(join(ev, "recovery-eval.json"), "utf8"))).toMatchObject({
      settleMs: 5,
      settleSource: "config",
    });
  }, 120_000);
});
