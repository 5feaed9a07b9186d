/**
 * The recovery evaluation on OSWorld runs tasks through OSWorld's own Python evaluators (the
 * Python bridge), as experiment runs do (test/experiments/osworld-python-bridge.int.test.ts): an
 * OSWorld-format task whose metric (`check_list`) only OSWorld's Python code implements is skipped
 * with the reason without `env.osworldPath`, and with it the rollout's success check, N-replay
 * filtering, the genuine-error check and R_TC after recovery are all scored by that metric. OSWorld
 * cannot be installed here, so the test writes a tiny `desktop_env.evaluators.metrics` package (the
 * one metric, with OSWorld's signature: a local file path and the rules) that logs every call;
 * python3 runs it for real, on fresh local desktops (the local provider) driven over HTTP.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import { buildConfiguredDataset, runConfiguredRecoveryEval } from "../../../experiments/recovery-eval/models.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { X11_TOOLS, systemTools } from "../../helpers/system-tools.ts";

const tools = systemTools("the OSWorld recovery-evaluation Python bridge test", X11_TOOLS);
const TASK = "retrace-append-bread-py";

function textOf(r: RecordedRequest): string {
  return (r.body.messages as Array<{ content: unknown }>)
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ text?: string }>).map((p) => p.text ?? "").join("\n"),
    )
    .join("\n");
}
const expectText = (re: RegExp, what: string) => (r: RecordedRequest) => {
  if (!re.test(textOf(r))) throw new Error(`expected a ${what} request`);
};
const code = (line: string, prose: string) => `${prose}\n\`\`\`python\nimport pyautogui\n${line}\n\`\`\``;
const usage = { inputTokens: 800, outputTokens: 20 };
const BREAD = /add a line '- bread'/;

/**
 * A fake OSWorld checkout with one metric in OSWorld's form: check_list(result_path, rules) with expect/unexpect
 * patterns.
 */
function fakeOsworld(root: string): string {
  const dir = join(root, "OSWorld");
  const pkg = join(dir, "desktop_env", "evaluators", "metrics");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(dir, "desktop_env", "__init__.py"), "");
  writeFileSync(join(dir, "desktop_env", "evaluators", "__init__.py"), "");
  writeFileSync(
    join(pkg, "__init__.py"),
    [
      "import os, re",
      "def check_list(result, rules, **options):",
      "    if not result or not os.path.exists(result):",
      "        score = 0.",
      "    else:",
      "        lines = open(result).read().splitlines()",
      "        ok = all(any(re.search(p, l) for l in lines) for p in rules.get('expect', []))",
      "        ok = ok and not any(re.search(p, l) for p in rules.get('unexpect', []) for l in lines)",
      "        score = 1. if ok else 0.",
      "    with open(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'calls.log'), 'a') as log:",
      "        log.write(f'{os.path.basename(str(result))} {score}\\n')",
      "    return score",
      "",
    ].join("\n"),
  );
  return dir;
}

describe.runIf(tools.run)("recovery evaluation on OSWorld through OSWorld's Python evaluators", () => {
  const root = mkdtempSync(join(tmpdir(), "retrace-eval-osworld-py-"));
  let server: ScriptedOpenAIServer | undefined;
  beforeAll(() => tools.assert());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("skips the Python-metric task without env.osworldPath, and builds, evaluates and judges R_TC with OSWorld's metric with it", async () => {
    const tasksDir = join(root, "tasks");
    mkdirSync(join(tasksDir, "os"), { recursive: true });
    writeFileSync(
      join(tasksDir, "os", `${TASK}.json`),
      JSON.stringify({
        id: TASK,
        snapshot: "os",
        source: "retrace",
        related_apps: ["mousepad"],
        config: [],
        instruction: "In the open notes.txt, add a line '- bread' at the end of the list and save the file.",
        evaluator: {
          func: "check_list",
          result: { type: "vm_file", path: "/home/user/notes.txt", dest: "notes.txt" },
          expected: { type: "rule", rules: { expect: ["^- bread$"], unexpect: ["TODO"] } },
        },
      }),
    );
    const osworld = fakeOsworld(root);
    const calls = () => readFileSync(join(osworld, "calls.log"), "utf8").trim().split("\n");
    const config = (env: Record<string, unknown>, url: string) => {
      const file = join(root, `cfg-${Object.keys(env).join("-") || "plain"}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          kind: "recovery-eval",
          name: "osworld-py",
          env: { kind: "osworld", tasksDir, provider: "local", tasks: [TASK], ...env },
          seed: 0,
          settleMs: 0, // the local control server settles by itself; OSWorld's default is the paper's 10 s per step
          dataset: {
            forward: { kind: "model", temperature: 0 },
            perturber: { kind: "model", temperature: 0 },
            verify: "ssim",
            rolloutsPerTask: 1,
            replays: 1,
            seedSteps: 1,
            distances: [1],
            maxSteps: 6,
          },
          eval: {
            recoveryBudget: [1],
            implicit: true,
            recoverers: [{ name: "model", agent: { kind: "model", temperature: 0 }, contexts: ["0-E"] }],
          },
        }),
      );
      return loadRecoveryEvalConfig(file, { baseUrl: url, model: "qwen-test" });
    };

    // without OSWorld: the only task is skipped with the reason, nothing to build
    const skipped: string[] = [];
    await expect(
      buildConfiguredDataset({
        config: config({}, "http://127.0.0.1:9/v1"),
        out: join(root, "ds0"),
        preflight: false,
        onSkipped: (t, r) => skipped.push(`${t}: ${r}`),
      }),
    ).rejects.toThrow(
      /^env\.tasks: no tasks selected \(skipped: retrace-append-bread-py: needs OSWorld's Python code for metric check_list \(set env\.osworldPath/,
    );
    expect(skipped).toHaveLength(1);
    // an osworldPath whose evaluators do not import says why
    const broken: string[] = [];
    await expect(
      buildConfiguredDataset({
        config: config({ osworldPath: join(root, "nowhere") }, "http://127.0.0.1:9/v1"),
        out: join(root, "ds1"),
        preflight: false,
        onSkipped: (t, r) => broken.push(r),
      }),
    ).rejects.toThrow(/no tasks selected/);
    expect(broken[0]).toMatch(/not importable with python3 \(ModuleNotFoundError: No module named 'desktop_env'\)/);

    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "chat",
          text: code("pyautogui.hotkey('ctrl', 'end')", "Go to the end of the list."),
          usage,
          expect: expectText(BREAD, "forward"),
        },
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('- bread\\n')", "Type the new line."),
          usage,
          expect: expectText(BREAD, "forward"),
        },
        {
          endpoint: "chat",
          text: code("pyautogui.hotkey('ctrl', 's')", "Save."),
          usage,
          expect: expectText(BREAD, "forward"),
        },
        { endpoint: "chat", text: "Saved.\n```\nDONE\n```", usage, expect: expectText(BREAD, "forward") },
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('TODO check the fridge and the freezer')", "A stray note."),
          usage,
          expect: expectText(/drift|perturb|mistake/i, "perturber"),
        },
      ],
    });
    const ds = join(root, "dataset");
    const { manifest } = await buildConfiguredDataset({
      config: config({ osworldPath: osworld }, server.url),
      out: ds,
      preflight: false,
    });
    server.verify();
    expect(manifest.config).toMatchObject({ env: "osworld", tasks: [TASK] });
    expect(manifest.config.skipped).toBeUndefined();
    // the rollout and its replay pass OSWorld's metric; the stray TODO line makes a genuine error
    expect(manifest.trajectories).toMatchObject({ rollouts: 1, successful: 1, transitionConsistent: 1, envErrors: 0 });
    expect(manifest.stages[0]).toMatchObject({ genuineError: 1, final: 1 });
    const built = calls();
    expect(built.filter((l) => l === "0-notes.txt 1.0").length).toBeGreaterThanOrEqual(2); // rollout + replay
    expect(built).toContain("0-notes.txt 0.0"); // the genuine-error check: TODO left in the file

    await server.close();
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('- bread\\n')", "Type the new line."),
          usage,
          expect: expectText(BREAD, "forward (implicit)"),
        },
        {
          endpoint: "chat",
          text: code(
            "pyautogui.hotkey('shift', 'home')\npyautogui.press('backspace')",
            "A stray note was typed; deleting it to restore the TARGET state.",
          ),
          usage,
          expect: expectText(/TARGET/, "recoverer 0-E"),
        },
      ],
    });
    const before = calls().length;
    const { runs } = await runConfiguredRecoveryEval({
      config: config({ osworldPath: osworld }, server.url),
      dataset: ds,
      out: join(root, "eval"),
      preflight: false,
    });
    server.verify();
    const by = Object.fromEntries(runs.map((r) => [r.variant, r]));
    expect(runs.map((r) => [r.variant, r.status])).toEqual([
      ["implicit/0-E", "judged"],
      ["explicit-model/0-E", "judged"],
    ]);
    // R_TC: the rest of the plan from the recovered state, then OSWorld's metric on notes.txt
    expect(by["explicit-model/0-E"].verdict!.rtc).toMatchObject({ pass: true, score: 1 });
    expect(by["implicit/0-E"].verdict!.rtc.pass).toBe(false);
    expect(calls().slice(before)).toEqual(["0-notes.txt 0.0", "0-notes.txt 1.0"]);
  }, 500_000);
});
