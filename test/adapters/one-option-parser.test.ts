/**
 * Options are resolved by one resolver (resolveRecoveryOptions, packages/core/src/runtime/options.ts) on every
 * path: the graph (withRecovery, runEpisode, createRecoveryGraph), the built-in restore routine
 * (recoverWithPolicy), the LangChain middleware and the SDK wrappers. The same bad value gets the
 * same one-line ConfigError on each, after the name of the call the user made.
 */
import { describe, expect, it } from "vitest";
import { withRecovery } from "../../packages/graphs/src/with-recovery.ts";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { recoveryMiddleware } from "../../packages/langchain/src/recovery-middleware.ts";
import { createAgentsRecovery } from "../../packages/openai-agents/src/recovery.ts";
import { createRecovery } from "../../packages/ai-sdk/src/recovery.ts";
import { executeWithRecovery } from "../../packages/stagehand/src/execute-with-recovery.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { recoverWithPolicy } from "../../packages/core/src/runtime/recover-with-policy.ts";
import {
  TOY_TASK,
  ToyDesk,
  createToyDetector,
  createToyPolicy,
  createToyRecoverer,
  newBlobs,
} from "../graphs/fixtures/toy.ts";

/** Every path, called with the given extra options; resolves to the error it threw (or undefined). */
function paths(bad: Record<string, unknown>, { sdkOnly = false } = {}) {
  const blobs = newBlobs();
  const env = new ToyDesk(blobs);
  const detector = createToyDetector();
  const recoverer = createToyRecoverer();
  const sdk = { env, blobs, detector, recoverer, ...bad };
  const all: Record<string, () => unknown> = {
    createAgentsRecovery: () => createAgentsRecovery(sdk as never),
    createRecovery: () => createRecovery(sdk as never),
    executeWithRecovery: () => executeWithRecovery({ execute: async () => ({}) } as never, "x", sdk as never),
  };
  if (!sdkOnly) {
    Object.assign(all, {
      withRecovery: () => withRecovery(createToyPolicy(), { detector, recoverer, ...bad }),
      runEpisode: () =>
        runEpisode({
          task: TOY_TASK,
          components: { policy: createToyPolicy(), env, blobs, detector, recoverer },
          options: bad as never,
        }),
      recoveryMiddleware: () =>
        recoveryMiddleware({
          detector,
          blobs,
          observe: () => env.observe(),
          restore: async () => ({ restored: true, steps: 0 }),
          ...bad,
        } as never),
    });
  }
  return Object.fromEntries(
    Object.entries(all).map(([name, call]) => [
      name,
      (async () => {
        try {
          await call();
          return undefined;
        } catch (e) {
          return e;
        }
      })(),
    ]),
  );
}

async function messages(bad: Record<string, unknown>, opts?: { sdkOnly?: boolean }): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(paths(bad, opts))) {
    const e = await p;
    expect(e, name).toBeInstanceOf(ConfigError);
    out[name] = (e as Error).message;
  }
  return out;
}

describe("one option resolver for every path", () => {
  it.each([
    [{ freezeWindow: -1 }, 'option "freezeWindow" must be >= 0'],
    [{ freezeWindow: 1.5 }, 'option "freezeWindow" must be an integer'],
    [
      { maxRecoveryIterations: 101 },
      'option "maxRecoveryIterations" at most 100 recovery attempts per episode (the paper uses 1, 3, 5)',
    ],
    [{ minConfidence: 2 }, 'option "minConfidence" must be <= 1'],
    [{ recoveryStep: "middle" }, 'option "recoveryStep" must be one of "zero", "error-minus-1", "error-random", "llm"'],
    [{ transition: "long" }, 'option "transition" must be one of "short", "detailed"'],
    [{ settleMs: 70_000 }, 'option "settleMs" at most 60000 ms (one minute) after each action (OSWorld waits 10000)'],
    [{ seed: 2e15 }, 'option "seed" at most 1000000000000000'],
    [{ onStuck: "halt" }, 'option "onStuck" must be one of "continue", "stop"'],
  ])("%j: the same one-line message on the graph, recoveryMiddleware and the SDK wrappers", async (bad, message) => {
    const got = await messages(bad);
    expect(Object.keys(got).sort()).toEqual([
      "createAgentsRecovery",
      "createRecovery",
      "executeWithRecovery",
      "recoveryMiddleware",
      "runEpisode",
      "withRecovery",
    ]);
    for (const [name, m] of Object.entries(got)) {
      expect(m).toBe(`${name}: ${message}`);
      expect(m).not.toContain("\n");
    }
  });

  it("the recovery sub-agent's budget: the same message from recoverWithPolicy, the graph and the SDK wrappers", async () => {
    const got = await messages({ recoveryBudget: 0 }, { sdkOnly: true });
    const blobs = newBlobs();
    const direct = (() => {
      try {
        recoverWithPolicy({ recoverer: createToyRecoverer(), env: new ToyDesk(blobs), blobs, recoveryBudget: 0 });
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(direct).toBe('recoverWithPolicy: option "recoveryBudget" must be >= 1');
    expect(() => withRecovery(createToyPolicy(), { recoveryBudget: 0 })).toThrow(
      /^withRecovery: option "recoveryBudget" must be >= 1$/,
    );
    for (const [name, m] of Object.entries(got)) expect(m).toBe(`${name}: option "recoveryBudget" must be >= 1`);
  });

  it("the recovery sub-agent's repeat check: the same message from recoverWithPolicy, the graph and the SDK wrappers", async () => {
    const message = 'option "onRecoveryRepeat" must be one of "continue", "stop"';
    const got = await messages({ onRecoveryRepeat: "halt" }, { sdkOnly: true });
    const blobs = newBlobs();
    expect(() =>
      recoverWithPolicy({
        recoverer: createToyRecoverer(),
        env: new ToyDesk(blobs),
        blobs,
        onRecoveryRepeat: "halt" as never,
      }),
    ).toThrow(`recoverWithPolicy: ${message}`);
    expect(() => withRecovery(createToyPolicy(), { onRecoveryRepeat: "halt" as never })).toThrow(
      `withRecovery: ${message}`,
    );
    for (const [name, m] of Object.entries(got)) expect(m).toBe(`${name}: ${message}`);
  });

  it("a knob of the runtime that a wrapper does not take is an unknown option there", async () => {
    const got = await messages({ maxForwardSteps: 3 }, { sdkOnly: true });
    for (const [name, m] of Object.entries(got))
      expect(m).toMatch(new RegExp(`^${name}: unknown option "maxForwardSteps" \\(known: `));
    expect(() => withRecovery(createToyPolicy(), { maxForwardSteps: 3 })).not.toThrow();
  });
});
