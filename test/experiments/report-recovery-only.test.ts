/**
 * `retrace report <dir>` on a folder holding only recovery-evaluation output (no results.jsonl):
 * the page is written with the recovery-evaluation tables; an empty folder still fails with one
 * clear line.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { buildReport } from "../../experiments/report/index.ts";

const root = mkdtempSync(join(tmpdir(), "retrace-report-eval-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("report on a recovery-eval-only folder", () => {
  it("writes report.html with the recovery-evaluation and oracle-agreement tables", async () => {
    const dir = join(root, "eval");
    mkdirSync(join(dir, "recovery-eval"), { recursive: true });
    writeFileSync(
      join(dir, "recovery-eval", "recovery-eval.json"),
      JSON.stringify({ simulated: true, rows: [{ strategy: "implicit/0-E", recovered: 3, total: 4 }] }),
    );
    writeFileSync(
      join(dir, "recovery-eval", "oracle-agreement.json"),
      JSON.stringify({ simulated: true, rows: [{ budget: 3, agreement: 0.97 }] }),
    );
    const out = await buildReport(dir);
    expect(out.runs).toBe(0);
    const html = readFileSync(out.file, "utf8");
    expect(html).toContain("Recovery evaluation");
    expect(html).toContain("implicit/0-E");
    expect(html).toContain("oracle-agreement.json");
  });

  it("still refuses a folder with neither runs nor recovery-evaluation output", async () => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    await expect(buildReport(empty)).rejects.toThrow(ConfigError);
    await expect(buildReport(empty)).rejects.toThrow(/no results\.jsonl/);
  });
});
