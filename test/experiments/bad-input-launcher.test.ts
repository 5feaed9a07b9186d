/**
 * The bad-input corpus (issue 12), through the real launcher (bin/retrace.mjs) from a folder
 * outside the repository: one line on stderr, exit 2, the scratch folder exactly as it was.
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, removeScratch, snapshot, SUBPROCESS_ROWS } from "./helpers/bad-input-scratch.ts";

const ROOT = resolve(import.meta.dirname, "../..");
let dir = "";

beforeAll(async () => {
  dir = await makeScratch();
}, 120_000);

afterAll(() => removeScratch(dir));

describe("bad input through the launcher", () => {
  it.each(SUBPROCESS_ROWS.map((r) => [r.name, r] as const))("%s", (_name, row) => {
    const before = snapshot(dir);
    const r = spawnSync(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), ...row.args(dir)], {
      cwd: tmpdir(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.signal, "the command hung").toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(row.error);
    expect(snapshot(dir)).toEqual(before);
  });
});
