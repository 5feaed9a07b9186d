/**
 * The bad-input corpus, third hostile battery (issue 31), function rows: the battery's rules where
 * they are not CLI flags. Every numeric flag goes through one parser
 * (experiments/commands/numeric-flags.ts), the SDK wrappers take the runtime's bounds, a checker's
 * BigInt is a clear error, and browser task URLs are http(s) only.
 */
import { rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSdkOptions } from "../../packages/sdk-shared/src/options.ts";
import { toEvaluation } from "../../packages/browser/src/checker.ts";
import { loadBrowserTaskFile } from "../../packages/browser/src/tasks/file.ts";
import { parseIntFlag, parseNumberFlag } from "../../experiments/commands/numeric-flags.ts";
import { makeScratch, removeScratch } from "./helpers/bad-input-round3.ts";

let dir = "";
/** A page a browser task can open (the checker row: its episodes would reach the checker). */
let page: Server | undefined;

beforeAll(async () => {
  ({ dir, page } = await makeScratch());
});

afterAll(() => removeScratch(dir, page));

describe("one numeric parser", () => {
  it.each([
    ["0x10"],
    [""],
    ["  "],
    ["1e3"],
    ["0b1"],
    ["0o7"],
    ["9007199254740993"],
    ["Infinity"],
    ["1.5"],
    ["--1"],
    ["1_000"],
  ])("refuses %j as an integer", (text) => {
    expect(() => parseIntFlag("--n", text)).toThrow(/^--n: /);
  });

  it("accepts plain decimal integers and numbers within bounds", () => {
    expect(parseIntFlag("--n", " 42 ")).toBe(42);
    expect(parseIntFlag("--n", "-7", { min: -10 })).toBe(-7);
    expect(parseIntFlag("--n", "9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseNumberFlag("--x", "0.25", { min: 0, max: 1 })).toBe(0.25);
    expect(parseNumberFlag("--x", "-1", { min: -1, max: 1 })).toBe(-1);
    expect(() => parseNumberFlag("--x", "0x1", { min: 0, max: 1 })).toThrow(/^--x: /);
    expect(() => parseNumberFlag("--x", "", { min: 0, max: 1 })).toThrow(/\(empty\)/);
    expect(() => parseNumberFlag("--x", "0", { min: 0, exclusiveMin: true })).toThrow(/^--x: /);
  });
});

describe("the SDK wrappers take the runtime's bounds", () => {
  const base = {
    env: { step: () => undefined },
    blobs: { get: () => undefined },
    detector: { detect: () => undefined },
    restore: async () => ({ restored: false, steps: 0 }),
  } as never as Parameters<typeof resolveSdkOptions>[1];
  it.each([
    [{ freezeWindow: 1e9 }, /option "freezeWindow" at most 1000 steps/],
    [{ maxRecoveryIterations: 1e6 }, /option "maxRecoveryIterations" at most 100 recovery attempts/],
    [{ recoveryBudget: 1e9 }, /option "recoveryBudget" at most 1000 recovery steps/],
    [{ seed: 2 ** 52 }, /option "seed" at most 1000000000000000/],
    [{ detectorTimeoutMs: 1e12 }, /option "detectorTimeoutMs" at most 3600000 ms/],
  ])("refuses %j (was accepted)", (patch, why) => {
    expect(() => resolveSdkOptions("generateTextWithRecovery", { ...base, ...(patch as object) })).toThrow(why);
  });

  it("accepts the paper's settings", () => {
    expect(
      resolveSdkOptions("generateTextWithRecovery", { ...base, freezeWindow: 5, maxRecoveryIterations: 3 })
        .freezeWindow,
    ).toBe(5);
  });
});

describe("a checker's return value", () => {
  it("a BigInt is a clear checker error, not a serialization TypeError", () => {
    expect(() => toEvaluation(10n, "checker /t/c.mjs#check")).toThrow(
      /^checker \/t\/c\.mjs#check returned the BigInt 10n; a checker returns a boolean, a score in \[0, 1\] or \{ score, detail \}$/,
    );
    expect(() => toEvaluation({ score: 1n }, "checker c")).toThrow(
      /^checker c returned a value of type object \(Object\); a checker returns/,
    );
  });
});

describe("browser task files", () => {
  it("refuse file:, data: and javascript: start pages with one line naming the field", () => {
    for (const url of ["file:///etc/passwd", "data:text/html,hi", "javascript:alert(1)"]) {
      const file = join(dir, "t.yaml");
      writeFileSync(file, `tasks:\n  - id: t\n    instruction: x\n    url: "${url}"\n    checker: ./c.mjs\n`);
      expect(() => loadBrowserTaskFile(file)).toThrow(/tasks\.0\.url: expected an http:\/\/ or https:\/\/ URL/);
    }
    writeFileSync(
      join(dir, "t.yaml"),
      "tasks:\n  - id: t\n    instruction: x\n    url: https://example.org/\n    checker: ./c.mjs\n",
    );
    expect(loadBrowserTaskFile(join(dir, "t.yaml"))[0].setup).toEqual({ url: "https://example.org/" });
    rmSync(join(dir, "t.yaml"));
  });
});
