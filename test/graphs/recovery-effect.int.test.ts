/**
 * The end-to-end direction on a seeded SimDesk sample (simulated agents), both regimes of the
 * paper's Finding 6: every second SimDesk task (24 of 48, every app), seed 0. At this size (measured):
 * no recovery 12/24 -> skilled x3 15/24; careful forward 18/24 -> weak noisy x5 16/24. All 48 tasks
 * give 25 -> 35 and 40 -> 35; full numbers over 240 episodes per condition: experiments/scripts/recovery-effect.ts.
 */
import { describe, expect, it } from "vitest";
import { SIMDESK_TASKS } from "../../packages/simdesk/src/simdesk.ts";
import { measureRecoveryEffect } from "../../experiments/scripts/recovery-effect.ts";

/** Every second SimDesk task: half the episodes, still every app. */
const TASKS = SIMDESK_TASKS.filter((_, i) => i % 2 === 0);

describe("recovery effect on SimDesk (simulated)", () => {
  it("a skilled recoverer with a decent detector raises success; a weak one with false alarms lowers it", async () => {
    const rows = await measureRecoveryEffect({
      seeds: [0],
      tasks: TASKS,
      conditions: [
        { name: "no recovery", recoverer: null },
        { name: "skilled x3", recoverer: "skilled", options: { maxRecoveryIterations: 3 } },
        { name: "careful: no recovery", recoverer: null, forward: "careful" },
        {
          name: "careful: weak x5 noisy",
          recoverer: "weak",
          detector: "noisy",
          forward: "careful",
          options: { maxRecoveryIterations: 5 },
        },
      ],
    });
    const [none, skilled, carefulNone, carefulWeak] = rows;
    expect(none.success.n).toBe(TASKS.length);
    expect(skilled.recoveryAttempts).toBeGreaterThan(0);
    expect(skilled.success.rate).toBeGreaterThan(none.success.rate);
    expect(carefulWeak.recoveryAttempts).toBeGreaterThan(0);
    expect(carefulWeak.success.rate).toBeLessThan(carefulNone.success.rate);
  }, 300_000);
});
