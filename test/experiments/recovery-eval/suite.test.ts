import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRecoveryEvalSuite } from "../../../experiments/recovery-eval/run.ts";

describe("runRecoveryEvalSuite", () => {
  it("writes the dataset, recovery-eval.json and oracle-agreement.json into one folder, the same for the same seed", async () => {
    const out = mkdtempSync(join(tmpdir(), "retrace-suite-"));
    const r = await runRecoveryEvalSuite({ out, limit: 2, seed: 9, recoveryBudget: [1, 3] });
    expect(existsSync(join(out, "dataset", "dataset.json"))).toBe(true);
    const file = JSON.parse(readFileSync(join(out, "recovery-eval.json"), "utf8"));
    expect(file).toEqual(r.report);
    expect(file.samples).toBeGreaterThan(0);
    expect(file.table.length).toBe(6 * 2 * file.datasetStages.filter((s: { final: number }) => s.final > 0).length);
    expect(JSON.parse(readFileSync(join(out, "oracle-agreement.json"), "utf8")).agreement).toHaveLength(14); // 2 noise settings x (R_O, R_TC, joint, R_Om, R_Om joint, mean-only R_Om, its joint)
    expect(r.manifest.simulatedLabel).toMatch(/^simulated: sim-forward/);
    const again = await runRecoveryEvalSuite({
      out: mkdtempSync(join(tmpdir(), "retrace-suite-")),
      limit: 2,
      seed: 9,
      recoveryBudget: [1, 3],
    });
    expect(again.report.table).toEqual(r.report.table);
    expect(again.agreement.agreement).toEqual(r.agreement.agreement);
  }, 240_000);
});
