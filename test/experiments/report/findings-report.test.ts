/**
 * The paper's findings in `retrace report`: a model-backed run folder's report renders the findings
 * section computed from the folder's own runs, without the simulation banner.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../../experiments/report/index.ts";
import { e2e, run } from "./helpers/findings.ts";

describe("retrace report on a model-backed run folder", () => {
  it("renders the findings section computed from the folder's own runs, without the simulation banner", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "retrace-findings-")), "e2e");
    mkdirSync(dir, { recursive: true });
    const runs = [run("gpt.no-recovery", 20, 60), run("gpt.max-rec-1", 24, 60), run("gpt.max-rec-3", 38, 60)];
    writeFileSync(
      join(dir, "results.jsonl"),
      runs
        .flatMap((r) => r.lines)
        .map((l, i) => JSON.stringify({ ...l, index: i }))
        .join("\n") + "\n",
    );
    writeFileSync(join(dir, "summary.json"), JSON.stringify(e2e(runs.map((r) => r.c))));
    const out = await buildReport(dir, { episodesPerRun: 0 });
    const html = readFileSync(out.file, "utf8");
    expect(html).toMatch(/Do the paper('|&#39;)s findings hold here\?/);
    expect(html).toContain("<b>HOLDS (p=1.2e-4)</b>: Recoverer &quot;gpt&quot; gains from more recovery attempts");
    expect(html).toContain("McNemar");
    expect(html).toContain("cannot be judged: no ideal-recovery run");
    expect(html).not.toContain("Checked on simulated components");
  });
});
