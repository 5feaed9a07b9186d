/**
 * A report with one very long typed action opens as fast as one with a short one (issue 31: a
 * 1 MB typed action did not load in 60 s, 100 KB took 14 s). The viewer cuts every text at
 * VIEWER_TEXT_LIMIT characters with a notice (experiments/report/viewer-text-limit.ts). Measured side by
 * side in headless Chromium: the time from navigation to the step shown, for a 1 MB and for a
 * 100-character typed action in an otherwise identical SimDesk run folder.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "@retrace-cua/browser/chromium";
import { parseExperimentConfig } from "../config/load.ts";
import { runExperiment } from "../runner/experiment.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { buildReport } from "../report/index.ts";
import { episodeFolder } from "../report/data.ts";
import type { BenchResult } from "./result.ts";

type Page = Awaited<ReturnType<Awaited<ReturnType<typeof launchChromium>>["newPage"]>>;

/** The end of every planted text: found in the page only if the viewer shows the text whole. */
export const LONG_TEXT_END = "<<END-OF-THE-TYPED-TEXT>>";

/** A report of a one-episode SimDesk run whose step 0 typed `chars` characters (also its response). */
export async function longTextReport(
  dir: string,
  chars: number,
): Promise<{ file: string; link: string; record: string; text: string }> {
  const config = parseExperimentConfig({
    kind: "end-to-end",
    name: "long-text",
    env: { kind: "simdesk", tasks: ["editor-append-notes"] },
    seeds: { count: 1 },
    maxRecoveryIterations: [3],
    options: { maxForwardSteps: 20 },
    pairs: [
      {
        name: "p",
        forward: { kind: "sim", profile: "sloppy" },
        recovery: { kind: "sim", profile: "skilled" },
        detector: { kind: "sim", profile: "decent" },
      },
    ],
  });
  const out = join(dir, "run");
  const run = await runExperiment(config, createSimDeskRuntime(), { out, workers: 1 });
  const line = run.lines[0];
  const record = join(episodeFolder(out, line), "trajectory.json");
  const rec = JSON.parse(readFileSync(record, "utf8"));
  // Words and spaces, as a pasted document would be, ending in a marker.
  const text =
    "lorem ipsum dolor sit amet ".repeat(Math.ceil(chars / 27)).slice(0, Math.max(0, chars - LONG_TEXT_END.length)) +
    LONG_TEXT_END;
  rec.trajectory.steps[0].actions = [{ type: "TYPING", text }];
  rec.trajectory.steps[0].response = `I will type the document: ${text}`;
  writeFileSync(record, JSON.stringify(rec));
  const report = await buildReport(out);
  return {
    file: report.file,
    link: `#${["long-text", ...line.key.split("/")].map(encodeURIComponent).join("/")}/0`,
    record,
    text,
  };
}

/** Open step 0 of the report by its deep link; ms from navigation to the step shown. */
export async function openLongTextStep(
  page: Page,
  report: { file: string; link: string },
  timeout = 60_000,
): Promise<number> {
  const t = performance.now();
  await page.goto(`file://${report.file}${report.link}`, { timeout });
  await page.waitForFunction(
    () =>
      document.body.getAttribute("data-step") === "0" &&
      (document.getElementById("viewer-info")?.textContent ?? "").includes("TYPING"),
    null,
    { timeout },
  );
  return performance.now() - t;
}

export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-long-text-"));
  const browser = await launchChromium();
  try {
    const short = await longTextReport(join(dir, "short"), 100);
    const long = await longTextReport(join(dir, "long"), 1_000_000);
    const page = await browser.newPage();
    // warm the browser once, then alternate so both see the same machine load
    await openLongTextStep(page, short);
    const times = { short: [] as number[], long: [] as number[] };
    for (let i = 0; i < 3; i++) {
      times.short.push(await openLongTextStep(page, short));
      times.long.push(await openLongTextStep(page, long));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratio = med(times.long) / med(times.short);
    return [
      {
        name: "report-long-typed-action",
        ratioOf: "open step with a 1 MB typed action / with a 100-character one",
        ratio,
        target: "<= 2",
        pass: ratio <= 2,
        details: { longMs: Math.round(med(times.long)), shortMs: Math.round(med(times.short)) },
      },
    ];
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
