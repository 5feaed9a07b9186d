/**
 * Ideal recovery's two documented choices (docs/paper.md, App. B.1): which failed runs get
 * continuations (`noErrorFound`: the paper excludes only runs whose replay fails, so a run the
 * detector finds no error in continues from E = its last step; `exclude` leaves it out), and what
 * the step budget bounds in a continuation (`continuationBudget`: `from-restore` gives the forward
 * agent its whole budget after R, `total` counts the replayed prefix). Counts land in summary.json.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { readPlan } from "../../experiments/ideal/plan.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-ideal-excl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAX = 8;
const configOf = (name: string, extra: Record<string, unknown>, max = MAX) =>
  parseExperimentConfig({
    kind: "ideal-recovery",
    name,
    env: { kind: "simdesk", limit: 8 },
    seeds: [0, 1, 2],
    k: 1,
    strategies: ["error-minus-1"],
    // recall 0.6: the detector misses some failed runs' errors
    forward: { kind: "sim", profile: "sloppy" },
    detector: { kind: "sim", profile: "noisy" },
    options: { maxForwardSteps: max },
    ...extra,
  });

describe("ideal recovery: exclusion rule and continuation budget", () => {
  it("keeps failed runs without a detected error by default (paper) and leaves them out under noErrorFound: exclude, counting both", async () => {
    const paper = await runExperiment(configOf("keep", {}), createSimDeskRuntime(), {
      out: join(dir, "keep"),
      workers: 1,
    });
    const plan = readPlan(join(dir, "keep", "plan.json"))!;
    const undetected = plan.instances.filter((i) => i.fallback);
    expect(undetected.length).toBeGreaterThan(0);
    const continued = (lines: typeof paper.lines) =>
      new Set(lines.filter((l) => l.condition !== "forward").map((l) => `${l.task}/${l.seed}`));
    for (const i of undetected) expect(continued(paper.lines).has(`${i.task}/${i.seed}`)).toBe(true);
    expect(paper.summary.ideal).toMatchObject({
      noErrorFound: "last-step",
      continuationBudget: "from-restore",
      maxForwardSteps: MAX,
      failedRuns: plan.instances.length,
      continued: plan.instances.length,
      exclusions: {
        noErrorFound: { runs: undetected.length, excluded: 0 },
        replayFailed: { continuations: 0, runs: 0 },
      },
    });
    expect(JSON.parse(readFileSync(join(dir, "keep", "summary.json"), "utf8")).ideal).toEqual(paper.summary.ideal);

    const excl = await runExperiment(configOf("exclude", { noErrorFound: "exclude" }), createSimDeskRuntime(), {
      out: join(dir, "exclude"),
      workers: 1,
    });
    for (const i of undetected) expect(continued(excl.lines).has(`${i.task}/${i.seed}`)).toBe(false);
    expect(excl.summary.ideal).toMatchObject({
      noErrorFound: "exclude",
      continued: plan.instances.length - undetected.length,
      exclusions: { noErrorFound: { runs: undetected.length, excluded: undetected.length } },
    });
  }, 180_000);

  it("gives a continuation its whole budget after R (from-restore), or counts the replayed prefix (total)", async () => {
    // 5 steps: shorter than most SimDesk plans, so forward runs fail at max-steps and continuations need room
    const max = 5;
    const fromR = await runExperiment(configOf("from-r", {}, max), createSimDeskRuntime(), {
      out: join(dir, "from-r"),
      workers: 1,
    });
    const total = await runExperiment(configOf("total", { continuationBudget: "total" }, max), createSimDeskRuntime(), {
      out: join(dir, "total"),
      workers: 1,
    });
    const cont = (lines: typeof fromR.lines) => lines.filter((l) => l.condition !== "forward" && l.status === "ok");
    for (const l of cont(total.lines)) expect(l.forwardSteps + Number(l.extra?.recoveryStep)).toBeLessThanOrEqual(max);
    for (const l of cont(fromR.lines)) expect(l.forwardSteps).toBeLessThanOrEqual(max);
    // under from-restore some continuation that resumed after R > 0 ran past `max` steps in all
    expect(
      cont(fromR.lines).some(
        (l) => Number(l.extra?.recoveryStep) > 0 && l.forwardSteps + Number(l.extra?.recoveryStep) > max,
      ),
    ).toBe(true);
    expect(total.summary.ideal?.continuationBudget).toBe("total");
  }, 180_000);
});
