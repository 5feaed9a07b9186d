/**
 * The end-to-end direction on a seeded SimDesk sample (simulated agents): a skilled recoverer with
 * a decent detector raises success over no recovery. Full numbers: experiments/scripts/recovery-effect.ts.
 */
import { describe, expect, it } from "vitest";
import { SIMDESK_TASKS } from "../../adapters/environments/simdesk/index.ts";
import { measureRecoveryEffect } from "../../experiments/scripts/recovery-effect.ts";

describe("recovery effect on SimDesk (simulated)", () => {
  it("a skilled recoverer with a decent detector raises success over no recovery on every SimDesk task, seed 0", async () => {
    const rows = await measureRecoveryEffect({
      seeds: [0],
      tasks: SIMDESK_TASKS,
      conditions: [
        { name: "no recovery", recoverer: null },
        { name: "skilled x3", recoverer: "skilled", options: { maxRecoveryIterations: 3 } },
      ],
    });
    const [none, skilled] = rows;
    expect(none.success.n).toBe(SIMDESK_TASKS.length);
    expect(skilled.recoveryAttempts).toBeGreaterThan(0);
    expect(skilled.success.rate).toBeGreaterThan(none.success.rate);
  }, 180_000);
});
