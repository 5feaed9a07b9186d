/**
 * Issue 31: a report with one 1 MB typed action did not load in 60 s (100 KB took 14 s). The
 * viewer cuts every text at VIEWER_TEXT_LIMIT characters with a notice naming the file that keeps
 * it whole. In headless Chromium, the step with a 1 MB typed action (and a 1 MB response) opens
 * within the test's timeout, shows the notice, and its page holds no more than the cut text; the
 * record on disk keeps the whole text. How long it takes is the bench line report-long-typed-action.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG_TEXT_END, longTextReport, openLongTextStep } from "../../experiments/bench/report-long-text.ts";
import { capText, VIEWER_TEXT_LIMIT } from "../../experiments/report/viewer-text-limit.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const tools = systemTools("the long-text report test", CHROMIUM_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-long-text-"));
let browser: Browser | undefined;
let report: Awaited<ReturnType<typeof longTextReport>>;

beforeAll(async () => {
  report = await longTextReport(dir, 1_000_000);
  if (!tools.run) return;
  tools.assert();
  browser = await chromium.launch({
    executablePath: CHROMIUM_TOOLS[0],
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("capText", () => {
  it("leaves text up to the limit alone and cuts longer text with a notice naming the file", () => {
    const at = "x".repeat(VIEWER_TEXT_LIMIT);
    expect(capText(at, "traj.jsonl")).toBe(at);
    const cut = capText(at + "y", "a/traj.jsonl");
    expect(cut.startsWith(at)).toBe(true);
    expect(cut).not.toContain("y");
    expect(cut).toContain(
      `… (truncated: ${VIEWER_TEXT_LIMIT.toLocaleString("en-US")} of ${(VIEWER_TEXT_LIMIT + 1).toLocaleString("en-US")} characters shown, full text in a/traj.jsonl)`,
    );
    // a surrogate pair at the cut is not split
    const emoji = "x".repeat(VIEWER_TEXT_LIMIT - 1) + "😀" + "z";
    expect(capText(emoji, "f").slice(0, VIEWER_TEXT_LIMIT)).toBe("x".repeat(VIEWER_TEXT_LIMIT - 1) + "…");
  });
});

describe("a report whose episode typed 1 MB", () => {
  it("ships only the cut text in its viewer files; the episode record keeps the whole text", () => {
    const files = join(dir, "run", "report-files");
    const shipped = readdirSync(files)
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(files, f), "utf8"));
    expect(shipped.join("").length).toBeGreaterThan(0);
    for (const text of shipped) expect(text).not.toContain(LONG_TEXT_END);
    expect(shipped.some((t) => t.includes("truncated: 8,192 of 1,000,000 characters shown, full text in"))).toBe(true);
    expect(readFileSync(join(dir, "run", "report.html"), "utf8")).not.toContain(LONG_TEXT_END);
    expect(readFileSync(report.record, "utf8")).toContain(report.text);
  });

  it.runIf(tools.run)(
    "opens the step in Chromium, shows the truncation notice and does not hold the full text",
    async () => {
      const page = await browser!.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await openLongTextStep(page, report, 90_000);
      const info = await page.evaluate(() => (document.getElementById("viewer-info") as HTMLElement).innerText);
      // the typed action and the response, each cut with the notice naming where the whole text is
      expect(
        info.match(/… \(truncated: 8,192 of [\d,]+ characters shown, full text in [^)]*trajectory\.json\)/g)?.length,
      ).toBeGreaterThanOrEqual(2);
      const html = await page.content();
      expect(html).not.toContain(LONG_TEXT_END);
      expect(html.length).toBeLessThan(report.text.length);
      expect(errors).toEqual([]);
      await page.close();
    },
    150_000,
  );
});
