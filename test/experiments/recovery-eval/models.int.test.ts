/**
 * The recovery evaluation with model agents on SimDesk, through the CLI, against a scripted
 * OpenAI-compatible server: the forward agent's rollout, the perturber, then implicit recovery by
 * the forward agent and explicit recovery by the model recoverer with each context (the
 * summarizer for "contextualized"). Results are labelled simulated: false, carry model usage per
 * role, and a cached re-run makes zero requests with identical results.
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

const TASK = "files-trash-menu";
const root = mkdtempSync(join(tmpdir(), "retrace-eval-models-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The text of every message of a chat request. */
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

const code = (line: string, prose = "I will do this.") => `${prose}\n\`\`\`python\nimport pyautogui\n${line}\n\`\`\``;

/** Run the CLI, capturing stdout. */
async function cli(args: string[]): Promise<string> {
  const out: string[] = [];
  const orig = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((c: string) => (out.push(String(c)), true)) as typeof process.stdout.write;
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
  } finally {
    process.stdout.write = orig;
  }
  const code = process.exitCode ?? 0;
  process.exitCode = before;
  if (code !== 0) throw new Error(`retrace ${args.join(" ")} exited ${code}`);
  return out.join("");
}

const CONFIG = {
  kind: "recovery-eval",
  name: "models-simdesk",
  env: { kind: "simdesk", tasks: [TASK] },
  seed: 6, // draws seed step t = 3 (readme.txt selected, Edit menu not yet open)
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
    recoverers: [
      { name: "model", agent: { kind: "model", temperature: 0 }, contexts: ["0-E", "0-R", "none", "contextualized"] },
    ],
    summarizer: { kind: "model", temperature: 0 },
  },
};

/** The dataset the first test builds (the second evaluates other recoverer formats on it). */
let builtDataset: string | undefined;

describe("retrace dataset build / eval-recovery --config (model agents on SimDesk)", () => {
  it("builds a dataset with a model forward agent and perturber, evaluates implicit and explicit model recovery with every context, and replays from the cache with zero requests", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    const cfg = join(root, "recovery-eval.json");
    writeFileSync(cfg, JSON.stringify(CONFIG));
    const cacheDir = join(root, "cache");
    const usage = { inputTokens: 900, outputTokens: 30 };
    // dataset: the rollout (plan + DONE), then one perturbation step: selecting keep.txt instead of readme.txt
    const datasetScript: ScriptStep[] = [
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
    ];
    server = await startScriptedOpenAIServer({ script: datasetScript });
    const ds = join(root, "dataset");
    const common = (url: string, cache = "readwrite") => [
      "--config",
      cfg,
      "--base-url",
      url,
      "--model",
      "qwen-test",
      "--cache",
      cache,
      "--cache-dir",
      cacheDir,
      "--quiet",
    ];
    const buildOut = await cli(["dataset", "build", "--out", ds, ...common(server.url)]);
    server.verify();
    expect(server.modelListCalls).toBe(1); // one endpoint preflight for forward + perturber (same URL and key)
    expect(buildOut).toMatch(/dataset [0-9a-f]{16} on simdesk \(model agents, simulated: false\)/);
    expect(buildOut).toContain(
      "1 rollouts -> 1 successful -> 1 well-formed -> 1 transition-consistent (retention 100.0%)",
    );
    expect(buildOut).toMatch(/policy: 6 call\(s\), 5400\+180 tokens, n\/a, 0 error\(s\)/);
    expect(buildOut).toMatch(/perturber: 1 call\(s\)/);
    expect(buildOut).toMatch(/d=1: 1 seed steps .* -> 1 final/);
    const manifest = JSON.parse(readFileSync(join(ds, "dataset.json"), "utf8"));
    expect(manifest).toMatchObject({
      simulated: false,
      simulatedLabel: "",
      samples: 1,
      config: { env: "simdesk", agents: { forward: { kind: "model", model: "qwen-test" } } },
    });
    const sample = JSON.parse(readFileSync(join(ds, "samples.jsonl"), "utf8").trim());
    expect(sample.simulated).toBe(false);
    builtDataset = ds;
    expect(sample.targetStep).toBe(3);
    expect(sample.perturbation[0].actions).toEqual([{ type: "CLICK", x: 555, y: 183, button: "left", numClicks: 1 }]);

    // evaluation, r = 1: implicit (forward agent), explicit with 0-E, 0-R, none, contextualized (summarizer first)
    const undo = code(
      "pyautogui.click(555, 209)",
      "I notice keep.txt was selected by mistake; selecting readme.txt again to restore the TARGET state.",
    );
    const evalScript: ScriptStep[] = [
      {
        endpoint: "chat",
        text: planAnswers(plan)[3],
        usage,
        expect: expectText(/Use Edit > Move to Trash/, "forward (implicit)"),
      },
      { endpoint: "chat", text: undo, usage, expect: expectText(/TARGET/, "recoverer 0-E") },
      { endpoint: "chat", text: undo, usage, expect: expectText(/TARGET/, "recoverer 0-R") },
      {
        endpoint: "chat",
        text: code("pyautogui.press('esc')", "Nothing obvious differs; pressing Escape."),
        usage,
        expect: expectText(/No history of the earlier run/, "recoverer none"),
      },
      {
        endpoint: "chat",
        text: "TARGET STATE: the Desktop folder is open and readme.txt is selected; nothing has been moved.",
        usage,
        expect: expectText(/brief|summar/i, "summarizer"),
      },
      { endpoint: "chat", text: undo, usage, expect: expectText(/briefing/, "recoverer contextualized") },
    ];
    await server.close();
    server = await startScriptedOpenAIServer({ script: evalScript });
    const ev = join(root, "eval");
    const evalOut = await cli(["eval-recovery", "--dataset", ds, "--out", ev, ...common(server.url)]);
    server.verify();
    // every role carries a draw identity, the summarizer included: an integer seed in each request
    expect(server.requests).toHaveLength(6);
    for (const r of server.requests) expect(Number.isInteger(r.body.seed), `request ${r.index} has a seed`).toBe(true);
    expect(evalOut).toContain("model agents (simulated: false)");
    const report = JSON.parse(readFileSync(join(ev, "recovery-eval.json"), "utf8"));
    expect(report).toMatchObject({ kind: "recovery-eval", simulated: false, note: "", label: "", samples: 1 });
    const rows = Object.fromEntries(report.table.map((r: { variant: string }) => [r.variant, r]));
    expect(Object.keys(rows)).toEqual([
      "implicit/0-E",
      "explicit-model/0-E",
      "explicit-model/0-R",
      "explicit-model/none",
      "explicit-model/contextualized",
    ]);
    // the undo restores the target (R_O and R_TC); Escape and a forward click do not
    expect(rows["explicit-model/0-E"]).toMatchObject({ n: 1, success: 1, ro: 1, rtc: 1 });
    expect(rows["explicit-model/0-R"]).toMatchObject({ n: 1, success: 1 });
    expect(rows["explicit-model/contextualized"]).toMatchObject({ n: 1, success: 1 });
    expect(rows["explicit-model/none"]).toMatchObject({ n: 1, success: 0 });
    expect(rows["implicit/0-E"]).toMatchObject({ n: 1, success: 0, rtc: 0 });
    expect(report.implicitVsExplicit).toEqual([expect.objectContaining({ d: 1, r: 1, gain: 1 })]);
    const runs = readFileSync(join(ev, "runs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(runs.every((r: { simulated: boolean }) => r.simulated === false)).toBe(true);
    expect(runs.find((r: { variant: string }) => r.variant === "explicit-model/0-E").intent.intent).toBe(true);
    const page = readFileSync((await buildReport(ev)).file, "utf8");
    expect(page).toContain("explicit-model/contextualized");
    expect(page).not.toContain("SIMULATED: these numbers");
    // the paper's recovery-evaluation findings, judged on this model-backed evaluation (n = 1: too few to tell)
    expect(page).toMatch(/Do the paper('|&#39;)s findings hold here\?/);
    expect(page).not.toContain("Checked on simulated components");
    // paired over distinct target states from runs.jsonl: one sample is one discordant unit, never "runs"
    expect(page).toMatch(
      /<b>cannot tell \(n too small: 1 discordant pair, fewer than 6\)<\/b>: Explicit recovery instructions beat implicit recovery \(Finding 3\)\. <span class="meta">sign test over target states over 1 paired target states: 1 won only by explicit explicit-model\/0-E, 0 only by implicit/,
    );
    expect(page).toMatch(
      /Finding 2\)\. <span class="meta">At r=1: &quot;rarely&quot; tested as &lt; 20% of implicit target states[^<]*Implicit recovery succeeded in 0\.0% of 1 samples; rationales similar to the ground-truth recovery instruction \(tfidf/,
    );
    expect(page).toMatch(/Finding 4\)\. <span class="meta">cannot be judged from one evaluation/);
    expect(page).toMatch(/Finding 5\)\. <span class="meta">cannot be judged: no end-to-end run/);
    const evUsage = JSON.parse(readFileSync(join(ev, "model-usage.json"), "utf8"));
    expect(evUsage).toMatchObject({
      simulated: false,
      calls: 6,
      errors: 0,
      roles: { policy: { calls: 1 }, recoverer: { calls: 4 }, summarizer: { calls: 1 } },
    });

    // cached re-run: an empty script; any request would fail the run
    await server.close();
    server = await startScriptedOpenAIServer({ script: [] });
    const cached = common(server.url, "read");
    await cli(["dataset", "build", "--out", join(root, "dataset2"), ...cached]);
    await cli(["eval-recovery", "--dataset", join(root, "dataset2"), "--out", join(root, "eval2"), ...cached]);
    expect(server.calls).toBe(0);
    expect(server.modelListCalls).toBe(0); // --cache read never calls a server, not even the preflight
    expect(readFileSync(join(root, "dataset2", "samples.jsonl"), "utf8")).toBe(
      readFileSync(join(ds, "samples.jsonl"), "utf8"),
    );
    expect(readFileSync(join(root, "eval2", "recovery-eval.json"), "utf8").replace(/dataset2/g, "dataset")).toBe(
      readFileSync(join(ev, "recovery-eval.json"), "utf8"),
    );
    expect(JSON.parse(readFileSync(join(root, "eval2", "model-usage.json"), "utf8"))).toMatchObject({
      calls: 6,
      errors: 0,
    });
    expect(existsSync(join(root, "eval2", "runs.jsonl"))).toBe(true);
  }, 120_000);

  it("evaluates recoverers in the UI-TARS and Anthropic computer-use formats (same spec shape, own APIs)", async () => {
    expect(builtDataset).toBeDefined();
    server = await startScriptedOpenAIServer({
      script: [
        // UI-TARS over chat completions: relative-1000 coordinates of readme.txt (555, 209) on 1280x800
        {
          endpoint: "chat",
          text: "Thought: keep.txt is selected by mistake; select readme.txt again to restore the TARGET.\nAction: click(start_box='(434,261)')",
          usage: { inputTokens: 700, outputTokens: 25 },
          expect: expectText(/TARGET/, "uitars recoverer"),
        },
        // Anthropic computer use: a left click at readme.txt in the display size the request announced
        {
          endpoint: "messages",
          usage: { inputTokens: 700, outputTokens: 25 },
          expect(r) {
            const tool = (r.body.tools as Array<{ display_width_px: number; display_height_px: number }>)[0];
            this.content = [
              { type: "text", text: "Selecting readme.txt to restore the target." },
              {
                type: "tool_use",
                id: "toolu_1",
                name: "computer",
                input: {
                  action: "left_click",
                  coordinate: [
                    Math.round((555 * tool.display_width_px) / 1280),
                    Math.round((209 * tool.display_height_px) / 800),
                  ],
                },
              },
            ];
          },
        },
      ],
    });
    const cfg = join(root, "formats.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        ...CONFIG,
        eval: {
          recoveryBudget: [1],
          implicit: false,
          recoverers: [
            { name: "uitars", agent: { kind: "model", format: "uitars", temperature: 0 }, contexts: ["0-E"] },
            {
              name: "claude",
              agent: { kind: "model", format: "anthropic", baseUrl: server.origin, model: "claude-test" },
              contexts: ["0-E"],
            },
          ],
        },
      }),
    );
    const ev = join(root, "eval-formats");
    process.env.RETRACE_EVAL_TEST_KEY = "test-key";
    await cli([
      "eval-recovery",
      "--config",
      cfg,
      "--dataset",
      builtDataset!,
      "--out",
      ev,
      "--base-url",
      server.url,
      "--model",
      "ui-tars-test",
      "--api-key-env",
      "RETRACE_EVAL_TEST_KEY",
      "--quiet",
      "--no-preflight",
    ]);
    delete process.env.RETRACE_EVAL_TEST_KEY;
    // the key came from the variable --api-key-env named, for both APIs
    for (const r of server.requests) expect(r.headers.authorization).toBe("Bearer test-key");
    server.verify();
    expect(server.requests.map((r) => r.endpoint)).toEqual(["chat", "messages"]);
    const runs = readFileSync(join(ev, "runs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(runs.map((r: { variant: string }) => r.variant)).toEqual(["explicit-uitars/0-E", "explicit-claude/0-E"]);
    for (const r of runs) {
      expect(r).toMatchObject({ status: "judged", simulated: false });
      expect(r.actions[0]).toMatch(/^CLICK/);
      expect(r.verdict.rtc.pass).toBe(true); // readme.txt selected again: the rest of the plan trashes it
    }
    const usage = JSON.parse(readFileSync(join(ev, "model-usage.json"), "utf8"));
    expect(usage.roles.recoverer).toMatchObject({ calls: 2, errors: 0, inputTokens: 1400 });
  });

  it("refuses model flags without a config, and a config whose model agents have no model name, with one line naming what to fix", async () => {
    const errs: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((c: string) => (errs.push(String(c)), true)) as typeof process.stderr.write;
    const before = process.exitCode;
    try {
      await main(["node", "retrace", "dataset", "build", "--out", join(root, "x"), "--model", "m"]);
      const cfg = join(root, "nomodel.json");
      writeFileSync(cfg, JSON.stringify(CONFIG));
      await main([
        "node",
        "retrace",
        "eval-recovery",
        "--config",
        cfg,
        "--dataset",
        join(root, "x"),
        "--out",
        join(root, "y"),
      ]);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = orig;
      process.exitCode = before;
    }
    expect(errs[0]).toMatch(/--model: model agents come from a config; add --config/);
    expect(errs[1]).toMatch(/nomodel\.json\.dataset\.forward\.model: a model agent needs a model name/);
    expect(existsSync(join(root, "x"))).toBe(false);
  });

  it("--max-cost-usd stops starting new rollouts once the recorded cost reaches the cap, keeps what was built and says so", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    // 6 answers for the first rollout only; a second rollout or a perturbation would find no script left
    server = await startScriptedOpenAIServer({
      script: planAnswers(plan).map((text) => ({
        endpoint: "chat" as const,
        text,
        usage: { inputTokens: 1000, outputTokens: 0 },
      })),
    });
    const cfg = join(root, "cost.json");
    const prices = { "qwen-test": { inputPerMillion: 100, outputPerMillion: 0 } }; // $0.10 per call
    writeFileSync(
      cfg,
      JSON.stringify({
        ...CONFIG,
        dataset: {
          ...CONFIG.dataset,
          rolloutsPerTask: 3,
          forward: { kind: "model", temperature: 0, prices },
          perturber: { kind: "model", prices },
        },
      }),
    );
    const out = join(root, "capped");
    const printed = await cli([
      "dataset",
      "build",
      "--config",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "qwen-test",
      "--out",
      out,
      "--max-cost-usd",
      "0.5",
      "--quiet",
    ]);
    server.verify();
    expect(server.calls).toBe(6);
    expect(printed).toContain("1 rollouts -> 1 successful");
    expect(printed).toContain("stopped early: recorded cost $0.60 reached --max-cost-usd 0.5");
    expect(printed).toMatch(/policy: 6 call\(s\), 6000\+0 tokens, \$0\.6000/);
    const manifest = JSON.parse(readFileSync(join(out, "dataset.json"), "utf8"));
    expect(manifest.trajectories.rollouts).toBe(1);
    expect(manifest.config.stopped).toBe("recorded cost $0.60 reached --max-cost-usd 0.5");
    expect(manifest.stages[0].seedSteps).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "model-usage.json"), "utf8"))).toMatchObject({
      stopped: manifest.config.stopped,
      costUsd: 0.6,
    });
  });

  it("checks each endpoint once before the first rollout and stops with one line naming the roles and URL", async () => {
    const closed = await startScriptedOpenAIServer();
    const url = closed.url;
    await closed.close(); // nothing listens there now
    const cfg = join(root, "preflight.json");
    writeFileSync(cfg, JSON.stringify(CONFIG));
    const errs: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((c: string) => (errs.push(String(c)), true)) as typeof process.stderr.write;
    const before = process.exitCode;
    try {
      await main([
        "node",
        "retrace",
        "dataset",
        "build",
        "--config",
        cfg,
        "--base-url",
        url,
        "--model",
        "m",
        "--out",
        join(root, "pf"),
      ]);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = orig;
      process.exitCode = before;
    }
    expect(errs.join("")).toMatch(
      new RegExp(
        `endpoint preflight: .*dataset\\.forward, .*dataset\\.perturber: cannot reach ${url.replace(/[./]/g, "\\$&")} \\(ECONNREFUSED\\)`,
      ),
    );
    expect(errs.join("").trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(root, "pf"))).toBe(false);
  });
});
