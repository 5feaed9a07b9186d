/**
 * Every path takes the detection preset: withRecovery (the graph), the LangChain middleware and the SDK
 * integrations' options build the preset's detector against the stand-in behind a recording proxy; the
 * production preset brings its recovery recipe on every path; bad preset specs fail with one line.
 * Experiment configs: detection-preset-configs.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createDetectionPreset } from "../../../packages/models/src/llm/detection-preset.ts";
import { resolveOptions as resolveMiddlewareOptions } from "../../../packages/langchain/src/options.ts";
import { resolveSdkOptions } from "../../../packages/sdk-shared/src/options.ts";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { ToyDesk, createToyPolicy, createToyRecoverer, newBlobs } from "../../graphs/fixtures/toy.ts";
import { tempBlobs } from "./fixtures.ts";
import {
  episode,
  images,
  judge,
  judgeBodies,
  proxy,
  screen,
  userParts,
  useStandInBehindProxy,
  watch,
} from "./detection-preset-fixtures.ts";

useStandInBehindProxy();

describe("every path takes the preset", () => {
  it("withRecovery (the graph): the judge is asked on fewer steps than the episode has", async () => {
    const blobs = newBlobs();
    const word = "abcdefghijkl";
    const agent = withRecovery(createToyPolicy({ word }), {
      detector: { preset: "production", model: judge(blobs) },
      recoverer: createToyRecoverer(),
    });
    const from = proxy.bodies.length;
    const r = await agent.run({
      task: { id: "toy-long", instruction: `Type ${word}`, env: "toy", setup: { word: "" }, evaluator: { word } },
      env: new ToyDesk(blobs),
      blobs,
    });
    const asked = judgeBodies(from);
    expect(r.accounting.forwardSteps).toBeGreaterThanOrEqual(word.length);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(r.accounting.forwardSteps);
    expect(r.accounting.detectorGates?.asked).toBe(asked.length);
    for (const b of asked) expect(images(b).length).toBeLessThanOrEqual(5);
  });

  it("the LangChain middleware and the SDK integrations' options build the preset's detector", async () => {
    const blobs = tempBlobs();
    const model = judge(blobs);
    const mw = resolveMiddlewareOptions({
      detector: { preset: "production", model },
      observe: async () => screen(blobs, 1),
      restore: async () => ({ restored: true }) as never,
      blobs,
    });
    const sdk = resolveSdkOptions("createAgentsRecovery", {
      env: new ToyDesk(blobs),
      blobs,
      detector: { preset: "production", model, historySteps: 2 },
      restore: async () => ({ restored: true }) as never,
    });
    const { history, screens } = await episode(blobs, 6);
    for (const d of [mw.detector, sdk.detector]) {
      expect(d.name).toMatch(/^cascade\(no-effect,loop,visual-change,every-k,before-done -> llm-detector\)$/);
      const from = proxy.bodies.length;
      await watch(d, blobs, history, screens);
      const asked = judgeBodies(from);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.length).toBeLessThan(history.length);
      expect(userParts(asked[0])[0].text).toContain("Task given to the agent:");
    }
    expect(() =>
      resolveSdkOptions("createAgentsRecovery", {
        env: new ToyDesk(blobs),
        blobs,
        detector: { preset: "fast" } as never,
        restore: async () => ({ restored: true }) as never,
      }),
    ).toThrow(/^createAgentsRecovery: option detector\.preset: expected "paper" or "production", got "fast"$/);
  });

  it("the production preset brings its recovery recipe on every path, under the caller's own knobs; the paper preset keeps the runtime's", () => {
    const blobs = tempBlobs();
    const model = judge(blobs);
    const prod = { preset: "production" as const, model };
    const restore = async () => ({ restored: true }) as never;
    const observe = async () => screen(blobs, 1);
    // withRecovery (and the graph it runs): 1 attempt of at most 5 steps
    expect(withRecovery(createToyPolicy(), { detector: prod }).options).toMatchObject({
      maxRecoveryIterations: 1,
      recoveryBudget: 5,
    });
    expect(
      withRecovery(createToyPolicy(), { detector: { ...prod, recoveryBudget: 7 }, maxRecoveryIterations: 2 }).options,
    ).toMatchObject({ maxRecoveryIterations: 2, recoveryBudget: 7 });
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options).toMatchObject({
      maxRecoveryIterations: 3,
      recoveryBudget: 10,
    });
    // the SDK integrations
    const sdk = (detector: object, extra: object = {}) =>
      resolveSdkOptions("createAgentsRecovery", {
        env: new ToyDesk(blobs),
        blobs,
        detector: detector as never,
        restore,
        ...extra,
      });
    expect(sdk(prod)).toMatchObject({ maxRecoveryIterations: 1, recoveryBudget: 5 });
    expect(sdk({ ...prod, maxRecoveryIterations: 3 }, { recoveryBudget: 4 })).toMatchObject({
      maxRecoveryIterations: 3,
      recoveryBudget: 4,
    });
    expect(sdk({ preset: "paper", model })).toMatchObject({ maxRecoveryIterations: 3, recoveryBudget: 10 });
    // the LangChain middleware (its restore routine is the user's, so only the cap applies)
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs }).maxRecoveryIterations).toBe(1);
    expect(
      resolveMiddlewareOptions({ detector: prod, observe, restore, blobs, maxRecoveryIterations: 2 })
        .maxRecoveryIterations,
    ).toBe(2);
    // the repeat check: on with the production preset, off (the paper's) with the paper preset, the caller's own wins;
    // the SDK integrations hand it to the recovery sub-agent they build (recoverWithPolicy); the LangChain middleware's
    // restore routine is the user's (pass it to recoverWithPolicy there, like the budget)
    expect(withRecovery(createToyPolicy(), { detector: prod }).options.onRecoveryRepeat).toBe("stop");
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options.onRecoveryRepeat).toBe(
      "continue",
    );
    expect(
      withRecovery(createToyPolicy(), { detector: prod, onRecoveryRepeat: "continue" }).options.onRecoveryRepeat,
    ).toBe("continue");
    expect(sdk(prod).onRecoveryRepeat).toBe("stop");
    expect(sdk({ preset: "paper", model }).onRecoveryRepeat).toBe("continue");
    expect(sdk(prod, { onRecoveryRepeat: "continue" }).onRecoveryRepeat).toBe("continue");
    // the stuck stop (onStuck): on with the production preset on every path (the LangChain middleware too: it ends
    // the run itself), off (the paper's) with the paper preset, the caller's own wins
    expect(withRecovery(createToyPolicy(), { detector: prod }).options.onStuck).toBe("stop");
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options.onStuck).toBe("continue");
    expect(withRecovery(createToyPolicy(), { detector: prod, onStuck: "continue" }).options.onStuck).toBe("continue");
    expect(sdk(prod).onStuck).toBe("stop");
    expect(sdk({ preset: "paper", model }).onStuck).toBe("continue");
    expect(sdk(prod, { onStuck: "continue" }).onStuck).toBe("continue");
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs }).onStuck).toBe("stop");
    expect(resolveMiddlewareOptions({ detector: { preset: "paper", model }, observe, restore, blobs }).onStuck).toBe(
      "continue",
    );
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs, onStuck: "continue" }).onStuck).toBe(
      "continue",
    );
    // bad values: one line naming the preset's field
    expect(() => withRecovery(createToyPolicy(), { detector: { ...prod, maxRecoveryIterations: -1 } })).toThrow(
      /^withRecovery: option "detector\.maxRecoveryIterations" must be >= 0$/,
    );
    expect(() => sdk({ ...prod, recoveryBudget: 0 })).toThrow(
      /^createAgentsRecovery: option "detector\.recoveryBudget" must be >= 1$/,
    );
    expect(() => sdk({ ...prod, recoveryBudget: "5" })).toThrow(
      /^createAgentsRecovery: option "detector\.recoveryBudget" /,
    );
  });

  it("bad preset specs fail with one line naming the field", () => {
    const model = judge(tempBlobs());
    expect(() => createDetectionPreset({ preset: "paper", model, gates: [{ kind: "loop" }] })).toThrow(
      /^detector\.gates: only the production preset takes "gates"/,
    );
    expect(() => withRecovery(createToyPolicy(), { detector: { preset: "production" } as never })).toThrow(
      /^withRecovery: option detector \(preset production\): option "model" must be a ChatModel/,
    );
    expect(() => createDetectionPreset({ preset: "production", model, imageMaxSide: 10 })).toThrow(/imageMaxSide/);
  });
});
