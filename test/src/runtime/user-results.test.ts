/**
 * Typed checks on every user function's result (issue 41, item 6), through one helper
 * (packages/core/src/runtime/user-results.ts): a detector's bad result is a counted detector failure with one
 * line naming `detector.detect()`; an environment's bad observation is a ConfigError naming the
 * function, on the graph path (withRecovery), and the SDK path (the environment meter).
 */
import { describe, expect, it } from "vitest";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { envMeter, meteredEnvironment } from "../../../packages/sdk-shared/src/env-meter.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { guardedDetect } from "../../../packages/core/src/runtime/detection.ts";
import { checkedEnvironment } from "../../../packages/core/src/runtime/user-results.ts";
import type { Environment } from "../../../packages/core/src/environment.ts";
import {
  TOY_TASK,
  ToyDesk,
  createToyDetector,
  createToyPolicy,
  createToyRecoverer,
  newBlobs,
} from "../../graphs/fixtures/toy.ts";

const SHAPE = "return { isError: boolean, errorStep: number | null, reason: string, confidence: number in [0, 1] }";
const input = {
  task: { id: "t", instruction: "x" },
  history: [],
  observation: { screenshot: "a".repeat(64), width: 10, height: 10 },
  step: 2,
  tick: 2,
  blobs: newBlobs(),
} as never;

describe("a detector's result", () => {
  const cases: Array<[string, unknown, string]> = [
    ["null", null, `detector.detect() (bad) returned null: ${SHAPE}`],
    ["a string", "yes", `detector.detect() (bad) returned "yes": ${SHAPE}`],
    [
      "{ error: 'yes' }",
      { error: "yes" },
      `detector.detect() (bad) returned a malformed result, "isError" is undefined (expected boolean, received undefined): ${SHAPE}`,
    ],
    [
      "NaN confidence",
      { isError: true, errorStep: 1, reason: "r", confidence: Number.NaN },
      `detector.detect() (bad) returned a malformed result, "confidence" is NaN (expected number, received NaN): ${SHAPE}`,
    ],
  ];
  for (const [label, raw, line] of cases) {
    it(`${label}: a counted failure, one line naming detector.detect(), no recovery`, async () => {
      const r = await guardedDetect({ name: "bad", detect: async () => raw as never }, input, 0);
      expect(r.failed).toBe(true);
      expect(r.detection.isError).toBe(false);
      expect(r.detection.failure).toBe(line);
      expect(line).not.toContain("\n");
    });
  }
  it("a well-formed result passes unchanged", async () => {
    const ok = { isError: true, errorStep: 1, reason: "r", confidence: 0.5 };
    expect(await guardedDetect({ name: "good", detect: async () => ok }, input, 0)).toEqual({
      detection: ok,
      failed: false,
    });
  });
});

/** ToyDesk whose observe() returns `bad` after `after` good calls. */
function badObserve(bad: unknown, blobs = newBlobs()): Environment {
  const desk = new ToyDesk(blobs);
  desk.observe = async () => bad as never;
  return desk;
}

describe("an environment's observation", () => {
  it("observe() returning null / a string / a 0-size observation is a ConfigError naming the function", async () => {
    for (const [bad, what] of [
      [null, "returned null"],
      ["png", 'returned "png"'],
      [{ screenshot: "", width: 1, height: 1 }, 'returned a malformed result, "screenshot" is ""'],
      [{ screenshot: "ab", width: Number.NaN, height: 1 }, 'returned a malformed result, "width" is NaN'],
    ] as const) {
      const err = await checkedEnvironment(badObserve(bad))
        .observe()
        .then(
          () => null,
          (e: unknown) => e as Error,
        );
      expect(err).toBeInstanceOf(ConfigError);
      expect(err!.message.startsWith(`environment.observe() ${what}`)).toBe(true);
      expect(err!.message).toMatch(
        /: return \{ screenshot: <blob ref from blobs.put\(png\)>, width: number, height: number, \.\.\. \}$/,
      );
    }
  });

  it("step() returning no observation names environment.step()", async () => {
    const desk = new ToyDesk(newBlobs());
    desk.step = async () => ({ info: {} }) as never;
    await expect(checkedEnvironment(desk).step({ type: "WAIT" } as never)).rejects.toThrow(
      /^environment\.step\(\) returned a malformed result, "observation" is undefined \(must be an observation object\): return \{ observation: /,
    );
  });

  it("the SDK path: the environment meter and the metered environment check results", async () => {
    await expect(envMeter(badObserve(null)).observe()).rejects.toThrow(/^environment\.observe\(\) returned null: /);
    await expect(meteredEnvironment(badObserve(null)).observe()).rejects.toThrow(
      /^environment\.observe\(\) returned null: /,
    );
  });

  it("the graph path: withRecovery's episode ends with the one line, not a TypeError deep inside", async () => {
    const blobs = newBlobs();
    const desk = new ToyDesk(blobs);
    desk.reset = async () => null as never;
    const agent = withRecovery(createToyPolicy({ slipTicks: [2] }), {
      detector: createToyDetector(),
      recoverer: createToyRecoverer(),
    });
    const outcome = await agent.run({ task: TOY_TASK, env: desk, blobs }).then(
      (r) => JSON.stringify(r),
      (e: unknown) => String((e as Error).message),
    );
    expect(outcome).toContain("environment.reset() returned null: return { screenshot:");
    expect(outcome).not.toMatch(/Cannot read properties/);
  });

  it("a good environment is untouched (same observations through the check)", async () => {
    const blobs = newBlobs();
    const desk = new ToyDesk(blobs);
    const checked = checkedEnvironment(desk);
    expect(checkedEnvironment(checked)).toBe(checked);
    const o = await checked.reset(TOY_TASK as never);
    expect(o.screenshot).toMatch(/^[0-9a-f]{64}$/);
    expect(checked.kind).toBe(desk.kind);
  });
});
