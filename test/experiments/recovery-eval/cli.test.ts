import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { buildProgram } from "../../../experiments/cli.ts";
import { findExtraFiles } from "../../../experiments/report/data.ts";
import { jsonTables } from "../../../experiments/report/html.ts";
import type { OracleAgreementReport, RecoveryEvalReport } from "../../../experiments/recovery-eval/report-data.ts";

async function cli(...args: string[]): Promise<string> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => {
    chunks.push(String(s));
    return true;
  });
  try {
    await buildProgram().parseAsync(["node", "retrace", ...args]);
  } finally {
    spy.mockRestore();
  }
  return chunks.join("");
}

describe("retrace dataset build + eval-recovery (SimDesk, simulated policies)", () => {
  it("builds a dataset, evaluates recovery, measures oracle agreement, and the report includes both files", async () => {
    const root = mkdtempSync(join(tmpdir(), "retrace-receval-"));
    const ds = join(root, "dataset");
    const out1 = await cli(
      "dataset",
      "build",
      "--out",
      ds,
      "--tasks",
      "files-rename-draft,files-trash-two,files-restore-report",
      "--seed-steps",
      "2",
      "--distances",
      "1,3",
      "--replays",
      "2",
      "--seed",
      "5",
      "-q",
    );
    expect(out1).toMatch(/SIMULATED dataset [0-9a-f]{16}/);
    expect(out1).toMatch(/d=1: \d+ seed steps -> /);
    const manifest = JSON.parse(readFileSync(join(ds, "dataset.json"), "utf8"));
    expect(manifest.samples).toBeGreaterThan(0);
    expect(manifest.stages.map((s: { distance: number }) => s.distance)).toEqual([1, 3]);

    const ev = join(root, "eval");
    const out2 = await cli(
      "eval-recovery",
      "--dataset",
      ds,
      "--out",
      ev,
      "--recovery-budget",
      "1,3",
      "--seed",
      "5",
      "--no-contexts",
      "-q",
    );
    expect(out2).toMatch(/SIMULATED/);
    expect(out2).toMatch(/d=1 r=1: implicit .* explicit .* gain/);
    const report = JSON.parse(readFileSync(join(ev, "recovery-eval.json"), "utf8")) as RecoveryEvalReport;
    expect(report.simulated).toBe(true);
    expect(report.label).toMatch(/^simulated: /);
    expect(new Set(report.table.map((r) => r.variant))).toEqual(
      new Set(["implicit/0-E", "explicit-skilled/0-E", "explicit-weak/0-E"]),
    );
    for (const v of ["implicit/0-E", "explicit-weak/0-E"]) {
      for (const r of [1, 3])
        expect(report.table.filter((x) => x.variant === v && x.r === r).reduce((s, x) => s + x.n + x.excluded, 0)).toBe(
          report.samples,
        );
    }
    expect(report.implicitVsExplicit).toHaveLength(4);
    expect(readFileSync(join(ev, "runs.jsonl"), "utf8").trim().split("\n")).toHaveLength(report.samples * 3 * 2);

    const ag = join(root, "agreement");
    await cli(
      "eval-recovery",
      "--agreement",
      "--out",
      ag,
      "--limit",
      "2",
      "--recovery-budget",
      "1,3",
      "--seed-steps",
      "2",
      "-q",
    );
    const agreement = JSON.parse(readFileSync(join(ag, "oracle-agreement.json"), "utf8")) as OracleAgreementReport;
    expect(agreement.agreement.map((r) => `${r.noise}/${r.oracle}`)).toEqual([
      "off/R_O",
      "off/R_TC",
      "off/R_O AND R_TC",
      "off/R_Om",
      "off/R_Om AND R_TC",
      "off/R_Om (mean only)",
      "off/R_Om (mean only) AND R_TC",
      "on/R_O",
      "on/R_TC",
      "on/R_O AND R_TC",
      "on/R_Om",
      "on/R_Om AND R_TC",
      "on/R_Om (mean only)",
      "on/R_Om (mean only) AND R_TC",
    ]);
    // Noise off: no dynamic pixels anywhere, so the mean-only R_Om is R_O exactly; the local floor only adds
    // rejections.
    const row = (noise: string, oracle: string) =>
      agreement.agreement.find((r) => r.noise === noise && r.oracle === oracle)!;
    expect({ ...row("off", "R_Om (mean only)"), oracle: "R_O" }).toEqual(row("off", "R_O"));
    expect(row("off", "R_Om").tp + row("off", "R_Om").fp).toBeLessThanOrEqual(
      row("off", "R_O").tp + row("off", "R_O").fp,
    );
    for (const r of agreement.agreement) expect(r.tp + r.fp + r.tn + r.fn).toBe(r.n);

    // The report picks both files up from the folder and renders their tables.
    const extras = findExtraFiles(root, []);
    expect(extras.map((e) => e.name).sort()).toEqual(["oracle-agreement.json", "recovery-eval.json"]);
    const html = extras.map((e) => jsonTables(e.data)).join("");
    expect(html).toContain("implicit vs explicit");
    expect(html).toContain("R_O AND R_TC");
    expect(html).toContain("explicit-skilled/0-E");
  }, 240_000);

  it("says what to fix for bad flags", async () => {
    await expect(
      buildProgram().parseAsync([
        "node",
        "retrace",
        "dataset",
        "build",
        "--distances",
        "1,x",
        "-q",
        "--out",
        join(tmpdir(), "x"),
      ]),
    ).rejects.toThrow(/--distances/);
    await expect(buildProgram().parseAsync(["node", "retrace", "eval-recovery", "-q"])).rejects.toThrow(/--dataset/);
  });
});
