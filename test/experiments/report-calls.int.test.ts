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
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../packages/testing/src/stand-in/server.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { megabytes } from "../../experiments/commands/report.ts";
import { callStepIndex } from "../../experiments/report/viewer-calls.ts";
import { annotationCalls } from "../../experiments/report/run-calls.ts";
import { viewerChunks } from "../../experiments/report/viewer-data.ts";
import { episodeFolder, loadRun } from "../../experiments/report/data.ts";
import { cli, narrowedPreset, restorativeAction, roleOf, type ScriptRole } from "./helpers/model-roles.ts";
import {
  startScriptedOpenAIServer,
  type ScriptStep,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import type { Action } from "../../packages/core/src/action.ts";
import { expectStep, openByLink, type SampledStep } from "./helpers/viewer-checks.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const chromiumTools = systemTools("the model-run report-in-Chromium test", CHROMIUM_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-report-calls-"));
let server: StandInServer | undefined;
const scripted: ScriptedOpenAIServer[] = [];
afterAll(async () => {
  await server?.close();
  await Promise.all(scripted.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const TASKS = ["files-rename-draft", "files-copy-readme"];

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

const linesOf = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
/** Each call's measured latency of an episode, from timings.jsonl (records leave measured times out). */
const callMsOf = (out: string, key: string): Array<number | null> =>
  readFileSync(join(out, "timings.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((t) => JSON.parse(t))
    .filter((t) => t.key === key)
    .at(-1)?.callMs ?? [];
const recordOf = (out: string, l: ResultLine): EpisodeRecord =>
  JSON.parse(readFileSync(join(out, l.condition, l.task, String(l.seed), "trajectory.json"), "utf8")) as EpisodeRecord;
/** Where each call of an episode is shown: "seq:phase" per call, in the log's order. */
const placement = (rec: EpisodeRecord) =>
  (rec.calls ?? []).map((c) => `${rec.trajectory.steps[callStepIndex(rec.trajectory.steps, c)]?.seq}:${c.phase}`);

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

/** An action as an OpenAI computer-use answer (a computer_call) or an Anthropic one (a computer tool_use). */
function cuaAnswer(format: "openai-cua" | "anthropic", a: Action | "done", n: number): ScriptStep {
  if (format === "openai-cua") {
    if (a === "done") return { endpoint: "responses", text: "RESTORED. The task is done." };
    const action =
      a.type === "CLICK"
        ? { type: "click", x: a.x, y: a.y, button: "left" }
        : a.type === "PRESS"
          ? { type: "keypress", keys: [a.key.toUpperCase()] }
          : a.type === "HOTKEY"
            ? { type: "keypress", keys: a.keys.map((k) => k.toUpperCase()) }
            : a.type === "TYPING"
              ? { type: "type", text: a.text }
              : null;
    if (!action) throw new Error(`no OpenAI computer-use form for ${a.type}`);
    return {
      endpoint: "responses",
      output: [
        {
          type: "computer_call",
          id: `cu_${n}`,
          call_id: `call_${n}`,
          action,
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    };
  }
  if (a === "done") return { endpoint: "messages", text: "RESTORED. The task is done." };
  const key = (k: string) => (k === "enter" ? "Return" : k === "escape" ? "Escape" : k);
  const input =
    a.type === "CLICK"
      ? { action: "left_click", coordinate: [a.x, a.y] }
      : a.type === "PRESS"
        ? { action: "key", text: key(a.key) }
        : a.type === "HOTKEY"
          ? { action: "key", text: a.keys.map(key).join("+") }
          : a.type === "TYPING"
            ? { action: "type", text: a.text }
            : null;
  if (!input) throw new Error(`no Anthropic form for ${a.type}`);
  return {
    endpoint: "messages",
    content: [
      { type: "text", text: "Next step." },
      { type: "tool_use", id: `toolu_${n}`, name: "computer", input },
    ],
  };
}

describe.each(["openai-cua", "anthropic"] as const)(
  "computer-use agent (%s) calls on their own steps (scripted server)",
  (format) => {
    it("logs every forward and recoverer call of the computer-use agent, with the detector's, on exactly one step of its own episode", async () => {
      const task = getSimDeskTask("files-rename-draft");
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      const E = mistake.atStep;
      const fix = await restorativeAction(task.id);
      let n = 0;
      const before = task.plan.slice(0, E);
      // a no-recovery episode (the mistake, then "done"), then a recovery episode (the mistake, recovery to R = 1, the
      // rest of the plan)
      const queues: Record<ScriptRole, ScriptStep[]> = {
        forward: [
          ...[...before, ...mistake.actions].map((a) => cuaAnswer(format, a, n++)),
          cuaAnswer(format, "done", n++),
          ...[...before, ...mistake.actions, ...task.plan.slice(1)].map((a) => cuaAnswer(format, a, n++)),
          cuaAnswer(format, "done", n++),
        ],
        detector: [
          ...before.map(() => ({
            text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
          })),
          { text: `{"off_track": true, "error_step": ${E}, "reason": "selected the wrong file", "confidence": 0.95}` },
        ],
        selector: [{ text: '{"recovery_step": 1, "reason": "before the file list was used"}' }],
        summarizer: [
          { text: "TARGET STATE: the file manager is open at Home.\nHOW IT GOT THERE:\n- opened the file manager" },
        ],
        recoverer: [cuaAnswer(format, fix, n++), cuaAnswer(format, "done", n++)],
      };
      const byRole: Record<ScriptRole, number> = { forward: 0, detector: 0, selector: 0, summarizer: 0, recoverer: 0 };
      const s = await startScriptedOpenAIServer({
        responder(r) {
          const role = roleOf(r);
          byRole[role]++;
          return (
            queues[role].shift() ??
            (role === "detector"
              ? { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' }
              : undefined)
          );
        },
      });
      scripted.push(s);
      const baseUrl = format === "anthropic" ? s.origin : s.url;
      const agent = {
        kind: "model",
        format,
        baseUrl,
        model: format === "anthropic" ? "claude-test" : "computer-use-preview",
        observation: "screenshot",
      };
      const cfg = narrowedPreset(join(dir, `${format}.json`), (c) => {
        Object.assign(c.pairs[0], { forward: agent, recovery: { ...agent } });
        c.options.maxForwardSteps = 12;
        c.options.recoveryBudget = 3;
        c.options.freezeWindow = 1;
      });
      const out = join(dir, `run-${format}`);
      const r = await cli(
        "run",
        cfg,
        "--base-url",
        s.url,
        "--model",
        "scripted-vlm",
        "--out",
        out,
        "--quiet",
        "--workers",
        "1",
        "--no-preflight",
      );
      expect(r.code, r.stderr).toBe(0);
      s.verify();
      const cuaRequests = s.requests.filter(
        (q) => q.endpoint === (format === "anthropic" ? "messages" : "responses"),
      ).length;
      const lines = linesOf(out).filter((l) => l.status === "ok");
      expect(lines.length).toBe(2);
      let logged = 0,
        cua = 0,
        recoverer = 0;
      for (const l of lines) {
        const rec = recordOf(out, l);
        const steps = rec.trajectory.steps;
        const callMs = callMsOf(out, l.key);
        expect(JSON.stringify(rec.calls ?? [])).not.toContain("latencyMs"); // measured times are in timings.jsonl
        for (const [ci, c] of (rec.calls ?? []).entries()) {
          logged++;
          expect(c.draw, `${l.key}: ${c.phase} call at seq ${c.seq} names its episode`).toMatchObject({
            task: l.task,
            seed: l.seed,
          });
          const i = callStepIndex(steps, c);
          expect(i, `${l.key}: ${c.phase} call at seq ${c.seq}`).toBeGreaterThanOrEqual(0);
          if (c.phase !== "policy" && c.phase !== "recoverer") continue;
          cua++;
          expect(c.model).toBe(agent.model);
          // the call's messages carry the screenshot by reference, and its reply is the step's response
          const images = c.messages
            .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
            .filter((p) => p.type === "image");
          expect(images.length, `${l.key}: ${c.phase} call at seq ${c.seq} shows its screenshot`).toBeGreaterThan(0);
          expect(images.every((p) => p.type === "image" && /^[0-9a-f]{64}$/.test(p.blob))).toBe(true);
          expect(c.inputTokens).toBeGreaterThan(0);
          expect(callMs[ci]).toBeGreaterThanOrEqual(0);
          const st = steps[i];
          if (c.phase === "policy" && !c.discarded) {
            expect(st).toMatchObject({ role: "forward", seq: c.seq });
            if (st.response) expect(c.reply).toBe(st.response);
            expect(images.map((p) => p.type === "image" && p.blob)).toContain(st.before);
          }
          if (c.phase === "recoverer") {
            recoverer++;
            expect(c.role).toBe("recoverer");
            expect(c.attempt).toBe(1);
          }
        }
        // the role counts in the results line are the logged calls'
        expect(l.models?.policy?.calls).toBe((rec.calls ?? []).filter((c) => c.role === "policy").length);
      }
      // every call the server saw is logged on a step of its own episode, and no other
      expect(cua).toBe(cuaRequests);
      expect(logged).toBe(s.requests.length);
      expect(recoverer).toBe(2);
      expect(byRole.recoverer).toBe(2);
      // the viewer shows each of them on exactly one step of its own episode
      const { index, chunks } = await viewerChunks([loadRun(out, out)], join(out, "report-test"));
      let shown = 0;
      for (const row of index)
        for (const st of chunks[row.chunk].find((e) => e.key === row.key)!.steps) {
          shown += st.calls?.length ?? 0;
          for (const x of st.calls ?? [])
            expect(x.draw, `${row.key} step ${st.n}`).toMatchObject({ task: row.task, seed: row.seed });
        }
      expect(shown).toBe(s.requests.length);
      console.log(
        `${format} run: ${lines.length} episodes, ${logged} calls logged (${cua} computer-use, ${recoverer} of them recoverer) of ${s.requests.length} served`,
      );
    }, 300_000);
  },
);

describe("ideal recovery with a model detector and selector: no unattributed call (stand-in)", () => {
  it("records the annotation's detector and selector calls on the forward run's step they judged, and the viewer shows every call of the run on exactly one step", async () => {
    const standIn = await startStandInServer({ errorRate: 0.4, seed: 5 });
    try {
      const c = parseYaml(
        readFileSync(new URL("../../experiments/configs/models/ideal-recovery.yaml", import.meta.url), "utf8"),
      ) as Record<string, any>;
      c.env = { kind: "simdesk", tasks: TASKS };
      c.seeds = [0, 1, 2];
      c.k = 1;
      c.strategies = ["error-minus-1", "llm"];
      c.options.maxForwardSteps = 8;
      for (const role of ["forward", "detector"])
        Object.assign(c[role], { observation: "a11y_tree", temperature: 0.7 });
      const cfg = join(dir, "ideal.json");
      writeFileSync(cfg, JSON.stringify(c));
      const out = join(dir, "run-ideal");
      const r = await cli(
        "run",
        cfg,
        "--base-url",
        standIn.url,
        "--model",
        "retrace-stand-in",
        "--out",
        out,
        "--quiet",
        "--workers",
        "1",
      );
      expect(r.code, r.stderr).toBe(0);
      const lines = linesOf(out).filter((l) => l.status === "ok");
      const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8")) as {
        instances: { forwardKey: string; task: string; seed: number }[];
      };
      expect(plan.instances.length, "some forward runs failed and were annotated").toBeGreaterThan(0);
      const annotation = annotationCalls(out);
      expect([...annotation.keys()].sort()).toEqual(plan.instances.map((i) => i.forwardKey).sort());
      let annotated = 0,
        selectors = 0;
      for (const i of plan.instances) {
        const forward = lines.find((l) => l.key === i.forwardKey)!;
        const steps = recordOf(out, forward).trajectory.steps;
        const calls = annotation.get(i.forwardKey)!;
        // the detector call that judged the run, and the selector call that followed from it (when E leaves a choice),
        // on the run's last step
        expect(calls[0].phase).toBe("detector");
        expect(
          calls
            .slice(1)
            .map((x) => x.phase)
            .every((p) => p === "selector"),
        ).toBe(true);
        selectors += calls.length - 1;
        for (const x of calls) {
          expect(x.draw).toMatchObject({ task: i.task, seed: i.seed });
          expect(callStepIndex(steps, x)).toBe(steps.length - 1);
          expect(x.messages.length).toBeGreaterThan(0);
          expect(x.reply.length).toBeGreaterThan(0);
        }
        annotated += calls.length;
      }
      expect(selectors, "some annotation called the selector").toBeGreaterThan(0);
      // every call the server answered is in exactly one record: an episode's call log or the annotation's
      const recorded = lines.reduce(
        (n, l) =>
          n +
          ((JSON.parse(readFileSync(join(episodeFolder(out, l), "trajectory.json"), "utf8")) as EpisodeRecord).calls
            ?.length ?? 0),
        0,
      );
      expect(recorded + annotated).toBe(standIn.calls);
      // ... and the viewer shows each of them on exactly one step of its own episode
      const { index, chunks } = await viewerChunks([loadRun(out, out)], join(out, "report-test"));
      let shown = 0;
      for (const row of index) {
        const ep = chunks[row.chunk].find((e) => e.key === row.key)!;
        for (const st of ep.steps) {
          shown += st.calls?.length ?? 0;
          for (const x of st.calls ?? [])
            expect(x.draw, `${row.key} step ${st.n}`).toMatchObject({ task: row.task, seed: row.seed });
        }
      }
      expect(shown).toBe(standIn.calls);
      console.log(
        `ideal run: ${lines.length} episodes, ${plan.instances.length} annotated, ${standIn.calls} calls (${annotated} annotation), all shown on one step each`,
      );
    } finally {
      await standIn.close();
    }
  }, 300_000);
});
