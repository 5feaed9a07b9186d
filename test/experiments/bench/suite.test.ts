/**
 * `npm run bench` never stops on one benchmark's failure: the failing one is printed as FAILED
 * with its error (text and --json), every later benchmark still runs, and the summary names it.
 */
import { describe, expect, it } from "vitest";
import type { BenchResult } from "../../../experiments/bench/result.ts";
import { runBenches, type BenchModule } from "../../../experiments/bench/suite.ts";

const line = (name: string): BenchResult => ({
  name,
  ratioOf: "a / b",
  ratio: 0.5,
  value: 12,
  unit: "ms",
  target: "< 20",
  pass: true,
  details: { n: 3 },
});
const ok = (name: string) => async (): Promise<BenchModule> => ({ run: async () => [line(name)] });
const failing = async (): Promise<BenchModule> => ({
  run: async () => {
    throw new Error(
      "cdpSession.send: Protocol error (Page.getNavigationHistory): Not attached to an active page\n    at rebuildHistory",
    );
  },
});
const benches = [
  ["first", ok("first-line")],
  ["browser-restore", failing],
  ["broken-import", async () => Promise.reject(new Error("Cannot find module ./gone.ts"))],
  ["last", ok("last-line")],
] as const;

describe("runBenches", () => {
  it("prints a failed benchmark as FAILED with its error and runs the ones after it", async () => {
    const out: string[] = [];
    const summary = await runBenches(benches, { write: (l) => out.push(l) });
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^first-line +12\.00 ms \(target < 20\) PASS/);
    expect(out[1]).toBe(
      `${"browser-restore".padEnd(34)} FAILED: cdpSession.send: Protocol error (Page.getNavigationHistory): Not attached to an active page\n`,
    );
    expect(out[2]).toContain("broken-import");
    expect(out[2]).toContain("FAILED: Cannot find module ./gone.ts");
    expect(out[3]).toMatch(/^last-line +12\.00 ms/);
    expect(summary).toEqual({
      lines: 2,
      failed: [
        {
          name: "browser-restore",
          error: "cdpSession.send: Protocol error (Page.getNavigationHistory): Not attached to an active page",
        },
        { name: "broken-import", error: "Cannot find module ./gone.ts" },
      ],
    });
  });

  it("gives a failed benchmark a JSON line with pass false and the error", async () => {
    const out: string[] = [];
    await runBenches(benches, { json: true, write: (l) => out.push(l) });
    const rows = out.map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.id, r.pass])).toEqual([
      ["first-line", true],
      ["browser-restore", false],
      ["broken-import", false],
      ["last-line", true],
    ]);
    expect(rows[1].error).toMatch(/^cdpSession\.send: Protocol error/);
  });

  it("runs only the benchmarks whose name contains the filter", async () => {
    const out: string[] = [];
    const summary = await runBenches(benches, { only: "last", write: (l) => out.push(l) });
    expect(out.map((l) => l.split(" ")[0])).toEqual(["last-line"]);
    expect(summary.failed).toEqual([]);
  });
});
