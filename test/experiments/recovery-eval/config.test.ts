import { describe, expect, it } from "vitest";
import { loadRecoveryEvalConfig, parseRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { loadExperimentConfig } from "../../../experiments/config/load.ts";

const PRESET = "experiments/configs/models/recovery-eval.yaml";
const base = {
  kind: "recovery-eval",
  name: "t",
  dataset: { forward: { kind: "model" }, perturber: { kind: "model" } },
};

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("recovery-eval config", () => {
  it("the preset has the paper's grid (r 1/3/10, d 1/5, N = 3, four contexts) and --base-url/--model fill every model agent", () => {
    const c = loadRecoveryEvalConfig(PRESET, { baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKeyEnv: "MY_KEY" });
    expect(c.eval.recoveryBudget).toEqual([1, 3, 10]);
    expect(c.dataset.distances).toEqual([1, 5]);
    expect(c.dataset.replays).toBe(3);
    expect(c.eval.recoverers[0].contexts).toEqual(["0-E", "0-R", "none", "contextualized"]);
    for (const spec of [
      c.dataset.forward,
      c.dataset.perturber,
      c.dataset.verifier!,
      c.eval.recoverers[0].agent,
      c.eval.summarizer!,
    ]) {
      expect(spec).toMatchObject({
        kind: "model",
        baseUrl: "http://127.0.0.1:9/v1",
        model: "m",
        apiKeyEnv: "MY_KEY",
        timeoutMs: 60_000,
        maxRetries: 2,
      });
    }
  });

  it("a field set in the config wins over the fill-in", () => {
    const c = parseRecoveryEvalConfig(
      { ...base, dataset: { ...base.dataset, perturber: { kind: "model", model: "small" } } },
      "c",
      { model: "big" },
    );
    expect(c.dataset.forward).toMatchObject({ model: "big" });
    expect(c.dataset.perturber).toMatchObject({ model: "small" });
  });

  it("names the path of a bad field", () => {
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig(
          { ...base, dataset: { ...base.dataset, forward: { kind: "model", maxTokens: 0 } } },
          "c.yaml",
          { model: "m" },
        ),
      ).message,
    ).toMatch(/^c\.yaml\.dataset\.forward\.maxTokens: /);
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig(
          { ...base, eval: { recoverers: [{ name: "r", agent: { kind: "model" }, contexts: ["0-X"] }] } },
          "c.yaml",
          { model: "m" },
        ),
      ).message,
    ).toMatch(/^c\.yaml\.eval\.recoverers\.0\.contexts\.0: /);
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig(
          { ...base, eval: { recoverers: [{ name: "r", agent: { kind: "model" } }] } },
          "c.yaml",
          { model: "m" },
        ),
      ).message,
    ).toMatch(/^c\.yaml\.eval\.summarizer: a recoverer uses the contextualized context/);
    expect(errorOf(() => parseRecoveryEvalConfig(base, "c.yaml")).message).toMatch(
      /^c\.yaml\.dataset\.forward\.model: a model agent needs a model name .*--model/,
    );
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, dataset: { ...base.dataset, verify: "verifier" } }, "c.yaml", {
          model: "m",
        }),
      ).message,
    ).toMatch(/dataset\.verifier: verify: verifier needs a verifier agent/);
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, dataset: { ...base.dataset, verifier: { kind: "probe" } } }, "c.yaml", {
          model: "m",
        }),
      ).message,
    ).toMatch(/^c\.yaml\.dataset\.verifier\.kind: probe verifiers are not wired into the recovery evaluation yet/);
  });

  it("--env replaces the environment (and drops tasks of another one); simulated agents are refused off SimDesk", () => {
    const c = parseRecoveryEvalConfig(
      { ...base, env: { kind: "simdesk", tasks: ["files-trash-menu"], limit: 2 } },
      "c",
      { env: "x11", model: "m" },
    );
    expect(c.env).toMatchObject({ kind: "x11", limit: 2 });
    expect(c.env.tasks).toBeUndefined();
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, dataset: { forward: { kind: "sim" }, perturber: { kind: "model" } } }, "c", {
          env: "x11",
          model: "m",
        }),
      ).message,
    ).toMatch(/^c\.dataset\.forward: simulated agents .* cannot run on env "x11"/);
    expect(errorOf(() => parseRecoveryEvalConfig(base, "c", { env: "moon" })).message).toMatch(
      /^--env: "moon" is not one of simdesk, x11, docker, osworld/,
    );
  });

  it("env kind osworld takes a task folder and a provider (local or an OSWorld VM image); other kinds refuse them", () => {
    const c = parseRecoveryEvalConfig(
      { ...base, env: { kind: "osworld", tasksDir: "/tmp/tasks", provider: { vm: "/vm/Ubuntu.qcow2" } } },
      "c",
      { model: "m" },
    );
    expect(c.env).toMatchObject({ kind: "osworld", tasksDir: "/tmp/tasks", provider: { vm: "/vm/Ubuntu.qcow2" } });
    expect(
      parseRecoveryEvalConfig({ ...base, env: { kind: "osworld", provider: "local" } }, "c", { model: "m" }).env
        .provider,
    ).toBe("local");
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, env: { kind: "x11", tasksDir: "/tmp/tasks" } }, "c", { model: "m" }),
      ).message,
    ).toMatch(/^c\.env\.tasksDir: only env kind osworld takes tasksDir/);
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, env: { kind: "osworld", provider: "cloud" } }, "c", { model: "m" }),
      ).message,
    ).toMatch(/^c\.env\.provider: /);
    // --env switching away from osworld drops its folder and provider
    expect(
      parseRecoveryEvalConfig({ ...base, env: { kind: "osworld", tasksDir: "/tmp/tasks", provider: "local" } }, "c", {
        env: "x11",
        model: "m",
      }).env,
    ).not.toHaveProperty("tasksDir");
  });

  it("env kind osworld takes an OSWorld checkout for its Python evaluators (osworldPath, python); other kinds refuse them, --env drops them", () => {
    const c = parseRecoveryEvalConfig(
      { ...base, env: { kind: "osworld", osworldPath: "/opt/OSWorld", python: "/opt/venv/bin/python" } },
      "c",
      { model: "m" },
    );
    expect(c.env).toMatchObject({ osworldPath: "/opt/OSWorld", python: "/opt/venv/bin/python" });
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, env: { kind: "simdesk", osworldPath: "/opt/OSWorld" } }, "c", {
          model: "m",
        }),
      ).message,
    ).toMatch(/^c\.env\.osworldPath: only env kind osworld takes osworldPath/);
    expect(
      parseRecoveryEvalConfig({ ...base, env: { kind: "osworld", osworldPath: "/opt/OSWorld", python: "py" } }, "c", {
        env: "x11",
        model: "m",
      }).env,
    ).not.toHaveProperty("osworldPath");
  });

  it("takes a model judge (eval.judge) for the oracle study and refuses a simulated one", () => {
    const c = parseRecoveryEvalConfig({ ...base, eval: { judge: { kind: "model", temperature: 0 } } }, "c", {
      baseUrl: "http://127.0.0.1:9/v1",
      model: "m",
    });
    expect(c.eval.judge).toMatchObject({ kind: "model", model: "m", baseUrl: "http://127.0.0.1:9/v1", temperature: 0 });
    expect(
      errorOf(() => parseRecoveryEvalConfig({ ...base, eval: { judge: { kind: "sim" } } }, "c", { model: "m" }))
        .message,
    ).toBe("c.eval.judge.kind: the judge is a chat model; use kind: model");
    expect(
      errorOf(() =>
        parseRecoveryEvalConfig({ ...base, eval: { judge: { kind: "model", temperature: 7 } } }, "c", { model: "m" }),
      ).message,
    ).toMatch(/^c\.eval\.judge\.temperature: /);
  });

  it("retrace run points a recovery-eval config to the commands that run it", () => {
    expect(errorOf(() => loadExperimentConfig(PRESET)).message).toMatch(
      /\.kind: a recovery-eval config runs with `retrace dataset build --config .*` then `retrace eval-recovery --config .* --dataset DIR`/,
    );
  });
});
