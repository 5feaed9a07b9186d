/**
 * The SDK wrappers' and recoverWithPolicy's old option name `budget` (now `recoveryBudget`, the
 * runtime's name) still works for one release and warns once, naming both names.
 */
import { afterEach, describe, expect, it } from "vitest";
import { recoverWithPolicy } from "../../packages/core/src/runtime/recover-with-policy.ts";
import { resolveSdkOptions } from "../../packages/sdk-shared/src/options.ts";
import { resetDeprecationWarnings, setDeprecationSink } from "../../packages/core/src/deprecation.ts";
import type { Observation } from "../../packages/core/src/observation.ts";
import type { RecoveryPolicy } from "../../packages/core/src/recovery.ts";

const observation: Observation = { screenshot: "blob:none", width: 10, height: 10 };
const env = {
  step: async () => ({ observation, info: {} }),
  observe: async () => observation,
  reset: async () => observation,
};
const blobs = { get: async () => Buffer.alloc(0) };
const task = { id: "t", instruction: "do it" };
/** A recoverer that never restores: an attempt ends when its budget is spent. */
function flailing(): RecoveryPolicy & { calls: number } {
  const r = { name: "flailing", calls: 0, propose: async () => (r.calls++, { actions: [] }) };
  return r;
}
const request = {
  step: 0,
  errorStep: 1,
  target: { step: 0, observation },
  history: [0, 1].map((step) => ({ step, observation, actions: [] })),
  detection: { isError: true, errorStep: 1, reason: "r", confidence: 1 },
  selection: { step: 0, reason: "" },
  attempt: 1,
  task,
};

const lines: string[] = [];
afterEach(() => {
  lines.length = 0;
  resetDeprecationWarnings();
  setDeprecationSink();
});

describe("the old option name budget", () => {
  it("recoverWithPolicy: budget still bounds the attempt and warns once", async () => {
    setDeprecationSink((m) => lines.push(m));
    const r = flailing();
    const restore = recoverWithPolicy({ recoverer: r, env, blobs: blobs as never, budget: 2 });
    recoverWithPolicy({ recoverer: flailing(), env, blobs: blobs as never, budget: 3 });
    const out = await restore(request as never);
    expect(out).toMatchObject({ restored: false, steps: 2 });
    expect(r.calls).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^recoverWithPolicy: "budget" is deprecated, use "recoveryBudget"/)]);
  });

  it("recoverWithPolicy: recoveryBudget bounds the attempt without a warning", async () => {
    setDeprecationSink((m) => lines.push(m));
    const r = flailing();
    const out = await recoverWithPolicy({ recoverer: r, env, blobs: blobs as never, recoveryBudget: 3 })(
      request as never,
    );
    expect(out.steps).toBe(3);
    expect(r.calls).toBe(3);
    expect(lines).toEqual([]);
  });

  it("the SDK wrappers' options: budget reaches the built-in restore routine and warns once", async () => {
    setDeprecationSink((m) => lines.push(m));
    const r = flailing();
    const o = resolveSdkOptions("runWithRecovery", {
      env: env as never,
      blobs: blobs as never,
      detector: { name: "d", detect: async () => ({ isError: false }) } as never,
      recoverer: r,
      budget: 4,
      task: task as never,
    });
    expect(o.recoveryBudget).toBe(4);
    expect("budget" in o).toBe(false);
    expect((await o.restore(request as never)).steps).toBe(4);
    expect(r.calls).toBe(4);
    expect(lines).toEqual([expect.stringMatching(/^runWithRecovery: "budget" is deprecated, use "recoveryBudget"/)]);
  });

  it("the SDK wrappers' options: a bad old value is named by its new name", () => {
    setDeprecationSink(() => undefined);
    expect(() =>
      resolveSdkOptions("runWithRecovery", {
        env: env as never,
        blobs: blobs as never,
        detector: { detect: async () => ({ isError: false }) } as never,
        recoverer: flailing(),
        budget: 0,
      }),
    ).toThrow(/^runWithRecovery: option "recoveryBudget" /);
  });
});
