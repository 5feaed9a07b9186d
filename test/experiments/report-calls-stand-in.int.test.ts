/**
 * Issue 29 on a model run: the end-to-end models preset against the stand-in (a server that
 * samples: answers are a function of the request's seed and prompt), with overlapped detection so
 * the detector and the policy call concurrently. Every model call is recorded with the step it
 * belongs to when it is made:
 * - in each episode's record, every call names its episode (draw identity: task, seed) and a
 *   step of that episode; the policy call of a forward step answered that step (its reply is the
 *   step's response), the detector call that judged a step returned that step's verdict, the
 *   recoverer calls sit on their recovery attempt's steps; each call lands on exactly one step;
 * - a cached re-run (0 server calls) records the same calls on the same steps;
 * - in Chromium at 1400 and 800 px, deep links open the linked step, the step shows exactly its
 *   own calls, one numbering is used, the post-restoration step shows the context after the cut,
 *   no raw JSON / "undefined" / literal "\n" reaches the page, 0 console errors, no sideways scroll.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../packages/testing/src/stand-in/server.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { megabytes } from "../../experiments/commands/report.ts";
import { callStepIndex } from "../../experiments/report/viewer-calls.ts";
import { cli } from "./helpers/model-roles.ts";
import { expectStep, openByLink, type SampledStep } from "./helpers/viewer-checks.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { TASKS, linesOf, placement, recordOf, tempRunDir } from "./helpers/report-calls.ts";

const chromiumTools = systemTools("the model-run report-in-Chromium test", CHROMIUM_TOOLS);
const dir = tempRunDir();
let server: StandInServer | undefined;
afterAll(async () => {
  await server?.close();
});

function config(): string {
  const c = parseYaml(
    readFileSync(new URL("../../experiments/configs/models/end-to-end.yaml", import.meta.url), "utf8"),
  ) as Record<string, any>;
  for (const s of [c.pairs[0].forward, c.pairs[0].recovery, c.pairs[0].detector])
    Object.assign(s, { observation: "a11y_tree", temperature: 0.7 });
  c.env = { kind: "simdesk", tasks: TASKS };
  c.seeds = [0, 1];
  c.maxRecoveryIterations = [2];
  c.options.maxForwardSteps = 10;
  c.options.recoveryBudget = 3;
  c.options.freezeWindow = 1;
  c.options.detection = "overlapped";
  const file = join(dir, "e2e.json");
  writeFileSync(file, JSON.stringify(c));
  return file;
}

async function run(cfg: string, out: string, ...extra: string[]) {
  const r = await cli(
    "run",
    cfg,
    "--base-url",
    server!.url,
    "--model",
    "retrace-stand-in",
    "--out",
    out,
    "--quiet",
    "--workers",
    "1",
    ...extra,
  );
  expect(r.code, r.stderr).toBe(0);
}

describe("model calls on their own steps (stand-in model run)", () => {
  const out = join(dir, "run-1");
  const cache = join(dir, "cache");
  let report = "";

  it("records every call with its episode and step, each on exactly one step, and a cached re-run places them the same", async () => {
    server = await startStandInServer({ errorRate: 0.35, seed: 3 });
    const cfg = config();
    await run(cfg, out, "--cache", "readwrite", "--cache-dir", cache);
    const lines = linesOf(out).filter((l) => l.status === "ok");
    expect(lines.length).toBe(8);
    let calls = 0,
      policy = 0,
      detector = 0,
      recoverer = 0,
      recovered = 0;
    for (const l of lines) {
      const rec = recordOf(out, l);
      const steps = rec.trajectory.steps;
      const shownOn = new Map<number, number>();
      for (const c of rec.calls ?? []) {
        calls++;
        // the call belongs to this episode ...
        expect(c.draw).toMatchObject({ task: l.task, seed: l.seed });
        // ... and to exactly one of its steps
        const i = callStepIndex(steps, c);
        expect(i, `${l.key}: call ${c.phase} at seq ${c.seq}`).toBeGreaterThanOrEqual(0);
        shownOn.set(i, (shownOn.get(i) ?? 0) + 1);
        const s = steps[i];
        if (c.phase === "policy" && !c.discarded) {
          policy++;
          expect(s.role).toBe("forward");
          expect(s.seq).toBe(c.seq);
          // the policy call of this step is the one that proposed it
          if (s.response) expect(c.reply).toContain(s.response.slice(0, 40));
        }
        if (c.phase === "detector") {
          detector++;
          expect(s.seq).toBe(c.seq);
          expect(s.detection, `${l.key} step ${s.seq} was judged`).toBeDefined();
          expect(c.reply).toContain(s.detection!.reason.slice(0, 30));
        }
        if (c.phase === "recoverer" || c.phase === "selector" || c.phase === "summarizer") {
          recoverer += c.phase === "recoverer" ? 1 : 0;
          expect(c.attempt).toBeGreaterThanOrEqual(1);
          // a recoverer call sits on a recovery step of its attempt, or (a "restored" claim before any recovery step)
          // on the step whose detection started the attempt
          if (c.phase === "recoverer" && s.seq === c.seq) {
            if (s.role === "recovery") expect(s.attempt).toBe(c.attempt);
            else
              expect(
                rec.trajectory.events.some(
                  (e) => e.kind === "recovery-start" && e.afterSeq === s.seq && e.detail.attempt === c.attempt,
                ),
                `${l.key}: recoverer call at seq ${c.seq}`,
              ).toBe(true);
          }
        }
      }
      expect([...shownOn.values()].reduce((a, b) => a + b, 0)).toBe(rec.calls?.length ?? 0);
      // a forward step shows at most one kept policy call: the one that proposed it
      for (const [i, s] of steps.entries())
        if (s.role === "forward") {
          const own = (rec.calls ?? []).filter((c) => callStepIndex(steps, c) === i);
          expect(own.filter((c) => c.phase === "policy" && !c.discarded).length).toBeLessThanOrEqual(1);
        }
      if (l.recoveryAttempts > 0) recovered++;
    }
    console.log(
      `stand-in run: ${lines.length} episodes, ${calls} calls (${policy} policy, ${detector} detector, ${recoverer} recoverer), ${recovered} episodes with a recovery`,
    );
    expect(policy).toBeGreaterThan(10);
    expect(detector).toBeGreaterThan(5);
    expect(recovered).toBeGreaterThan(0);

    // A re-run served from the cache records the same calls on the same steps.
    const served = server.calls;
    const again = join(dir, "run-2");
    await run(cfg, again, "--cache", "read", "--cache-dir", cache);
    expect(server.calls).toBe(served);
    for (const l of lines) {
      const a = recordOf(out, l),
        b = recordOf(again, l);
      expect(placement(b)).toEqual(placement(a));
      expect((b.calls ?? []).every((c) => c.cached)).toBe(true);
    }
    const built = await buildReport(out);
    report = built.file;
    // the size the `report` command prints counts the calls, chunk and screen files beside the page
    const sizeOf = (p: string): number =>
      statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + sizeOf(join(p, f)), 0) : statSync(p).size;
    expect(built.totalBytes).toBe(sizeOf(report) + sizeOf(join(out, "report-files")));
    // each call's latency, left out of the records, is joined back from timings.jsonl for the viewer
    const callFiles = readdirSync(join(out, "report-files")).filter((f) => f.startsWith("calls-"));
    expect(callFiles.length).toBeGreaterThan(0);
    for (const f of callFiles) expect(readFileSync(join(out, "report-files", f), "utf8")).toMatch(/"latencyMs":\d/);
    expect(built.totalBytes).toBeGreaterThan(2 * built.bytes);
    expect(readdirSync(join(out, "report-files")).filter((f) => f.startsWith("calls-")).length).toBe(
      lines.filter((l) => recordOf(out, l).calls?.length).length,
    );
    expect(megabytes(4_700_000)).toBe("4.7 MB");
    expect(megabytes(12_000)).toBe("12 KB");
  }, 600_000);

  it.runIf(chromiumTools.run)(
    "shows each step's own calls and the context after the cut in Chromium at 1400 and 800 px, deep links open the step",
    async () => {
      expect(report, "the run above wrote its report").not.toBe("");
      chromiumTools.assert();
      const lines = linesOf(out).filter((l) => l.status === "ok");
      const run = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).experiment as string;
      // Samples: every step of one recovered episode, and steps 0, 1 and the last of the others.
      const withRecovery = lines.find((l) => l.recoveryAttempts > 0)!;
      const samples: SampledStep[] = [];
      let postCut: SampledStep | undefined;
      for (const l of lines) {
        const rec = recordOf(out, l);
        const n = rec.trajectory.steps.length;
        const picks = l === withRecovery ? [...Array(n).keys()] : [...new Set([0, Math.min(1, n - 1), n - 1])];
        for (const step of picks) samples.push({ run, key: l.key, step });
        const cut = rec.trajectory.events.find((e) => e.kind === "truncate");
        if (cut && !postCut) {
          const i = rec.trajectory.steps.findIndex((s) => s.seq > cut.afterSeq && s.role === "forward");
          if (i >= 0) postCut = { run, key: l.key, step: i };
        }
      }
      expect(postCut, "a recovery restored and cut the history in some episode").toBeDefined();
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
        for (const width of [1400, 800]) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          const errors: string[] = [];
          page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
          page.on("pageerror", (e) => errors.push(String(e)));
          let checkedCalls = 0;
          for (const s of width === 1400 ? samples : samples.filter((_, i) => i % 4 === 0)) {
            const shown = await openByLink(page, report, s);
            expectStep(shown, s);
            // the calls shown are exactly the ones recorded against this step
            const rec = recordOf(
              out,
              lines.find((l) => l.key === s.key)!,
            );
            const own = (rec.calls ?? []).filter((c) => callStepIndex(rec.trajectory.steps, c) === s.step);
            expect(shown.callPhases).toEqual(own.map((c) => c.phase));
            for (const [j, seq] of shown.callSeqs.entries())
              if (!own[j].discarded && own[j].phase !== "recoverer") expect(Number(seq)).toBe(shown.seq);
            checkedCalls += own.length;
            const scroll = await page.evaluate(
              () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
            );
            expect(scroll, `sideways scroll at ${width} px on ${s.key} step ${s.step}`).toBeLessThanOrEqual(0);
          }
          expect(checkedCalls).toBeGreaterThan(0);
          // the first forward step after the restoration shows the context after the cut
          const shown = await openByLink(page, report, postCut!);
          expectStep(shown, postCut!);
          expect(shown.context).toMatch(/Context after the cut/);
          expect(shown.context).toMatch(/history was cut from \d+ forward steps? to \d+/);
          expect(shown.context).toMatch(/transition string: /);
          expect(shown.context).toMatch(
            /messages sent, against the previous forward step's: \d+ lines? dropped, \d+ lines? added/,
          );
          expect(await page.locator("#viewer-a11y summary").count()).toBe(1);
          const full = await page.evaluate(() => ({
            sw: document.documentElement.scrollWidth,
            cw: document.documentElement.clientWidth,
          }));
          expect(full.sw).toBeLessThanOrEqual(full.cw);
          if (width === 800) await page.screenshot({ path: join(dir, "post-cut-800.png"), fullPage: false });
          expect(errors).toEqual([]);
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
    300_000,
  );
});
