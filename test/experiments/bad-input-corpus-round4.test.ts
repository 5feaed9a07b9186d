/**
 * The bad-input corpus, fourth battery (issue 41, "Elsewhere"): recursion and size bounds on every
 * parsed input (packages/core/src/bounds.ts) and a run plan checked for size before anything is allocated
 * (experiments/runner/conditions.ts, MAX_PLAN_EPISODES). Same contract as the other corpora: one
 * `retrace:` line naming the file, exit 2, nothing written, and quickly (a deep YAML used to hang
 * or abort the CLI; the big plan ran it out of memory, rc 134).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { checkYamlNesting, exceedsNesting, MAX_NESTING } from "../../packages/core/src/bounds.ts";
import { parseOsworldTask } from "../../packages/desktops/src/osworld/tasks.ts";
import { extractJsonObject } from "../../packages/models/src/llm/json-reply.ts";
import { MAX_PLAN_EPISODES, planEpisodeCount } from "../../experiments/runner/conditions.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";

const CWD = process.cwd();
let dir = "";
const pair = (i: number) => ({
  name: `p${i}`,
  forward: { kind: "sim", profile: "sloppy" },
  recovery: { kind: "sim", profile: "skilled" },
});
const TINY = {
  kind: "end-to-end",
  name: "tiny",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  maxRecoveryIterations: [1],
  baseline: false,
  options: { maxForwardSteps: 8 },
  pairs: [pair(0)],
};
/** 10 000 seeds x every SimDesk task x 100 pairs x 21 conditions each: every field within its own limit. */
const HUGE = {
  ...TINY,
  env: { kind: "simdesk" },
  seeds: { count: 10_000 },
  baseline: true,
  maxRecoveryIterations: Array.from({ length: 20 }, (_, i) => i + 1),
  pairs: Array.from({ length: 100 }, (_, i) => pair(i)),
};
const DEPTH = 5_000;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "retrace-corpus-r4-"));
  writeFileSync(
    join(dir, "deep-flow.yaml"),
    `kind: end-to-end\nname: x\nextra: ${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}\n`,
  );
  writeFileSync(
    join(dir, "deep-block.yaml"),
    "kind: end-to-end\nname: x\nextra:\n" + Array.from({ length: 1_500 }, (_, i) => `${" ".repeat(i + 1)}-\n`).join(""),
  );
  writeFileSync(join(dir, "deep-dashes.yaml"), `kind: end-to-end\nextra: \n  ${"- ".repeat(2_000)}x\n`);
  writeFileSync(
    join(dir, "deep.json"),
    `{"kind": "end-to-end", "extra": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
  );
  writeFileSync(join(dir, "huge-plan.json"), JSON.stringify(HUGE));
  writeFileSync(
    join(dir, "deep-tasks.yaml"),
    `tasks:\n  - id: a\n    instruction: x\n    url: http://127.0.0.1:9/\n    checker: ${"{a: ".repeat(DEPTH)}1${"}".repeat(DEPTH)}\n`,
  );
  writeFileSync(
    join(dir, "browser-deep.json"),
    JSON.stringify({
      ...TINY,
      env: { kind: "browser", tasksFile: join(dir, "deep-tasks.yaml") },
      options: { restoration: "replay" },
    }),
  );
  mkdirSync(join(dir, "fresh"));
  process.chdir(dir);
});

afterAll(() => {
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
});

const ROWS: Array<[string, string, RegExp]> = [
  [
    "a YAML config nested 5000 levels in flow style (hung the CLI)",
    "deep-flow.yaml",
    /deep-flow\.yaml: nested more than 64 levels deep at line 3/,
  ],
  [
    "a YAML config nested 1500 levels by indentation (aborted the CLI out of memory)",
    "deep-block.yaml",
    /deep-block\.yaml: nested more than 64 levels deep at line/,
  ],
  [
    "a YAML config nested 2000 levels by dashes on one line",
    "deep-dashes.yaml",
    /deep-dashes\.yaml: nested more than 64 levels deep at line 3/,
  ],
  ["a JSON config nested 100000 levels", "deep.json", /deep\.json: nested more than 64 levels deep/],
  [
    "a plan of 10000 seeds x all tasks x 100 pairs x 21 conditions (ran out of memory, rc 134)",
    "huge-plan.json",
    /config: the run plans [\d,]+ episodes \(2100 condition\(s\) x \d+ task\(s\) x 10000 seed\(s\)\), more than 1,000,000 per run/,
  ],
  [
    "a browser task file nested 5000 levels",
    "browser-deep.json",
    /browser task file .*deep-tasks\.yaml: nested more than 64 levels deep at line 5/,
  ],
];

describe("the bad-input corpus, fourth battery (issue 41): bounds on parsed input and on the plan", () => {
  it.each(ROWS)("%s: one line, exit 2, nothing written, within seconds", async (_name, file, error) => {
    const before = snapshot(dir);
    const t0 = performance.now();
    const r = await cli(["run", join(dir, file), "--out", join(dir, "fresh", "o")]);
    const ms = performance.now() - t0;
    expect(r.code, r.stderr).toBe(2);
    const line = oneLine(r.stderr);
    expect(line).toMatch(/^retrace: /);
    expect(line).toMatch(error);
    expect(line).not.toMatch(/RangeError|Maximum call stack|\bat .*\.ts:\d+/);
    expect(snapshot(dir)).toEqual(before);
    expect(ms).toBeLessThan(5_000);
  });
});

describe("the bounds themselves", () => {
  it("exceedsNesting walks without recursion: 1e6 levels deep is answered, 64 levels pass, 65 do not", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(exceedsNesting(deep)).toBe(true);
    let ok: unknown = "x";
    for (let i = 0; i < MAX_NESTING; i++) ok = { a: ok };
    expect(exceedsNesting(ok)).toBe(false);
    expect(exceedsNesting({ a: ok })).toBe(true);
    expect(exceedsNesting("plain")).toBe(false);
  });

  it("the YAML pre-scan passes every shipped-style config shape and ignores brackets in quotes and comments", () => {
    expect(() =>
      checkYamlNesting(
        "a:\n  b:\n    - c: [1, {d: 2}]\n    - 'text with [[[[ brackets'\n# [[[[[[[[\nprompt: |\n  code:\n      nested\n",
        "c.yaml",
      ),
    ).not.toThrow();
    expect(() => checkYamlNesting(`x: "${"[".repeat(500)}"\n`, "c.yaml")).not.toThrow();
    expect(() => checkYamlNesting(`x: ${"[".repeat(65)}${"]".repeat(65)}\n`, "c.yaml")).toThrow(
      /^c\.yaml: nested more than 64 levels deep at line 1/,
    );
  });

  it("an unbalanced [ in a block scalar does not switch the indentation count off", () => {
    const deepBlock = Array.from({ length: 100 }, (_, i) => `${" ".repeat(2 * i)}k${i}:`).join("\n");
    expect(() => checkYamlNesting(`note: |\n  see [this\n${deepBlock}\n`, "c.yaml")).toThrow(
      /nested more than 64 levels deep/,
    );
  });

  it("exceedsNesting follows a value shared by aliases to its deepest use", () => {
    let shared: unknown = "x";
    for (let i = 0; i < 40; i++) shared = { a: shared };
    let chain: unknown = shared;
    for (let i = 0; i < 30; i++) chain = { a: chain };
    // reached first at depth 2 (40 levels: fine), then at depth 32 (past 64)
    expect(exceedsNesting({ second: chain, first: shared })).toBe(true); // "first" is popped (walked) first
    expect(exceedsNesting({ first: shared })).toBe(false);
  });

  it("an OSWorld task file nested too deep is a rejection with a reason, not a RangeError", () => {
    const text = `{"id": "t", "instruction": "x", "config": [], "evaluator": {"func": "f", "result": ${"[".repeat(50_000)}${"]".repeat(50_000)}}}`;
    expect(parseOsworldTask(text, "t.json", "d")).toEqual({
      file: "t.json",
      reason: "nested more than 64 levels deep; an OSWorld task needs a few",
    });
  });

  it("a model's JSON reply nested too deep is an unusable reply (re-asked), not a crash", () => {
    expect(() => extractJsonObject(`{"a": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`)).toThrow(
      /nested more than 64 levels deep/,
    );
    expect(extractJsonObject('{"a": [[1]], "b": "[[["}')).toEqual({ a: [[1]], b: "[[[" });
  });

  it("the plan size is arithmetic: the huge config is counted, not listed", () => {
    const config = parseExperimentConfig(HUGE);
    const t0 = performance.now();
    const { episodes } = planEpisodeCount(config, 10_000);
    expect(episodes).toBe(2_100 * 10_000 * 10_000);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(planEpisodeCount(parseExperimentConfig(TINY), 1).episodes).toBe(1);
    expect(MAX_PLAN_EPISODES).toBe(1_000_000);
  });
});
