/**
 * Issue 31: "`eval-recovery` with a model config prints a 'SIMULATED … simulated policies'
 * header." A recovery evaluation whose runs are the config's models (simulated: false) on a
 * dataset that simulated policies built says which part is simulated (SIMULATED_DATASET_NOTE),
 * never that its numbers come from simulated policies; runs of simulated policies keep the
 * SIMULATED note. The dataset and runs are a real (small) simulated evaluation; the model case
 * is the same runs marked as a model's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRecoveryEvalSuite } from "../../../experiments/recovery-eval/run.ts";
import {
  recoveryEvalReport,
  SIMULATED_DATASET_NOTE,
  SIMULATED_RECOVERY_NOTE,
} from "../../../experiments/recovery-eval/report-data.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-sim-dataset-note-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the recovery evaluation's note", () => {
  it("names the simulated dataset, not simulated policies, when the evaluated agents are models", async () => {
    const { manifest, runs } = await runRecoveryEvalSuite({ out: join(dir, "ev"), limit: 1, recoveryBudget: [1] });
    expect(manifest.simulated).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    const input = { manifest, dataset: join(dir, "ev", "dataset"), label: "", recoveryBudget: [1] };
    const simulated = recoveryEvalReport({ ...input, runs });
    expect(simulated).toMatchObject({ simulated: true, note: SIMULATED_RECOVERY_NOTE });
    const models = recoveryEvalReport({ ...input, runs: runs.map((r) => ({ ...r, simulated: false })) });
    expect(models.simulated).toBe(true);
    expect(models.note).toBe(SIMULATED_DATASET_NOTE);
    expect(models.note).not.toMatch(/numbers come from|simulated policies,|simulated components on SimDesk \(/);
    expect(models.note).toMatch(/^model agents evaluated on a SIMULATED dataset/);
  }, 120_000);
});
