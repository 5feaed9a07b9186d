/**
 * The end-to-end direction on a seeded SimDesk sample (simulated agents), both regimes of the
 * paper's Finding 6. Full numbers over 240 episodes per condition: experiments/scripts/recovery-effect.ts.
 */
import { describe, expect, it } from "vitest";
import { SIMDESK_TASKS } from "../../adapters/environments/simdesk/index.ts";
import { measureRecoveryEffect } from "../../experiments/scripts/recovery-effect.ts";

describe("recovery effect on SimDesk (simulated)", () => {
  it("a skilled recoverer with a decent detector raises success; a weak one with false alarms lowers it", async () => {
    const rows = await measureRecoveryEffect({
      seeds: [0],
      tasks: SIMDESK_TASKS,
      conditions: [
        { name: "no recovery", recoverer: null },
        { name: "skilled x3", recoverer: "skilled", options: { maxRecoveryIterations: 3 } },
        { name: "careful: no recovery", recoverer: null, forward: "careful" },
        { name: "careful: weak x5 noisy", recoverer: "weak", detector: "noisy", forward: "careful", options: { maxRecoveryIterations: 5 } },
      ],
    });
    const [none, skilled, carefulNone, carefulWeak] = rows;
    expect(none.success.n).toBe(SIMDESK_TASKS.length);
    expect(skilled.recoveryAttempts).toBeGreaterThan(0);
    expect(skilled.success.rate).toBeGreaterThan(none.success.rate);
    expect(carefulWeak.recoveryAttempts).toBeGreaterThan(0);
    expect(carefulWeak.success.rate).toBeLessThan(carefulNone.success.rate);
  }, 300_000);
});
