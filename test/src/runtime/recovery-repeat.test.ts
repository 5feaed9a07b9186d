/**
 * Option `onRecoveryRepeat` (packages/core/src/runtime/recovery-agent.ts `repeatedStep`): a recovery sub-agent
 * that proposes, on a screen it already stood on in this attempt, the actions it took there before
 * is repeating itself. "continue" (the default, the paper's) runs the attempt until its budget is
 * spent; "stop" ends it at once, unconfirmed, without executing the repeat. The same on both
 * drivers of the one sub-agent loop: the graph (`withRecovery`) and `recoverWithPolicy` (the
 * LangChain middleware and the SDK wrappers).
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../../packages/core/src/action.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { RecoveryDecision, RecoveryInput, RecoveryPolicy } from "../../../packages/core/src/recovery.ts";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { repeatedStep } from "../../../packages/core/src/runtime/recovery-agent.ts";
import type { RestoreRequest } from "../../../packages/core/src/runtime/restore.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, newBlobs } from "../../graphs/fixtures/toy.ts";

const usage = [{ role: "recoverer" as const, model: "toy", inputTokens: 3, outputTokens: 1, latencyMs: 1 }];

/** A sub-agent that proposes `script[i % script.length]` on its i-th call, never declaring the target restored. */
function scriptedRecoverer(script: Action[][]): RecoveryPolicy & { calls: number } {
  const r = {
    name: "looping-recoverer",
    simulated: true,
    calls: 0,
    async propose(_input: RecoveryInput): Promise<RecoveryDecision> {
      const actions = script[r.calls % script.length];
      r.calls += 1;
      return { actions, usage };
    },
  };
  return r;
}

/** ToyDesk after typing "ax" (step 1 off track), with the request to restore step 1 (the screen after "a"). */
async function offTrack() {
  const blobs = newBlobs();
  const env = new ToyDesk(blobs);
  const o0 = await env.reset(TOY_TASK);
  const o1 = (await env.step({ type: "TYPING", text: "a" })).observation;
  await env.step({ type: "TYPING", text: "x" });
  const request: RestoreRequest = {
    step: 1,
    errorStep: 1,
    target: { step: 1, observation: o1 },
    history: [
      { step: 0, observation: o0, actions: [{ type: "TYPING", text: "a" }] },
      { step: 1, observation: o1, actions: [{ type: "TYPING", text: "x" }] },
    ],
    detection: { isError: true, errorStep: 1, reason: "typed x", confidence: 0.9 },
    selection: { step: 1, reason: "E" },
    attempt: 1,
    task: TOY_TASK,
  };
  return { env, blobs, request };
}

const SAME: Action[][] = [[{ type: "PRESS", key: "escape" }]]; // no effect on ToyDesk: the screen never changes
const CYCLE: Action[][] = [[{ type: "TYPING", text: "z" }], [{ type: "PRESS", key: "backspace" }]]; // A-B-A-B

describe("onRecoveryRepeat", () => {
  it("recoverWithPolicy: the same action on an unchanged screen runs the whole budget by default, and ends after one step with 'stop'", async () => {
    for (const [onRecoveryRepeat, steps, calls] of [
      [undefined, 5, 5],
      ["stop", 1, 2],
    ] as const) {
      const { env, blobs, request } = await offTrack();
      const recoverer = scriptedRecoverer(SAME);
      const restore = recoverWithPolicy({
        recoverer,
        env,
        blobs,
        recoveryBudget: 5,
        recoveryContext: "none",
        ...(onRecoveryRepeat ? { onRecoveryRepeat } : {}),
      });
      const out = await restore(request);
      expect(out.restored).toBe(false);
      expect(out.confirmation).toBe("refused");
      expect(out.steps).toBe(steps);
      expect(recoverer.calls).toBe(calls);
      // the repeated proposal is not executed, but its call is paid for and counted
      expect(out.usage).toHaveLength(calls);
      expect(out.detail).toMatch(onRecoveryRepeat ? /repeated itself: recovery step 1's actions/ : /budget of 5/);
    }
  });

  it("recoverWithPolicy: an A-B-A-B cycle back to a screen it stood on stops after two steps with 'stop'", async () => {
    const { env, blobs, request } = await offTrack();
    const recoverer = scriptedRecoverer(CYCLE);
    const restore = recoverWithPolicy({
      recoverer,
      env,
      blobs,
      recoveryBudget: 5,
      recoveryContext: "none",
      onRecoveryRepeat: "stop",
    });
    const out = await restore(request);
    expect(out).toMatchObject({ restored: false, confirmation: "refused", steps: 2 });
    expect(recoverer.calls).toBe(3);
    expect(env.text).toBe("ax"); // back where the attempt started: the third proposal (type "z" again) never ran
  });

  it("the graph (withRecovery) stops the same repeat at the same step, and runs the budget without the option", async () => {
    for (const [onRecoveryRepeat, steps] of [
      ["continue", 5],
      ["stop", 2],
    ] as const) {
      const blobs = newBlobs();
      const recoverer = scriptedRecoverer(CYCLE);
      const agent = withRecovery(createToyPolicy({ slipTicks: [1] }), {
        detector: createToyDetector(),
        recoverer,
        maxRecoveryIterations: 1,
        recoveryBudget: 5,
        recoveryStep: "error-minus-1",
        recoveryContext: "none",
        onRecoveryRepeat,
      });
      const ends: Array<{ confirmation: string; steps: number; reason: string }> = [];
      const g = await agent.graph({ env: new ToyDesk(blobs), blobs });
      const state = await g.invoke({ task: TOY_TASK }, { recursionLimit: 200 });
      for (const e of state.events ?? [])
        if (e.kind === "recovery-end") ends.push(e.detail as { confirmation: string; steps: number; reason: string });
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatchObject({ confirmation: "refused", steps });
      expect(state.result!.accounting.recoverySteps).toBe(steps);
      // every recoverer call is counted, the stopped one too
      expect(state.result!.accounting.models.recoverer?.calls).toBe(recoverer.calls);
      if (onRecoveryRepeat === "stop") expect(ends[0].reason).toMatch(/repeated itself/);
    }
  });

  it("repeatedStep compares the screen and the actions; claims, failures and empty steps never repeat", () => {
    const a: Observation = { screenshot: "aa/a.png", width: 1, height: 1 };
    const b: Observation = { screenshot: "bb/b.png", width: 1, height: 1 };
    const esc: Action[] = [{ type: "PRESS", key: "escape" }];
    const history = [{ step: 0, observation: a, actions: esc }];
    const step = (over: Partial<RecoveryDecision> = {}) => ({ actions: esc, restored: false, ...over });
    expect(repeatedStep(history, a, step())).toMatch(/repeated itself/);
    expect(repeatedStep(history, b, step())).toBeNull();
    expect(repeatedStep(history, a, step({ actions: [{ type: "PRESS", key: "enter" }] }))).toBeNull();
    expect(repeatedStep(history, a, step({ restored: true }))).toBeNull();
    expect(repeatedStep(history, a, step({ actions: [] }))).toBeNull();
    expect(repeatedStep(history, a, step({ failure: { kind: "empty", detail: "" } } as never))).toBeNull();
    // the same key press parsed with its fields in another order is the same step
    const reordered = [{ key: "escape", type: "PRESS" }] as unknown as Action[];
    expect(repeatedStep(history, a, step({ actions: reordered }))).toMatch(/repeated itself/);
  });

  it("a bad value is one ConfigError line naming the option, on each path", async () => {
    const { env, blobs } = await offTrack();
    const bad = "halt" as unknown as "stop";
    expect(() => recoverWithPolicy({ recoverer: scriptedRecoverer(SAME), env, blobs, onRecoveryRepeat: bad })).toThrow(
      ConfigError,
    );
    expect(() =>
      recoverWithPolicy({ recoverer: scriptedRecoverer(SAME), env, blobs, onRecoveryRepeat: bad }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: recoverWithPolicy: option "onRecoveryRepeat" must be one of "continue", "stop"]`,
    );
    expect(() =>
      withRecovery(createToyPolicy(), {
        detector: createToyDetector(),
        recoverer: scriptedRecoverer(SAME),
        onRecoveryRepeat: bad,
      }),
    ).toThrow(/onRecoveryRepeat/);
  });
});
