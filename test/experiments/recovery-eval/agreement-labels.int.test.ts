/**
 * Oracle agreement with human labels on the model path, through the CLI, against a scripted
 * OpenAI-compatible server on 127.0.0.1: a model-built SimDesk dataset, a recovery evaluation with
 * the model forward agent (implicit) and a model recoverer (0-E, none), `retrace label-sample`
 * writes the sheet, a "person" fills it in, and `eval-recovery --agreement --labels` compares
 * R_O, R_TC, R_Om and their joins, and the model LLM judge, with the labels: raw agreement,
 * Cohen's kappa, n and TP/FP/TN/FN. The judge sees the three screenshots (TARGET, ERROR,
 * RECOVERED) and the erroneous step; a cached re-run makes no calls and writes the same table.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { main } from "../../../experiments/cli.ts";
import { buildReport } from "../../../experiments/report/index.ts";
import { getSimDeskTask } from "../../../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { planAnswers } from "../../adapters/testing/plan-answers.ts";
import type { RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";
import { oracleAgreement } from "../../../packages/evaluation/src/eval/summary.ts";
import { runIdOf } from "../../../experiments/recovery-eval/labels.ts";

const TASK = "files-trash-menu";
const root = mkdtempSync(join(tmpdir(), "retrace-agreement-labels-"));
afterAll(() => {
  delete process.env.RETRACE_LABELS_TEST_KEY;
  rmSync(root, { recursive: true, force: true });
});
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function textOf(r: RecordedRequest): string {
  return (r.body.messages as Array<{ content: unknown }>)
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join("\n"),
    )
    .join("\n");
}
const expectText = (re: RegExp, what: string) => (r: RecordedRequest) => {
  if (!re.test(textOf(r))) throw new Error(`expected a ${what} request`);
};
const code = (line: string, prose: string) => `${prose}\n\`\`\`python\nimport pyautogui\n${line}\n\`\`\``;

/** Run the CLI; stdout, stderr and the exit code. */
async function cli(args: string[]): Promise<{ out: string; err: string; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string) => (out.push(String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => (err.push(String(c)), true)) as typeof process.stderr.write;
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = before;
  return { out: out.join(""), err: err.join(""), code };
}

const CONFIG = {
  kind: "recovery-eval",
  name: "agreement-labels",
  env: { kind: "simdesk", tasks: [TASK] },
  seed: 6, // seed step t = 3: readme.txt selected, the Edit menu not yet open
  dataset: {
    forward: { kind: "model", temperature: 0 },
    perturber: { kind: "model", temperature: 0 },
    rolloutsPerTask: 1,
    replays: 3,
    seedSteps: 1,
    distances: [1],
    maxSteps: 10,
  },
  eval: {
    recoveryBudget: [1],
    implicit: true,
    recoverers: [{ name: "model", agent: { kind: "model", temperature: 0 }, contexts: ["0-E", "none"] }],
    judge: { kind: "model", temperature: 0 },
  },
};

const usage = { inputTokens: 900, outputTokens: 30 };
const ECHOED_KEY = "sk-labels-echo-0123456789abcdefXYZ";
const JUDGE = /You judge whether a computer-use agent undid a mistake/;

describe("retrace eval-recovery --agreement --labels (model recoverer and model judge on SimDesk)", () => {
  it("exports a labelling sheet, then measures every oracle and the LLM judge against the labels with kappa", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    const cfg = join(root, "config.json");
    writeFileSync(cfg, JSON.stringify(CONFIG));
    // Issue 31: a key the model echoes back was written in plain text to runs.jsonl and label-sample.jsonl.
    process.env.RETRACE_LABELS_TEST_KEY = ECHOED_KEY;
    const common = (url: string) => [
      "--config",
      cfg,
      "--base-url",
      url,
      "--model",
      "qwen-test",
      "--api-key-env",
      "RETRACE_LABELS_TEST_KEY",
      "--quiet",
      "--no-preflight",
    ];
    server = await startScriptedOpenAIServer({
      script: [
        ...planAnswers(plan).map((text) => ({
          endpoint: "chat" as const,
          text,
          usage,
          expect: expectText(/Use Edit > Move to Trash/, "forward"),
        })),
        {
          endpoint: "chat",
          text: code("pyautogui.click(555, 183)", "A plausible slip."),
          usage,
          expect: expectText(/drift|perturb|mistake/i, "perturber"),
        },
      ],
    });
    const ds = join(root, "dataset");
    expect((await cli(["dataset", "build", "--out", ds, ...common(server.url)])).code).toBe(0);
    server.verify();

    // evaluation: implicit continues the plan (fails), 0-E undoes the slip (restores), none presses Escape (fails)
    await server.close();
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "chat",
          text: planAnswers(plan)[3],
          usage,
          expect: expectText(/Use Edit > Move to Trash/, "forward (implicit)"),
        },
        {
          endpoint: "chat",
          text: code(
            "pyautogui.click(555, 209)",
            `keep.txt was selected by mistake; selecting readme.txt again to restore the TARGET state. (Using key ${ECHOED_KEY}.)`,
          ),
          usage,
          expect: expectText(/TARGET/, "recoverer 0-E"),
        },
        {
          endpoint: "chat",
          text: code("pyautogui.press('esc')", "Nothing obvious differs; pressing Escape."),
          usage,
          expect: expectText(/No history of the earlier run/, "recoverer none"),
        },
      ],
    });
    const ev = join(root, "eval");
    const evaluated = await cli(["eval-recovery", "--dataset", ds, "--out", ev, ...common(server.url)]);
    expect(evaluated.code).toBe(0);
    server.verify();

    // the labelling sheet: every judged run, with the screenshots a person looks at
    const sheet = join(root, "sheet.jsonl");
    const exported = await cli(["label-sample", ev, "--out", sheet, "--n", "10"]);
    expect(exported.out).toContain("3 run(s) to label");
    const lines = readFileSync(sheet, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.run)).toEqual([
      "files-trash-menu/r0/t3/d1|implicit/0-E|r1",
      "files-trash-menu/r0/t3/d1|explicit-model/0-E|r1",
      "files-trash-menu/r0/t3/d1|explicit-model/none|r1",
    ]);
    for (const l of lines) {
      expect(l.restored).toBeNull();
      for (const k of ["target", "error", "recovered"]) expect(existsSync(l[k]), `${k} screenshot`).toBe(true);
      expect(l.history.at(-1)).toMatch(/^3\. CLICK\(555, ?183.*erroneous/);
    }
    expect(lines[1].recovery[0]).toMatch(/^1\. CLICK.*rationale: keep\.txt was selected by mistake/);
    // the echoed key is redacted in the evaluation's runs and in the sheet
    for (const f of [join(ev, "runs.jsonl"), sheet]) {
      const text = readFileSync(f, "utf8");
      expect(text, f).not.toContain(ECHOED_KEY);
      expect(text, f).toContain("[redacted]");
    }

    // an unfilled sheet is refused on its first line
    const unfilled = await cli([
      "eval-recovery",
      "--agreement",
      "--labels",
      sheet,
      "--out",
      ev,
      ...common("http://127.0.0.1:9/v1"),
    ]);
    expect(unfilled.code).not.toBe(0);
    expect(unfilled.err.trim()).toMatch(
      /sheet\.jsonl:1: restored: fill in restored: true or false \(or delete the line\)$/,
    );

    // the person's labels: only the 0-E undo restored the target; plus a stray id
    const labels = join(root, "labels.jsonl");
    const verdicts = [false, true, false];
    writeFileSync(
      labels,
      [
        ...lines.map((l, i) => JSON.stringify({ ...l, restored: verdicts[i] })),
        JSON.stringify({ run: "no-such-sample|implicit/0-E|r1", restored: true }),
      ].join("\n") + "\n",
    );

    // the judge: right on implicit and 0-E, fooled by the Escape run (says restored)
    await server.close();
    const judgeSteps = (restored: boolean[]): ScriptStep[] =>
      restored.map((r, i) => ({
        endpoint: "chat",
        usage: { inputTokens: 3000, outputTokens: 40 },
        text: JSON.stringify({
          restored: r,
          reason: r ? "The same file is selected as in TARGET." : "The wrong file is selected.",
        }),
        expect: (req: RecordedRequest) => {
          expectText(JUDGE, "judge")(req);
          if (req.images.length !== 3)
            throw new Error(
              `judge ${i}: expected TARGET, ERROR and RECOVERED screenshots, got ${req.images.length} image(s)`,
            );
          if (!/TARGET:[\s\S]*ERROR:[\s\S]*RECOVERED:/.test(textOf(req)))
            throw new Error("judge: screenshots not labelled in order");
          if (!/3\. CLICK\(555, ?183\)? *<- after the TARGET state \(erroneous\)/.test(textOf(req)))
            throw new Error("judge: erroneous step not shown");
        },
      }));
    server = await startScriptedOpenAIServer({ script: judgeSteps([false, true, true]) });
    const cacheDir = join(root, "judge-cache");
    const agreed = await cli([
      "eval-recovery",
      "--agreement",
      "--labels",
      labels,
      "--out",
      ev,
      "--cache",
      "readwrite",
      "--cache-dir",
      cacheDir,
      ...common(server.url).filter((a) => a !== "--quiet"),
    ]);
    expect(agreed.err).not.toMatch(/error/i);
    expect(agreed.code).toBe(0);
    server.verify();
    expect(agreed.out).toContain("oracle agreement with human labels (3 labelled run(s), 1 restored):");
    expect(agreed.out).toContain("1 label(s) name no run of this evaluation, left out: no-such-sample|implicit/0-E|r1");
    expect(agreed.out).toMatch(/R_O AND R_TC\s+3\s+1\.000 \[0\.439, 1\.000\]\s+1\.000 \[1\.000, 1\.000\]\s+1 0 2 0/);
    // judge: TP 1, FP 1, TN 1, FN 0: p_o = 2/3, p_e = 4/9, kappa = 0.4
    expect(agreed.out).toMatch(/LLM judge\s+3\s+0\.667 \[0\.208, 0\.939\]\s+0\.400 \[-0\.[0-9]{3}, 1\.000\]\s+1 1 1 0/);
    expect(agreed.out).toMatch(/judge: 3 call\(s\), 9000\+120 tokens/);
    // paper Table 1: where R_O AND R_TC and the judge disagree (the Escape run), the label sides with R_O AND R_TC
    expect(agreed.out).toMatch(/vs LLM judge\s+1\/1\s+win rate 1\.000 \[0\.207, 1\.000\]/);

    const report = JSON.parse(readFileSync(join(ev, "oracle-agreement.json"), "utf8"));
    expect(report).toMatchObject({
      kind: "oracle-agreement",
      simulated: false,
      labelled: 4,
      matched: 3,
      restored: 1,
      unknownRuns: ["no-such-sample|implicit/0-E|r1"],
      notJudgedRuns: [],
      judgeAbstained: 0,
      judge: "qwen-test (recovery-judge@1)",
    });
    const rows = Object.fromEntries(report.agreement.map((r: { oracle: string }) => [r.oracle, r]));
    expect(Object.keys(rows)).toEqual(
      expect.arrayContaining(["R_O", "R_TC", "R_O AND R_TC", "R_Om", "R_Om AND R_TC", "LLM judge"]),
    );
    for (const name of ["R_O", "R_TC", "R_O AND R_TC", "R_Om AND R_TC"])
      expect(rows[name], name).toMatchObject({ n: 3, kappa: 1, tp: 1, fp: 0, tn: 2, fn: 0 });
    expect(rows["LLM judge"]).toMatchObject({ n: 3, kappa: 0.4, tp: 1, fp: 1, tn: 1, fn: 0 });
    const wins = Object.fromEntries(report.winRates.map((w: { baseline: string }) => [w.baseline, w]));
    expect(wins["LLM judge"]).toMatchObject({ disagreements: 1, oracleWins: 1, winRate: 1 });
    expect(wins["R_O"]).toMatchObject({ disagreements: 0, oracleWins: 0, winRate: null });
    expect(wins["R_O AND R_TC"]).toBeUndefined();
    const judged = readFileSync(join(ev, "judgements.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(judged[2]).toMatchObject({
      run: "files-trash-menu/r0/t3/d1|explicit-model/none|r1",
      restored: false,
      oracles: { "R_O AND R_TC": false },
      judge: { restored: true, reason: "The same file is selected as in TARGET." },
    });

    // the HTML report shows the table
    const page = readFileSync((await buildReport(ev)).file, "utf8");
    expect(page).toContain("oracle-agreement.json");
    expect(page).toContain("LLM judge");
    expect(page).toMatch(/win rates?/i); // the paper's Table 1 win rates, under a worded heading

    // cached: no calls, the same table
    await server.close();
    server = await startScriptedOpenAIServer({ script: [] });
    const first = readFileSync(join(ev, "oracle-agreement.json"), "utf8");
    const again = await cli([
      "eval-recovery",
      "--agreement",
      "--labels",
      labels,
      "--out",
      ev,
      "--cache",
      "read",
      "--cache-dir",
      cacheDir,
      ...common(server.url),
    ]);
    expect(again.code).toBe(0);
    expect(server.calls).toBe(0);
    expect(readFileSync(join(ev, "oracle-agreement.json"), "utf8")).toBe(first);
  }, 180_000);

  it("works on the simulated path too: labels equal to SimDesk's truth give exactly the ground-truth agreement, labelled simulated", async () => {
    const ds = join(root, "sim-dataset");
    expect((await cli(["dataset", "build", "--out", ds, "--limit", "3", "--quiet"])).code).toBe(0);
    const ev = join(root, "sim-eval");
    expect((await cli(["eval-recovery", "--dataset", ds, "--out", ev, "--no-contexts", "--quiet"])).code).toBe(0);
    const runs = readFileSync(join(ev, "runs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RecoveryRun);
    const judged = runs.filter((r) => r.status === "judged" && r.truth !== undefined);
    expect(judged.length).toBeGreaterThan(4);
    expect(new Set(judged.map((r) => r.truth)).size).toBe(2); // both outcomes occur
    const labels = join(root, "sim-labels.jsonl");
    writeFileSync(labels, judged.map((r) => JSON.stringify({ run: runIdOf(r), restored: r.truth })).join("\n"));
    // no --dataset: the evaluation already in --out is used, nothing is re-run
    const r = await cli(["eval-recovery", "--agreement", "--labels", labels, "--out", ev, "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `(${judged.length} labelled run(s), ${judged.filter((x) => x.truth).length} restored) [SIMULATED recoverers]`,
    );
    const report = JSON.parse(readFileSync(join(ev, "oracle-agreement.json"), "utf8"));
    expect(report).toMatchObject({
      simulated: true,
      matched: judged.length,
      judge: "none (give eval.judge in the config)",
    });
    const truth = oracleAgreement(runs);
    expect(
      report.agreement.map((a: { oracle: string; tp: number; fp: number; tn: number; fn: number }) => [
        a.oracle,
        a.tp,
        a.fp,
        a.tn,
        a.fn,
      ]),
    ).toEqual(truth.map((a) => [a.oracle, a.truePositive, a.falsePositive, a.trueNegative, a.falseNegative]));
    expect(report.agreement.map((a: { kappa: number | null }) => a.kappa)).toEqual(
      truth.map((a) => (a.kappa === null ? null : Math.round(a.kappa * 1000) / 1000)),
    );
    // win rate against R_TC alone, counted by hand from the runs
    const split = judged.filter((x) => x.verdict!.rtc.pass !== x.verdict!.success);
    expect(report.winRates.find((w: { baseline: string }) => w.baseline === "R_TC")).toMatchObject({
      disagreements: split.length,
      oracleWins: split.filter((x) => x.verdict!.success === x.truth).length,
    });
  }, 180_000);
});
