/**
 * The report opens in headless Chromium (Debian's chromium + playwright-core) at 1400 and 800 px
 * with no console errors and no network requests: success bars carry their CI whiskers, no table
 * header is a raw JSON field name, nothing scrolls sideways at 800 px, and the trajectory viewer
 * reaches every episode (loaded on demand from its chunk files), filters them by condition, task,
 * outcome and recovery, shows the same task across conditions, draws every chart kind, and steps through a
 * real SimDesk episode, recovery branch included. Model text is escaped: a response carrying
 * markup is shown as text and never executed. Run folders keep screenshots in the blob store;
 * `exportOsworld` writes OSWorld's layout with step PNGs.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { pickEpisodes, episodeFolder } from "../../experiments/report/data.ts";
import { exportOsworld } from "../../experiments/report/export-osworld.ts";
import { conditionLabel } from "../../experiments/report/labels.ts";
import { runRecoveryEvalSuite } from "../../experiments/recovery-eval/run.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const tools = systemTools("the report-in-Chromium tests", CHROMIUM_TOOLS);

const CHROMIUM = "/usr/bin/chromium";
const out = mkdtempSync(join(tmpdir(), "retrace-report-"));
const EVIL = `<img src=x onerror="window.__pwned=1"></script><b>bold</b>`;
let browser: Browser;

beforeAll(async () => {
  const config = parseExperimentConfig({
    kind: "end-to-end",
    name: "report-test",
    env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green"] },
    seeds: { count: 2 },
    maxRecoveryIterations: [3],
    options: { maxForwardSteps: 20 },
    pairs: [
      {
        name: "skilled",
        forward: { kind: "sim", profile: "sloppy" },
        recovery: { kind: "sim", profile: "skilled" },
        detector: { kind: "sim", profile: "decent" },
      },
    ],
  });
  const run = await runExperiment(config, createSimDeskRuntime(), { out: join(out, "e2e"), workers: 2 });
  // Plant markup in one episode's model text, as a hostile model might produce it.
  const line = pickEpisodes(run.lines, 8)[0];
  const file = join(episodeFolder(join(out, "e2e"), line), "trajectory.json");
  const rec = JSON.parse(readFileSync(file, "utf8"));
  rec.trajectory.steps[0].response = EVIL;
  // ... and in the task instruction and OSWorld task fields (the viewer prints both)
  rec.instruction = `Rename the folder ${EVIL}`;
  rec.extra = {
    osworld: {
      id: EVIL,
      instruction: EVIL,
      related_apps: [EVIL],
      evaluator: { func: EVIL, expected: { rules: { expected: EVIL } } },
    },
  };
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
  mkdirSync(join(out, "extra-eval"));
  // A real (small) recovery evaluation: recovery-eval.json and oracle-agreement.json as the demo writes them.
  await runRecoveryEvalSuite({ out: join(out, "recovery-eval"), limit: 1, recoveryBudget: [1, 3] });
  writeFileSync(
    join(out, "extra-eval", "recovery-eval.json"),
    JSON.stringify({ oracle: "retrace", rows: [{ task: "files-rename-folder", recovered: 3, total: 4, note: EVIL }] }),
  );
  if (!tools.run) return;
  tools.assert();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
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
  rmSync(out, { recursive: true, force: true });
});

describe("a SimDesk run folder", () => {
  it("holds episode folders whose screenshots stay in the blob store, plus results, summaries and the manifest at the top", () => {
    const dir = join(out, "e2e", "skilled.max-rec-3", "files-rename-folder", "0");
    for (const f of ["traj.jsonl", "result.txt", "result.json", "trajectory.json"])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith(".png"))).toEqual([]);
    expect(readFileSync(join(dir, "result.txt"), "utf8")).toMatch(/^[01](\.\d+)?\n$/);
    const first = JSON.parse(readFileSync(join(dir, "traj.jsonl"), "utf8").split("\n")[0]);
    expect(first.step_num).toBe(1);
    expect(existsSync(join(out, "e2e", "blobs", first.screenshot_blob))).toBe(true);
    expect(first.info.simulated).toBe(true);
    for (const f of ["results.jsonl", "timings.jsonl", "summary.json", "summary.csv", "manifest.json"])
      expect(existsSync(join(out, "e2e", f)), f).toBe(true);
    const lines = readFileSync(join(out, "e2e", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2 * 3 * 2);
    expect(lines.every((l) => l.simulated === true && l.stability?.source === "ground-truth")).toBe(true);
  });
});

describe("retrace export --osworld", () => {
  it("writes OSWorld's per-episode layout with step PNGs copied from the blob store", async () => {
    const dest = join(out, "..", `${out.split("/").pop()}-osworld`);
    try {
      const r = await exportOsworld({ dir: join(out, "e2e"), out: dest });
      expect(r.episodes).toBe(12);
      const dir = join(dest, "skilled.max-rec-3", "files-rename-folder", "0");
      const lines = readFileSync(join(dir, "traj.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ step_num: 1, screenshot_file: "step_1.png" });
      for (let i = 0; i <= lines.length; i++)
        expect(existsSync(join(dir, `step_${i}.png`)), `step_${i}.png`).toBe(true);
      expect(readFileSync(join(dir, "step_1.png")).subarray(1, 4).toString()).toBe("PNG");
      expect(readFileSync(join(dir, "result.txt"), "utf8")).toMatch(/^[01](\.\d+)?\n$/);
      await expect(exportOsworld({ dir: join(out, "e2e"), out: dest })).rejects.toThrow(/not empty/);
      await expect(exportOsworld({ dir: join(out, "e2e"), out: join(out, "e2e", "x") })).rejects.toThrow(
        /inside the run folder/,
      );
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });
});

describe.runIf(tools.run)("report.html", () => {
  it("loads offline without console errors, draws charts and steps through a trajectory", async () => {
    const r = await buildReport(out);
    expect(r.file).toBe(join(out, "report.html"));
    expect(r.episodes).toBe(12);
    expect(r.chunks).toBeGreaterThan(0);
    const html = readFileSync(r.file, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toContain(EVIL);
    expect(html).toContain("SIMULATED");

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (q) => !/^(file|data|blob):/.test(q.url()) && requests.push(q.url()));
    await page.goto(`file://${r.file}`);
    await page.waitForSelector("body[data-viewer=ready]", { timeout: 15_000 });
    expect(Number(await page.getAttribute("body", "data-charts"))).toBeGreaterThanOrEqual(4);
    // charts really painted something
    const painted = await page.$$eval("canvas", (cs) =>
      cs.map((c) => (c as HTMLCanvasElement).width * (c as HTMLCanvasElement).height),
    );
    expect(painted.every((n) => n > 0)).toBe(true);
    // the extra recovery-eval file is rendered as a table, escaped
    expect(await page.textContent("#recovery-eval")).toContain("files-rename-folder");

    // the viewer: every episode is in the list; pick one with a recovery branch and step into it
    expect(await page.textContent("#f-count")).toBe("12 of 12 episodes");
    await page.selectOption("#f-recovery", "yes");
    const withRecovery = await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""));
    expect(withRecovery.length).toBeGreaterThan(0);
    expect(withRecovery.every((t) => / recover(y|ies)/.test(t))).toBe(true);
    await page.waitForSelector("#viewer-lanes .chip.recovery");
    const branch = page.locator("#viewer-lanes .chip.recovery");
    await branch.first().click();
    expect(await page.textContent("#viewer-info")).toContain("recovery attempt 1, its action");
    expect(await page.textContent("#viewer-events")).toMatch(
      /detector flagged step \d+ \(the models' step \d+( too)?\) as the first error/,
    );
    expect(await page.locator("#viewer-lanes .flag.E").count()).toBeGreaterThan(0);
    expect(await page.locator("#viewer-lanes .flag.R").count()).toBeGreaterThan(0);
    // the target beside the restored screen, with the SSIM heat map between them
    expect(await page.locator("#viewer-restore img").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("#viewer-restore canvas.heat").count()).toBeGreaterThan(0);
    // full-resolution screenshots, with the action drawn on them: SimDesk screens are kept as
    // gzipped SVG, so they come from the report's screen packs, unzipped in the page
    expect(await page.getAttribute("#viewer-shot", "data-src")).toMatch(/^screen:[0-9a-f]{16}$/);
    expect(existsSync(join(out, "report-files", "screens"))).toBe(true);
    await page.waitForFunction(() => (document.getElementById("viewer-shot") as HTMLImageElement).naturalWidth > 0);
    expect(await page.$eval("#viewer-shot", (i) => (i as HTMLImageElement).naturalWidth)).toBe(1280);
    await page.click("#viewer-next");
    expect(await page.textContent("#viewer-result")).toMatch(/SUCCESS|FAILURE/);
    await page.selectOption("#f-recovery", "");
    await page.selectOption("#f-outcome", "success");
    const solved = await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""));
    expect(solved.length).toBeGreaterThan(0);
    expect(solved.every((t) => t.includes("| solved"))).toBe(true);
    await page.selectOption("#f-outcome", "");
    // condition and task filters narrow the list to that condition / task
    const condition = "skilled.max-rec-3";
    await page.selectOption("#f-condition", {
      label: await page.$eval(
        "#f-condition",
        (s, c) => Array.from((s as HTMLSelectElement).options).find((o) => o.value.startsWith(c))!.label,
        condition,
      ),
    });
    const ofCondition = await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""));
    expect(ofCondition).toHaveLength(6);
    // listed under the condition's display name, as the tables show it
    expect(ofCondition.every((t) => t.includes("| skilled, max recovery iterations 3 |"))).toBe(true);
    await page.selectOption("#f-condition", "");
    await page.selectOption("#f-task", "editor-append-notes");
    const ofTask = await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""));
    expect(ofTask).toHaveLength(4);
    expect(ofTask.every((t) => t.includes("| editor-append-notes #"))).toBe(true);
    // the same task and seed side by side across conditions: one row per condition, each with its lane
    await page.waitForSelector("#compare .row .chip");
    expect(await page.textContent("#compare h3")).toContain(
      "Same task and seed across conditions (editor-append-notes #",
    );
    expect(await page.locator("#compare .row").count()).toBe(2);
    await page.selectOption("#f-task", "");

    // every episode is reachable: open each one and check the viewer shows it
    const keys = readFileSync(join(out, "e2e", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).key as string);
    const count = await page.locator("#episode-select option").count();
    expect(count).toBe(keys.length);
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      await page.selectOption("#episode-select", String(i));
      await page.waitForFunction(
        (n) =>
          document.body.getAttribute("data-episode") !== null &&
          (document.getElementById("episode-select") as HTMLSelectElement).value === n,
        String(i),
      );
      const key = await page.getAttribute("body", "data-episode");
      await page.waitForFunction((k) => document.body.getAttribute("data-episode") === k, key);
      seen.add(key!);
    }
    expect([...seen].sort()).toEqual([...keys].sort());

    // the planted markup shows as text and never runs
    const line = pickEpisodes(
      JSON.parse(
        `[${readFileSync(join(out, "e2e", "results.jsonl"), "utf8")
          .trim()
          .split("\n")
          .join(",")}]`,
      ),
      8,
    )[0];
    const evilIndex = (await page.$$eval("#episode-select option", (o) => o.map((x) => x.textContent ?? ""))).findIndex(
      (t) => t.includes(`| ${conditionLabel(line.condition)} | ${line.task} #${line.seed} |`),
    );
    await page.selectOption("#episode-select", String(evilIndex));
    await page.waitForFunction((k) => document.body.getAttribute("data-episode") === k, line.key);
    expect(await page.textContent("#viewer-info")).toContain("<img src=x");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // instruction, OSWorld task fields, condition and experiment names: shown as text, no element made
    const body = (await page.textContent("body")) ?? "";
    expect(body).toContain("Rename the folder <img src=x");
    expect(body).toContain("OSWorld task <img src=x");
    expect(body).toContain("apps <img src=x");
    expect(body).toContain("skilled.max-rec-3 <img src=x");
    expect(body).toContain("report-test <img src=x");
    expect(
      await page.$$eval("img[src='x'], img[onerror], [onerror], b", (els) =>
        els.filter((e) => e.tagName !== "B" || e.textContent === "bold").map((e) => e.outerHTML.slice(0, 60)),
      ),
    ).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    const shot = join(out, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it("draws every chart kind (success, Success@K, sweep, stability, recovery evaluation) beside the fixed/broken matrix, per-app table and confusion matrices", async () => {
    // a small ideal-recovery run and a sweep beside links to the e2e run and the recovery evaluation
    const dir = join(out, "..", `${out.split("/").pop()}-charts`);
    try {
      const base = {
        env: { kind: "simdesk", tasks: ["files-rename-folder"] },
        seeds: [0],
        options: { maxForwardSteps: 20 },
      };
      await runExperiment(
        parseExperimentConfig({
          ...base,
          env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green"] },
          seeds: [0, 1],
          kind: "ideal-recovery",
          name: "ideal",
          k: 2,
          maxInstances: 2,
          forward: { kind: "sim", profile: "sloppy" },
          detector: { kind: "sim", profile: "decent" },
        }),
        createSimDeskRuntime(),
        { out: join(dir, "ideal"), workers: 1 },
      );
      await runExperiment(
        parseExperimentConfig({
          ...base,
          kind: "sweep",
          name: "sweep",
          pair: {
            name: "skilled",
            forward: { kind: "sim", profile: "sloppy" },
            recovery: { kind: "sim", profile: "skilled" },
            detector: { kind: "sim", profile: "noisy" },
          },
          params: { freezeWindow: [0, 3] },
          maxRecoveryIterations: [3],
        }),
        createSimDeskRuntime(),
        { out: join(dir, "sweep"), workers: 1 },
      );
      cpSync(join(out, "e2e"), join(dir, "e2e"), { recursive: true });
      cpSync(join(out, "recovery-eval"), join(dir, "recovery-eval"), { recursive: true });
      const r = await buildReport(dir);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(`file://${r.file}`);
      await page.waitForSelector("body[data-viewer=ready]", { timeout: 15_000 });
      // each chart: its title, then a canvas that painted
      const charts = await page.$$eval("canvas:not(.heat)", (cs) =>
        cs.map((c) => ({
          title: c.parentElement?.previousElementSibling?.textContent ?? "",
          area: (c as HTMLCanvasElement).width * (c as HTMLCanvasElement).height,
        })),
      );
      for (const title of [
        /success rate per condition/,
        /Success@K per recovery step/,
        /success rate across the sweep/,
        /process stability/,
        /Recovery success by context, distance d and recovery budget r/,
        /Implicit vs explicit recovery/,
      ])
        expect(
          charts.filter((c) => title.test(c.title) && c.area > 0).length,
          `${title} among ${charts.map((c) => c.title).join("; ")}`,
        ).toBeGreaterThan(0);
      expect(Number(await page.getAttribute("body", "data-charts"))).toBeGreaterThanOrEqual(6);
      const text = (await page.textContent("body")) ?? "";
      // the paired fixed/broken matrix, the per-app breakdown and the oracle confusion matrices with kappa
      for (const words of [/Tasks recovery fixed or broke/, /Success per app/, /Cohen's kappa/])
        expect(text).toMatch(words);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads as a tool at 1400 and 800 px: whiskers on success bars, worded headers, no sideways scroll", async () => {
    const r = await buildReport(out);
    // Every JSON field name the report's inputs carry; a visible header must not be one of the coded ones.
    const keys = new Set<string>();
    const collect = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) (keys.add(k), collect(x));
    };
    for (const f of ["recovery-eval/recovery-eval.json", "recovery-eval/oracle-agreement.json", "e2e/summary.json"])
      collect(JSON.parse(readFileSync(join(out, f), "utf8")));
    readFileSync(join(out, "e2e", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .forEach((l) => collect(JSON.parse(l)));
    // camelCase / snake_case names and the oracle abbreviations; plain words such as "task" or "n" may be headers.
    const coded = [...keys].filter((k) => /[A-Z_]/.test(k) || /^(ro|rtc|rom|tp|fp|tn|fn)$/.test(k));
    expect(coded).toEqual(expect.arrayContaining(["successCi", "agreementCi", "fprCi", "roPass"]));
    for (const width of [1400, 800]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      const errors: string[] = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`file://${r.file}`);
      await page.waitForSelector("body[data-viewer=ready]", { timeout: 15_000 });
      // one whisker per success bar at least (3 conditions), and the recovery-eval bars carry theirs
      expect(Number(await page.getAttribute("body", "data-whiskers"))).toBeGreaterThanOrEqual(3);
      const headers = await page.$$eval("th", (ths) =>
        ths.filter((t) => (t as HTMLElement).offsetParent !== null).map((t) => (t.textContent ?? "").trim()),
      );
      expect(headers.length).toBeGreaterThan(10);
      expect(headers.filter((h) => coded.includes(h))).toEqual([]);
      expect(await page.textContent("body")).not.toContain("$0.0000");
      const scroll = await page.evaluate(() => ({
        sw: document.documentElement.scrollWidth,
        cw: document.documentElement.clientWidth,
      }));
      expect(scroll.sw, `scrollWidth at ${width} px`).toBeLessThanOrEqual(scroll.cw);
      // the step column does not wrap one character per line
      const ddWidth = await page.$eval("#viewer-info dd", (d) => (d as HTMLElement).getBoundingClientRect().width);
      expect(ddWidth).toBeGreaterThan(120);
      expect(errors).toEqual([]);
      await page.close();
    }
  });
});
