/**
 * The bad-input corpus, third hostile battery (issue 31). Same contract as bad-input-cli.test.ts:
 * each CLI row gives one `retrace:` line on stderr naming the flag or file, exits 2 (bad input, as
 * docs/cli.md says), prints no password, and leaves the scratch folder exactly as it was. The rows
 * are the battery's findings, one rule each: every numeric flag through one parser
 * (experiments/commands/numeric-flags.ts), no empty path or name flags, URLs in errors redacted,
 * browser task URLs http(s) only, usage errors exit 2. Function rows check the same rules where
 * they are not CLI flags (the SDK wrappers' bounds, a checker's BigInt).
 */
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { CLI_ROWS, makeScratch, removeScratch } from "./helpers/bad-input-round3.ts";

let dir = "";
/** A page a browser task can open (the checker row: its episodes would reach the checker). */
let page: Server | undefined;

beforeAll(async () => {
  ({ dir, page } = await makeScratch());
});

afterAll(() => removeScratch(dir, page));

describe("the bad-input corpus, third battery (issue 31)", () => {
  it.each(CLI_ROWS.map((r) => [r.name, r] as const))(
    "%s: one line, exit 2, no password, nothing written",
    async (_name, row) => {
      const before = snapshot(dir);
      const r = await cli(row.args(dir));
      expect(r.code, r.stderr).toBe(2);
      const line = oneLine(r.stderr);
      expect(line).toMatch(/^retrace: /);
      expect(line).toMatch(row.error);
      expect(line).not.toMatch(/\bat .*\.ts:\d+|ERR_|Error: E[A-Z]+:/);
      expect(line).not.toContain("pa/ss");
      expect(r.stdout).toBe("");
      expect(snapshot(dir)).toEqual(before);
    },
  );
});
