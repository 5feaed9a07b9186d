/**
 * The report opens in headless Chromium (Debian's chromium + playwright-core) with no console
 * errors and no network requests, draws its charts, and the trajectory viewer steps through a real
 * SimDesk episode, recovery branch included. Model text is escaped: a response carrying markup is
 * shown as text and never executed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { pickEpisodes, episodeFolder } from "../../experiments/report/data.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const tools = systemTools("the report-in-Chromium tests", CHROMIUM_TOOLS);

const CHROMIUM = "/usr/bin/chromium";
const out = mkdtempSync(join(tmpdir(), "retrace-report-"));
const EVIL = `<img src=x onerror="window.__pwned=1"></script><b>bold</b>`;
let browser: Browser;

beforeAll(async () => {
  const config = parseExperimentConfig({
    kind: "end-to-end", name: "report-test", env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green"] },
    seeds: { count: 2 }, maxRecoveryIterations: [3], options: { maxForwardSteps: 20 },
    pairs: [{ name: "skilled", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" }, detector: { kind: "sim", profile: "decent" } }],
  });
  const run = await runExperiment(config, createSimDeskRuntime(), { out: join(out, "e2e"), workers: 2 });
  // Plant markup in one episode's model text, as a hostile model might produce it.
  const line = pickEpisodes(run.lines, 8)[0];
  const file = join(episodeFolder(join(out, "e2e"), line), "trajectory.json");
  const rec = JSON.parse(readFileSync(file, "utf8"));
  rec.trajectory.steps[0].response = EVIL;
  // ... and in the task instruction and OSWorld task fields (the viewer prints both)
  rec.instruction = `Rename the folder ${EVIL}`;
  rec.extra = { osworld: { id: EVIL, instruction: EVIL, related_apps: [EVIL], evaluator: { func: EVIL, expected: { rules: { expected: EVIL } } } } };
  writeFileSync(file, JSON.stringify(rec));
  // ... and in condition names and the experiment name of a hand-edited summary
  const summaryFile = join(out, "e2e", "summary.json");
  const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
  summary.experiment = `report-test ${EVIL}`;
  for (const c of summary.conditions) {
    c.condition = `${c.condition} ${EVIL}`;
    c.params = { ...c.params, note: EVIL };
  }
  writeFileSync(summaryFile, JSON.stringify(summary));
  writeFileSync(join(out, "recovery-eval.json"), JSON.stringify({ oracle: "retrace", rows: [{ task: "files-rename-folder", recovered: 3, total: 4, note: EVIL }] }));
  if (!tools.run) return;
  tools.assert();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("a SimDesk run folder", () => {
  it("holds OSWorld-style episode folders plus results, summaries and the manifest at the top", () => {
    const dir = join(out, "e2e", "skilled.max-rec-3", "files-rename-folder", "0");
    for (const f of ["traj.jsonl", "step_0.png", "step_1.png", "result.txt", "result.json", "trajectory.json"]) expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readFileSync(join(dir, "result.txt"), "utf8")).toMatch(/^[01](\.\d+)?\n$/);
    const first = JSON.parse(readFileSync(join(dir, "traj.jsonl"), "utf8").split("\n")[0]);
    expect(first).toMatchObject({ step_num: 1, screenshot_file: "step_1.png" });
    expect(first.info.simulated).toBe(true);
    for (const f of ["results.jsonl", "timings.jsonl", "summary.json", "summary.csv", "manifest.json"]) expect(existsSync(join(out, "e2e", f)), f).toBe(true);
    const lines = readFileSync(join(out, "e2e", "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2 * 3 * 2);
    expect(lines.every((l) => l.simulated === true && l.stability?.source === "ground-truth")).toBe(true);
  });
});

describe.runIf(tools.run)("report.html", () => {
  it("loads offline without console errors, draws charts and steps through a trajectory", async () => {
    const r = await buildReport(out);
    expect(r.file).toBe(join(out, "report.html"));
    expect(r.episodes).toBeGreaterThan(0);
    expect(r.images).toBeGreaterThan(0);
    const html = readFileSync(r.file, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toContain(EVIL);
    expect(html).toContain("SIMULATED");

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (q) => !/^(file|data):/.test(q.url()) && requests.push(q.url()));
    await page.goto(`file://${r.file}`);
    await page.waitForSelector("body[data-viewer=ready]", { timeout: 15_000 });
    expect(Number(await page.getAttribute("body", "data-charts"))).toBeGreaterThanOrEqual(2);
    // charts really painted something
    const painted = await page.$$eval("canvas", (cs) => cs.map((c) => (c as HTMLCanvasElement).width * (c as HTMLCanvasElement).height));
    expect(painted.every((n) => n > 0)).toBe(true);

    // the recovery-eval file is rendered as a table, escaped
    expect(await page.textContent("#recovery-eval")).toContain("files-rename-folder");

    // the viewer: pick an episode with a recovery branch, step into it
    const labels = await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""));
    const withRecovery = labels.findIndex((t) => / recovery,/.test(t));
    expect(withRecovery).toBeGreaterThanOrEqual(0);
    await page.selectOption("#episode-select", String(withRecovery));
    const branch = page.locator("#viewer-lanes .chip.recovery");
    expect(await branch.count()).toBeGreaterThan(0);
    await branch.first().click();
    expect(await page.textContent("#viewer-info")).toContain("recovery");
    expect(await page.getAttribute("#viewer-shot", "src")).toMatch(/^data:image\/jpeg;base64,/);
    const naturalWidth = await page.$eval("#viewer-shot", (i) => (i as HTMLImageElement).naturalWidth);
    expect(naturalWidth).toBeGreaterThan(100);
    await page.click("#viewer-next");
    expect(await page.textContent("#viewer-result")).toMatch(/SUCCESS|FAILURE/);

    // the planted markup shows as text and never runs
    await page.selectOption("#episode-select", "0");
    expect(await page.textContent("#viewer-info")).toContain("<img src=x");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // instruction, OSWorld task fields, condition and experiment names: shown as text, no element made
    const body = (await page.textContent("body")) ?? "";
    expect(body).toContain("Rename the folder <img src=x");
    expect(body).toContain('"related_apps":["<img src=x');
    expect(body).toContain("skilled.max-rec-3 <img src=x");
    expect(body).toContain("report-test <img src=x");
    expect(await page.$$eval("img[src='x'], img[onerror], [onerror], b", (els) => els.filter((e) => e.tagName !== "B" || e.textContent === "bold").map((e) => e.outerHTML.slice(0, 60)))).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    const shot = join(out, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
