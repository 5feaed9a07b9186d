/**
 * The recovery evaluation with model agents on the real X11 desktop (Xvfb + mousepad), against a
 * scripted OpenAI-compatible server: rollout by the model forward agent, N = 2 replays, targets
 * confirmed by the model verifier (no ground-truth state hash on a real desktop), perturbation by
 * the model perturber, then implicit and explicit recovery judged by R_O (SSIM) and R_TC (the
 * remaining ground-truth actions replayed, then the task's own oracle reads the saved file).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import { buildConfiguredDataset, runConfiguredRecoveryEval } from "../../../experiments/recovery-eval/models.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { X11_TOOLS, systemTools } from "../../helpers/system-tools.ts";

const tools = systemTools("the X11 recovery-evaluation tests", X11_TOOLS);
const TASK = "mousepad-append-line";

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
const FORWARD = /add a line '- bread'/;
const VERIFY = /TARGET/;
const match: ScriptStep = {
  endpoint: "chat",
  text: JSON.stringify({
    verdict: "match",
    evidence: ["same text, same cursor line"],
    reason: "the two screenshots show the same document",
  }),
  usage,
  expect: expectText(VERIFY, "verifier"),
};

describe.runIf(tools.run)("recovery evaluation with model agents on X11 (mousepad)", () => {
  const root = mkdtempSync(join(tmpdir(), "retrace-eval-x11-"));
  let server: ScriptedOpenAIServer | undefined;
  beforeAll(() => tools.assert());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("builds a verifier-confirmed dataset on real apps and judges model recovery with R_O and the task oracle's R_TC", async () => {
    const cfgFile = join(root, "x11.json");
    writeFileSync(
      cfgFile,
      JSON.stringify({
        kind: "recovery-eval",
        name: "models-x11",
        env: { kind: "x11", tasks: [TASK] },
        seed: 1, // draws seed step t = 1 (cursor at the end of the list, nothing typed yet)
        dataset: {
          forward: { kind: "model", temperature: 0 },
          perturber: { kind: "model", temperature: 0 },
          verifier: { kind: "model" },
          verify: "verifier",
          rolloutsPerTask: 1,
          replays: 2,
          seedSteps: 1,
          distances: [1],
          maxSteps: 6,
        },
        eval: {
          recoveryBudget: [1],
          implicit: true,
          recoverers: [{ name: "model", agent: { kind: "model", temperature: 0 }, contexts: ["0-E", "none"] }],
        },
      }),
    );
    server = await startScriptedOpenAIServer({
      script: [
        // rollout: Ctrl+End, type the line, save, DONE
        {
          endpoint: "chat",
          text: code("pyautogui.hotkey('ctrl', 'end')", "Go to the end of the list."),
          usage,
          expect: expectText(FORWARD, "forward"),
        },
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('- bread\\n')", "Type the new line."),
          usage,
          expect: expectText(FORWARD, "forward"),
        },
        {
          endpoint: "chat",
          text: code("pyautogui.hotkey('ctrl', 's')", "Save."),
          usage,
          expect: expectText(FORWARD, "forward"),
        },
        { endpoint: "chat", text: "Saved.\n```\nDONE\n```", usage, expect: expectText(FORWARD, "forward") },
        // N = 2 replays need no model; the target (after step 1) is confirmed by the verifier
        match,
        // the perturber types a stray line at the end (one character would be near-identical: SSIM >= 0.999)
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('TODO check the fridge and the freezer')", "A stray note."),
          usage,
          expect: expectText(/drift|perturb|mistake/i, "perturber"),
        },
      ],
    });
    const fill = { baseUrl: server.url, model: "qwen-test" };
    const config = loadRecoveryEvalConfig(cfgFile, fill);
    const ds = join(root, "dataset");
    const progress: string[] = [];
    const { manifest, usage: dsUsage } = await buildConfiguredDataset({
      config,
      out: ds,
      preflight: false,
      onProgress: (m) => progress.push(m),
    });
    server.verify();
    expect(manifest.trajectories).toMatchObject({
      rollouts: 1,
      successful: 1,
      wellFormed: 1,
      transitionConsistent: 1,
      envErrors: 0,
    });
    expect(progress.join("\n") + JSON.stringify(manifest.stages[0])).toMatch(/"final":1/);
    expect(manifest.stages[0]).toMatchObject({ seedSteps: 1, targetReproduced: 1, genuineError: 1, final: 1 });
    expect(manifest).toMatchObject({ simulated: false, config: { env: "x11", verify: "verifier" } });
    expect(dsUsage.roles).toMatchObject({
      policy: { calls: 4, errors: 0 },
      verifier: { calls: 1 },
      perturber: { calls: 1 },
    });
    const sample = JSON.parse(readFileSync(join(ds, "samples.jsonl"), "utf8").trim());
    expect(sample.targetStep).toBe(1);
    expect(sample.target.stateHash).toBeUndefined(); // no ground truth on a real desktop

    // evaluation: every run rebuilds the error state by replay (no snapshots on X11), confirming
    // target and error with the verifier, then one recovery step
    await server.close();
    server = await startScriptedOpenAIServer({
      script: [
        match,
        match,
        {
          endpoint: "chat",
          text: code("pyautogui.typewrite('- bread\\n')", "Type the new line."),
          usage,
          expect: expectText(FORWARD, "forward (implicit)"),
        },
        match,
        match,
        {
          endpoint: "chat",
          text: code(
            "pyautogui.hotkey('shift', 'home')\npyautogui.press('backspace')",
            "I notice a stray note was typed; deleting it to restore the TARGET state.",
          ),
          usage,
          expect: expectText(/TARGET/, "recoverer 0-E"),
        },
        match,
        match,
        {
          endpoint: "chat",
          text: code("pyautogui.press('esc')", "Pressing Escape."),
          usage,
          expect: expectText(/No history of the earlier run/, "recoverer none"),
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
    expect(runs.map((r) => r.status)).toEqual(["judged", "judged", "judged"]);
    const by = Object.fromEntries(runs.map((r) => [r.variant, r]));
    // R_TC: the rest of the plan (type the line, save, DONE) from the recovered state, then the
    // task oracle reads notes.txt. Deleting the stray note passes; Escape and the implicit agent's
    // forward step (which leaves the note in front of "- bread") fail.
    expect(by["explicit-model/0-E"].verdict!.rtc).toMatchObject({ pass: true, score: 1 });
    expect(by["explicit-model/0-E"].verdict!.success).toBe(true); // measured: SSIM 1.0 (error vs target: 0.987)
    expect(by["explicit-model/none"].verdict!.rtc.pass).toBe(false);
    expect(by["implicit/0-E"].verdict!.rtc.pass).toBe(false);
    expect(by["explicit-model/none"].verdict!.ro.pass).toBe(false);
    expect(by["explicit-model/0-E"].verdict!.ro.ssim).toBeGreaterThan(by["explicit-model/none"].verdict!.ro.ssim);
    expect(evUsage.roles).toMatchObject({ verifier: { calls: 6 }, policy: { calls: 1 }, recoverer: { calls: 2 } });
    expect(JSON.parse(readFileSync(join(root, "eval", "recovery-eval.json"), "utf8")).table).toHaveLength(3);
  }, 300_000);
});
