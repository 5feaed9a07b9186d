import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { checkTransitionConsistency } from "../../../packages/evaluation/src/replay/transition-consistency.ts";
import { createSimDesk, SIMDESK_TASKS } from "../../../packages/simdesk/src/simdesk.ts";
import { createFlakyEnvironment } from "../../../experiments/recovery-eval/flaky-env.ts";

describe("createFlakyEnvironment", () => {
  const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-flaky-")), "blobs") });
  const desk = createSimDesk({ blobs });
  const tasks = SIMDESK_TASKS.slice(0, 6);

  it("loses state-changing actions at its rate and never pointer moves", async () => {
    const never = createFlakyEnvironment(desk, { dropRate: 0 });
    const always = createFlakyEnvironment(desk, { dropRate: 0.999999 });
    const task = tasks[0];
    await always.reset(task);
    const before = desk.stateHash();
    for (const a of task.plan) await always.step(a);
    expect(desk.stateHash()).toBe(before);
    expect(always.dropped).toBe(task.plan.filter((a) => a.type !== "MOVE_TO" && a.type !== "WAIT").length);
    await never.reset(task);
    for (const a of task.plan) await never.step(a);
    expect((await never.evaluate()).score).toBe(1);
    expect(never.dropped).toBe(0);
  });

  it("makes N-replay filtering drop some reference plans that a deterministic desktop keeps", async () => {
    const flaky = createFlakyEnvironment(desk, { dropRate: 0.08, seed: 1 });
    let kept = 0;
    let keptFlaky = 0;
    for (const task of tasks) {
      const steps = task.plan.map((a) => [a]);
      if ((await checkTransitionConsistency({ env: desk, task, steps, blobs })).consistent) kept++;
      if ((await checkTransitionConsistency({ env: flaky, task, steps, blobs })).consistent) keptFlaky++;
    }
    expect(kept).toBe(tasks.length);
    expect(keptFlaky).toBeLessThan(kept);
  });
});
