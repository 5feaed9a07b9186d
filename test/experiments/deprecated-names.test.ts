/**
 * Old knob names (issue 42): the sweep's `retryCap` / `--retry-cap` (now `maxRecoveryIterations` /
 * `--max-recovery-iterations`) and the recovery evaluation's `eval.budgets` / `--budgets` (now
 * `eval.recoveryBudget` / `--recovery-budget`) still work for one release; each warns once per
 * process, in one line naming the old and the new name (through the logger in library code, as
 * plain text on stderr in the CLI).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadExperimentConfig, parseExperimentConfig } from "../../experiments/config/load.ts";
import type { SweepConfig } from "../../experiments/config/schema.ts";
import { sweepConfigFrom } from "../../experiments/commands/sweep.ts";
import { resetDeprecationWarnings, setDeprecationSink } from "../../packages/core/src/deprecation.ts";
import { recoveryBudgetFlag } from "../../experiments/commands/eval-recovery.ts";
import { evaluateRecovery } from "../../packages/evaluation/src/eval/run.ts";
import { parseRecoveryEvalConfig } from "../../experiments/recovery-eval/config.ts";
import { cli } from "./helpers/corpus.ts";

const pair = { name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } };
const SWEEP = {
  kind: "sweep",
  name: "s",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  pair,
  params: { freezeWindow: [0] },
  baseline: false,
  options: { maxForwardSteps: 6 },
};
const lines: string[] = [];
afterEach(() => {
  lines.length = 0;
  resetDeprecationWarnings();
  setDeprecationSink();
});

describe("the sweep config's old field retryCap", () => {
  it("still sets max recovery iterations and warns once", () => {
    setDeprecationSink((m) => lines.push(m));
    const a = parseExperimentConfig({ ...SWEEP, retryCap: [2, 4] }, "sweep.yaml") as SweepConfig;
    const b = parseExperimentConfig({ ...SWEEP, retryCap: [1] }, "other.yaml") as SweepConfig;
    expect(a.maxRecoveryIterations).toEqual([2, 4]);
    expect(b.maxRecoveryIterations).toEqual([1]);
    expect("retryCap" in a).toBe(false);
    expect(lines).toEqual([
      'sweep.yaml: "retryCap" is deprecated, use "maxRecoveryIterations" (the old name is accepted until the next release)',
    ]);
  });

  it("works in a YAML file, and its values are checked under the new name", () => {
    setDeprecationSink((m) => lines.push(m));
    const dir = mkdtempSync(join(tmpdir(), "retrace-deprecated-"));
    const file = join(dir, "old.yaml");
    writeFileSync(
      file,
      `kind: sweep\nname: old\npair: { name: a, forward: { kind: sim } }\nparams: { freezeWindow: [0, 3] }\nretryCap: [1, 3]\n`,
    );
    expect((loadExperimentConfig(file) as SweepConfig).maxRecoveryIterations).toEqual([1, 3]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('old.yaml: "retryCap" is deprecated, use "maxRecoveryIterations"');
    writeFileSync(
      file,
      `kind: sweep\nname: old\npair: { name: a, forward: { kind: sim } }\nparams: { freezeWindow: [0] }\nretryCap: [3, 3]\n`,
    );
    expect(() => loadExperimentConfig(file)).toThrow(
      /old\.yaml\.maxRecoveryIterations: max recovery iterations 3 is listed twice/,
    );
  });

  it("with the new name beside it is refused in one line", () => {
    setDeprecationSink((m) => lines.push(m));
    expect(() => parseExperimentConfig({ ...SWEEP, retryCap: [1], maxRecoveryIterations: [3] }, "both.yaml")).toThrow(
      /^both\.yaml: give "maxRecoveryIterations" only \("retryCap" is its deprecated name; both were given\)$/,
    );
  });

  it("is not renamed in an end-to-end config (which never had it)", () => {
    const e2e = { kind: "end-to-end", name: "e", pairs: [pair], retryCap: [1] };
    expect(() => parseExperimentConfig(e2e, "e2e.yaml")).toThrow(/e2e\.yaml: unknown field\(s\) "retryCap"/);
  });
});

describe("the sweep flag --retry-cap", () => {
  it("sets max recovery iterations like --max-recovery-iterations, warning once", () => {
    setDeprecationSink((m) => lines.push(m));
    const base = parseExperimentConfig(SWEEP);
    const old = sweepConfigFrom(base, { param: [], retryCap: "1,5" }) as SweepConfig;
    const now = sweepConfigFrom(base, { param: [], maxRecoveryIterations: "1,5" }) as SweepConfig;
    expect(old.maxRecoveryIterations).toEqual([1, 5]);
    expect(now).toEqual(old);
    sweepConfigFrom(base, { param: [], retryCap: "2" });
    expect(lines).toEqual([
      'retrace sweep: "--retry-cap" is deprecated, use "--max-recovery-iterations" (the old name is accepted until the next release)',
    ]);
    expect(() => sweepConfigFrom(base, { param: [], retryCap: "1", maxRecoveryIterations: "3" })).toThrow(
      /^sweep: give --max-recovery-iterations only/,
    );
  });

  it("in the CLI: the run uses the old names' values and stderr has one plain warning line per old name, once per process", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-deprecated-cli-"));
    writeFileSync(join(dir, "old.json"), JSON.stringify({ ...SWEEP, retryCap: [1] }));
    const first = await cli([
      "sweep",
      join(dir, "old.json"),
      "--retry-cap",
      "2",
      "-w",
      "1",
      "-q",
      "-o",
      join(dir, "a"),
    ]);
    expect(first.code).toBe(0);
    const warnings = first.stderr.split("\n").filter((l) => l.includes("deprecated"));
    expect(warnings).toEqual([
      `retrace: warning: ${join(dir, "old.json")}: "retryCap" is deprecated, use "maxRecoveryIterations" (the old name is accepted until the next release)`,
      'retrace: warning: retrace sweep: "--retry-cap" is deprecated, use "--max-recovery-iterations" (the old name is accepted until the next release)',
    ]);
    const conditions = readFileSync(join(dir, "a", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { condition: string }).condition);
    expect([...new Set(conditions)]).toEqual(["freezeWindow=0,maxRecoveryIterations=2"]);
    const again = await cli([
      "sweep",
      join(dir, "old.json"),
      "--retry-cap",
      "2",
      "-w",
      "1",
      "-q",
      "-o",
      join(dir, "b"),
    ]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("deprecated");
  }, 120_000);
});

describe("the recovery evaluation's old names eval.budgets and --budgets", () => {
  const base = {
    kind: "recovery-eval",
    name: "t",
    dataset: { forward: { kind: "model" }, perturber: { kind: "model" } },
  };

  it("eval.budgets still sets the recovery budgets and warns once", () => {
    setDeprecationSink((m) => lines.push(m));
    const c = parseRecoveryEvalConfig({ ...base, eval: { budgets: [2, 4] } }, "c.yaml", { model: "m" });
    expect(c.eval.recoveryBudget).toEqual([2, 4]);
    expect("budgets" in c.eval).toBe(false);
    parseRecoveryEvalConfig({ ...base, eval: { budgets: [1] } }, "d.yaml", { model: "m" });
    expect(lines).toEqual([
      'c.yaml.eval: "budgets" is deprecated, use "recoveryBudget" (the old name is accepted until the next release)',
    ]);
    expect(() =>
      parseRecoveryEvalConfig({ ...base, eval: { budgets: [1], recoveryBudget: [3] } }, "e.yaml", { model: "m" }),
    ).toThrow(/^e\.yaml\.eval: give "recoveryBudget" only/);
    expect(() => parseRecoveryEvalConfig({ ...base, eval: { budgets: [0] } }, "f.yaml", { model: "m" })).toThrow(
      /^f\.yaml\.eval\.recoveryBudget\.0: /,
    );
  });

  it("--budgets still sets the recovery budgets and warns once; the default is 1,3,10", () => {
    setDeprecationSink((m) => lines.push(m));
    expect(recoveryBudgetFlag({ budgets: "1,3" })).toBe("1,3");
    expect(recoveryBudgetFlag({ budgets: "2" })).toBe("2");
    expect(recoveryBudgetFlag({ recoveryBudget: "5" })).toBe("5");
    expect(recoveryBudgetFlag({})).toBe("1,3,10");
    expect(lines).toEqual([
      'retrace eval-recovery: "--budgets" is deprecated, use "--recovery-budget" (the old name is accepted until the next release)',
    ]);
    expect(() => recoveryBudgetFlag({ budgets: "1", recoveryBudget: "3" })).toThrow(
      /^eval-recovery: give --recovery-budget only/,
    );
  });

  it("in the CLI: --budgets warns on stderr as one plain line, and its value is checked as --recovery-budget", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-deprecated-eval-"));
    const r = await cli(["eval-recovery", "--dataset", join(dir, "nope"), "--budgets", "a,b", "-o", join(dir, "out")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      'retrace: warning: retrace eval-recovery: "--budgets" is deprecated, use "--recovery-budget" (the old name is accepted until the next release)',
      expect.stringMatching(/^retrace: --recovery-budget: /),
    ]);
  });
});

describe("evaluateRecovery's old option budgets", () => {
  it("reaches the recovery budget's check under its new name and warns once", async () => {
    setDeprecationSink((m) => lines.push(m));
    const none = { env: {} as never, blobs: {} as never, tasks: new Map(), samples: [], variants: [] };
    await expect(evaluateRecovery({ ...none, budgets: [0] })).rejects.toThrow(
      /^eval-recovery: recovery budget 0 must be a positive integer$/,
    );
    await expect(evaluateRecovery({ ...none, recoveryBudget: [0] })).rejects.toThrow(/recovery budget 0/);
    expect(lines).toEqual([
      'evaluateRecovery: "budgets" is deprecated, use "recoveryBudget" (the old name is accepted until the next release)',
    ]);
  });
});
