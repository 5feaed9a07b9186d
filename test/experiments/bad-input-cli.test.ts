/**
 * The bad-input corpus (issue 12): inputs a new user gets wrong, across every command (configs,
 * flags, task ids, model endpoints, run folders, result files, OSWorld task files, action strings).
 * Each CLI row runs `retrace` in-process (a few by subprocess) inside a scratch folder and must give
 * one line on stderr that names the field or flag, a non-zero exit, and leave the scratch folder
 * exactly as it was (nothing written, nothing lost). Function rows feed model/task text to the
 * parsers, which must refuse it with one line naming what is wrong, never run it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./helpers/corpus.ts";
import { CONFIG_ROWS } from "./helpers/bad-input-config-rows.ts";
import { FLAG_ROWS } from "./helpers/bad-input-flag-rows.ts";
import { FUNCTION_ROWS } from "./helpers/bad-input-function-rows.ts";
import { makeScratch, removeScratch, snapshot, SUBPROCESS_ROWS } from "./helpers/bad-input-scratch.ts";

const CLI_ROWS = [...CONFIG_ROWS, ...FLAG_ROWS];
let dir = "";

beforeAll(async () => {
  dir = await makeScratch();
}, 120_000);

afterAll(() => removeScratch(dir));

describe("the bad-input corpus", () => {
  it("has at least 60 rows", () => {
    expect(CLI_ROWS.length + FUNCTION_ROWS.length + SUBPROCESS_ROWS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CLI_ROWS.map((r) => [r.name, r] as const))(
    "%s: one line naming the input, non-zero exit, nothing written",
    async (_name, row) => {
      const before = snapshot(dir);
      const r = await cli(row.args(dir));
      expect(r.code, r.stderr).not.toBe(0);
      const lines = r.stderr.trim().split("\n");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^retrace: /);
      expect(lines[0]).toMatch(row.error);
      expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+|ERR_|Error: E[A-Z]+:/); // no stack frames, no raw errno
      expect(snapshot(dir)).toEqual(before);
    },
  );
});
