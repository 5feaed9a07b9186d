/**
 * Issue 37, the views: on the tiny demo (SimDesk, simulated policies) in Chromium, each share
 * link of 10 sampled episodes reopens its own episode (a seed is never read as a step), an
 * unknown link says so, and the "Tasks recovery fixed or broke" table appears for the pairs'
 * `<pair>.no-recovery` baseline. The rows themselves are pinned in report/paired.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "./helpers/model-roles.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const chromiumTools = systemTools("the report-views-in-Chromium test", CHROMIUM_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-report-views-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the tiny demo's report in Chromium", () => {
  const out = join(dir, "demo");
  it("writes the demo with a fixed/broke table", async () => {
    const r = await cli("demo", "--size", "tiny", "-o", out, "-q");
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain("<h3>Tasks recovery fixed or broke</h3>");
    expect(html).toContain("skilled, max recovery iterations 3 vs skilled, no recovery");
    expect(html).not.toContain("self-contained");
  }, 300_000);

  it.runIf(chromiumTools.run)(
    "reopens each of 10 sampled share links on its own episode, and says so for an unknown link",
    async () => {
      chromiumTools.assert();
      const file = join(out, "report.html");
      const data = JSON.parse(
        /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(readFileSync(file, "utf8"))![1],
      ) as { viewer: { index: Array<{ run: string; key: string }> } };
      const index = data.viewer.index;
      expect(index.length).toBeGreaterThanOrEqual(10);
      // 10 episodes spread over the index (every run), seeds 0 included: the link's last part is the seed
      const picks = Array.from({ length: 10 }, (_, i) => index[Math.floor((i * index.length) / 10)]);
      const browser = await chromium.launch({
        executablePath: "/usr/bin/chromium",
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--no-first-run",
        ],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        let opened = 0;
        for (const r of picks) {
          // the share link as the viewer writes it ("link to this episode"), followed in a fresh page load
          await page.goto(`file://${file}#${[r.run, ...r.key.split("/")].map(encodeURIComponent).join("/")}`);
          await page.waitForFunction((key) => document.body.getAttribute("data-episode") === key, r.key, {
            timeout: 30_000,
          });
          const shown = await page.evaluate(() => ({
            episode: document.body.getAttribute("data-episode"),
            link:
              (document.querySelector("#viewer-result a.deeplink") as HTMLAnchorElement | null)?.getAttribute("href") ??
              "",
            step: document.body.getAttribute("data-step"),
          }));
          expect(shown.episode).toBe(r.key);
          expect(shown.step).toBe("0");
          // the episode's own link, followed again, opens it again
          await page.goto(`file://${file}${shown.link}`);
          await page.waitForFunction(
            (key) =>
              document.body.getAttribute("data-episode") === key && document.body.getAttribute("data-link") === "found",
            r.key,
            { timeout: 30_000 },
          );
          opened++;
        }
        expect(opened).toBe(10);
        // with a step: the step opens; an unknown episode: a notice, not a silent first episode
        const r = picks[3];
        await page.goto(`file://${file}#${[r.run, ...r.key.split("/")].map(encodeURIComponent).join("/")}/1`);
        await page.waitForFunction(
          (key) =>
            document.body.getAttribute("data-episode") === key && document.body.getAttribute("data-step") === "1",
          r.key,
          { timeout: 30_000 },
        );
        await page.goto(`file://${file}#${encodeURIComponent(r.run)}/no-such-condition/files-rename-draft/0`);
        await page.waitForFunction(() => document.body.getAttribute("data-link") === "unknown", undefined, {
          timeout: 30_000,
        });
        expect(await page.locator(".link-notice").innerText()).toMatch(/names no episode of this report/);
        // the fixed/broke table is on the page
        expect(await page.locator("h3", { hasText: "Tasks recovery fixed or broke" }).count()).toBeGreaterThan(0);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    300_000,
  );

  it.runIf(chromiumTools.run)(
    "underlines the ground-truth off-track step of failed no-recovery episodes, and searches the words of actions",
    async () => {
      chromiumTools.assert();
      const file = join(out, "report.html");
      const data = JSON.parse(
        /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(readFileSync(file, "utf8"))![1],
      ) as {
        viewer: {
          index: Array<{
            run: string;
            key: string;
            condition: string;
            success: boolean;
            task: string;
            label: string;
            instruction: string;
            words?: string;
          }>;
        };
      };
      const index = data.viewer.index;
      const failed = index.filter((r) => !r.success && r.condition.endsWith("no-recovery")).slice(0, 8);
      expect(failed.length).toBeGreaterThan(0);
      const browser = await chromium.launch({
        executablePath: "/usr/bin/chromium",
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--no-first-run",
        ],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        let marked = 0;
        for (const r of failed) {
          await page.goto(`file://${file}#${[r.run, ...r.key.split("/")].map(encodeURIComponent).join("/")}`);
          await page.waitForFunction((key) => document.body.getAttribute("data-episode") === key, r.key, {
            timeout: 30_000,
          });
          const chips = page.locator("#viewer-lanes .chip.offtrack");
          const n = await chips.count();
          // at most one mark per episode; a failed SimDesk episode whose last step still advanced the plan has none
          expect(n).toBeLessThanOrEqual(1);
          if (n === 1) {
            marked++;
            await chips.first().click();
            expect(await page.locator("#viewer-info").innerText()).toMatch(
              /ground truth\s+went off track here \(SimDesk's reference plan/,
            );
          }
        }
        expect(marked).toBeGreaterThan(0);
        // search: a query with punctuation finds the episodes whose actions hold its words, as the index splits them
        await page.goto(`file://${file}`);
        await page.waitForFunction(() => document.body.getAttribute("data-viewer") === "ready", undefined, {
          timeout: 30_000,
        });
        const withPress = index.filter((r) =>
          `${r.task} ${r.label} ${r.instruction} ${r.words ?? ""}`.toLowerCase().includes("press"),
        ).length;
        expect(withPress).toBeGreaterThan(0);
        expect(withPress).toBeLessThan(index.length);
        await page.fill("#f-search", "PRESS(");
        expect(await page.locator("#f-count").innerText()).toMatch(
          new RegExp(`^${withPress} of ${index.length} episodes`),
        );
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    300_000,
  );
});
