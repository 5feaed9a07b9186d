/**
 * The recovery evaluation with model agents on OSWorld tasks, through OsworldEnvironment with the
 * local provider: every reset starts a fresh X11 desktop (fresh home) and retrace's local OSWorld
 * control server on 127.0.0.1, as OSWorld's docker provider starts a fresh VM. Tasks come from an
 * OSWorld evaluation_examples folder: the shared natively-scored task "switch on the Bluetooth"
 * (infeasible: its oracle passes from any state once the agent says FAIL, so it yields no genuine
 * error), a shared task that needs OSWorld's Python code (skipped with the reason), and an
 * OSWorld-format task of our own scored by the native check_include_exclude metric on a vm_file
 * getter (so the evaluation has a sample to judge). N = 2 replays; targets confirmed by SSIM.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import { buildConfiguredDataset, runConfiguredRecoveryEval } from "../../../experiments/recovery-eval/models.ts";
import { DEFAULT_OSWORLD_TASKS } from "../../../experiments/runtime/osworld.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { X11_TOOLS, systemTools } from "../../helpers/system-tools.ts";

const tools = systemTools("the OSWorld recovery-evaluation test", X11_TOOLS);
/** Shared, natively scored (infeasible). */
const NATIVE = "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa";
/** Shared, needs OSWorld's Python getters and metrics: skipped. */
const PYTHON_ONLY = "9656a811-9b5b-4ddf-99c7-5117bcef0626";
/** Ours, in OSWorld's task format, natively scored. */
const APPEND = "retrace-append-bread";

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
const BLUETOOTH = /switch on the Bluetooth/;
const BREAD = /add a line '- bread'/;
const PERTURB = /drift|perturb|mistake/i;

describe.runIf(tools.run)("recovery evaluation with model agents on OSWorld tasks (local provider)", () => {
  const root = mkdtempSync(join(tmpdir(), "retrace-eval-osworld-"));
  let server: ScriptedOpenAIServer | undefined;
  beforeAll(() => tools.assert());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("builds a dataset with N = 2 replays on fresh desktops, skips the Python-only task, and judges model recovery", async () => {
    const tasksDir = join(root, "tasks");
    mkdirSync(join(tasksDir, "os"), { recursive: true });
    mkdirSync(join(tasksDir, "chrome"), { recursive: true });
    copyFileSync(join(DEFAULT_OSWORLD_TASKS, "os", `${NATIVE}.json`), join(tasksDir, "os", `${NATIVE}.json`));
    copyFileSync(
      join(DEFAULT_OSWORLD_TASKS, "chrome", `${PYTHON_ONLY}.json`),
      join(tasksDir, "chrome", `${PYTHON_ONLY}.json`),
    );
    writeFileSync(
      join(tasksDir, "os", `${APPEND}.json`),
      JSON.stringify({
        id: APPEND,
        snapshot: "os",
        source: "retrace",
        related_apps: ["mousepad"],
        config: [],
        instruction: "In the open notes.txt, add a line '- bread' at the end of the list and save the file.",
        evaluator: {
          func: "check_include_exclude",
          result: { type: "vm_file", path: "/home/user/notes.txt", dest: "notes.txt" },
          expected: { type: "rule", rules: { include: ["- bread"], exclude: ["TODO"] } },
        },
      }),
    );
    const cfgFile = join(root, "osworld.json");
    writeFileSync(
      cfgFile,
      JSON.stringify({
        kind: "recovery-eval",
        name: "models-osworld",
        env: { kind: "osworld", tasksDir, provider: "local", tasks: [NATIVE, APPEND, PYTHON_ONLY] },
        seed: 0, // draws seed step t = 1 on both trajectories
        settleMs: 0, // the local control server settles by itself (polls until the screen is still); OSWorld's default is the paper's 10 s
        dataset: {
          forward: { kind: "model", temperature: 0 },
          perturber: { kind: "model", temperature: 0 },
          verify: "ssim",
          rolloutsPerTask: 1,
          replays: 2,
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
    const stray = {
      endpoint: "chat",
      text: code("pyautogui.typewrite('TODO check the fridge and the freezer')", "A stray note."),
      usage,
    } as const;
    server = await startScriptedOpenAIServer({
      script: [
        // rollouts: Bluetooth (look around, then FAIL: infeasible), then the append task
        {
          endpoint: "chat",
          text: code("pyautogui.press('shift')", "Let me check."),
          usage,
          expect: expectText(BLUETOOTH, "forward (Bluetooth)"),
        },
        {
          endpoint: "chat",
          text: "Bluetooth cannot be switched on in this VM.\nFAIL",
          usage,
          expect: expectText(BLUETOOTH, "forward (Bluetooth)"),
        },
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
        // N = 2 replays need no model; targets are confirmed by SSIM; one perturbation per trajectory
        { ...stray, expect: expectText(PERTURB, "perturber") },
        { ...stray, expect: expectText(PERTURB, "perturber") },
      ] as ScriptStep[],
    });
    const fill = { baseUrl: server.url, model: "qwen-test" };
    const config = loadRecoveryEvalConfig(cfgFile, fill);
    const ds = join(root, "dataset");
    const skipped: string[] = [];
    const { manifest, usage: dsUsage } = await buildConfiguredDataset({
      config,
      out: ds,
      preflight: false,
      onSkipped: (task, reason) => skipped.push(`${task}: ${reason}`),
    });
    server.verify();
    expect(skipped).toEqual([
      expect.stringMatching(new RegExp(`^${PYTHON_ONLY}: needs OSWorld's Python code for getter enable_safe_browsing`)),
    ]);
    expect(manifest.config).toMatchObject({
      env: "osworld",
      tasks: [NATIVE, APPEND],
      skipped: [{ task: PYTHON_ONLY }],
    });
    // both rollouts pass their oracle and both replays on fresh desktops pass again
    expect(manifest.trajectories).toMatchObject({
      rollouts: 2,
      successful: 2,
      wellFormed: 2,
      transitionConsistent: 2,
      envErrors: 0,
    });
    // both targets reproduced on a fresh desktop; the infeasible task's error is no genuine error
    // (FAIL from any state passes its oracle), the append task's stray TODO line is
    expect(manifest.stages[0]).toMatchObject({
      seedSteps: 2,
      targetReproduced: 2,
      perturbed: 2,
      genuineError: 1,
      final: 1,
    });
    expect(manifest.simulated).toBe(false);
    expect(dsUsage.roles).toMatchObject({ policy: { calls: 6, errors: 0 }, perturber: { calls: 2 } });
    const sample = JSON.parse(readFileSync(join(ds, "samples.jsonl"), "utf8").trim());
    expect(sample).toMatchObject({ taskId: APPEND, targetStep: 1 });

    // evaluation: each run rebuilds the error state on a fresh desktop by replay, then one recovery step
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
    const evalConfig = loadRecoveryEvalConfig(cfgFile, { ...fill, baseUrl: server.url });
    const {
      report,
      runs,
      usage: evUsage,
    } = await runConfiguredRecoveryEval({ config: evalConfig, dataset: ds, out: join(root, "eval"), preflight: false });
    server.verify();
    expect(report.simulated).toBe(false);
    expect(runs.map((r) => [r.variant, r.status])).toEqual([
      ["implicit/0-E", "judged"],
      ["explicit-model/0-E", "judged"],
    ]);
    const by = Object.fromEntries(runs.map((r) => [r.variant, r]));
    // R_TC: the rest of the plan from the recovered state, then the OSWorld metric reads notes.txt
    // through the control server's /file: deleting the stray note passes, typing on after it does not
    expect(by["explicit-model/0-E"].verdict!.rtc).toMatchObject({ pass: true, score: 1 });
    expect(by["implicit/0-E"].verdict!.rtc.pass).toBe(false);
    expect(by["explicit-model/0-E"].verdict!.ro.ssim).toBeGreaterThan(by["implicit/0-E"].verdict!.ro.ssim);
    expect(evUsage.roles).toMatchObject({ policy: { calls: 1 }, recoverer: { calls: 1 } });
  }, 400_000);
});
