/**
 * The recovery evaluation with model agents on the browser environment (`--env browser`), against
 * a scripted OpenAI-compatible server: rollout by the model forward agent on a built-in task in
 * real Chromium, N = 2 replays confirmed by the browser's state hash (server state, cookies,
 * storage, URL, form values: its ground truth), perturbation by the model perturber, then
 * implicit and explicit recovery judged by R_O (SSIM) and R_TC (the rest of the plan replayed,
 * then the task's checker reads the app's server state). The error state is rebuilt by replay
 * once per sample and by snapshot restore for every further run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadRecoveryEvalConfig } from "../../../experiments/recovery-eval/config.ts";
import { buildConfiguredDataset, runConfiguredRecoveryEval } from "../../../experiments/recovery-eval/models.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { BROWSER_TASKS } from "../../../packages/browser/src/tasks/index.ts";
import { cli, oneLine } from "../helpers/corpus.ts";
import { answer } from "../helpers/model-roles.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";

const tools = systemTools("the browser recovery-evaluation tests", CHROMIUM_TOOLS);
const TASK = BROWSER_TASKS.find((t) => t.id === "admin-rename-site")!; // click the name, select all, type, save, DONE
const usage = { inputTokens: 800, outputTokens: 20 };
type Role = "forward" | "perturber" | "recoverer";

function roleOf(r: RecordedRequest): Role {
  const text = JSON.stringify(r.body ?? "");
  if (text.includes("RECOVERY MODE.")) return "recoverer";
  if (text.includes("Your job is the opposite of finishing the task")) return "perturber";
  return "forward";
}
/** A server answering each role from its own queue (recording how often each was asked). */
async function roleServer(
  queues: Record<Role, ScriptStep[]>,
): Promise<ScriptedOpenAIServer & { byRole: Record<Role, number> }> {
  const byRole: Record<Role, number> = { forward: 0, perturber: 0, recoverer: 0 };
  const server = await startScriptedOpenAIServer({
    responder(r) {
      const role = roleOf(r);
      byRole[role]++;
      const next = queues[role].shift();
      return next && { usage, ...next };
    },
  });
  return Object.assign(server, { byRole });
}
const code = (line: string, prose: string): ScriptStep => ({ text: `${prose}\n\`\`\`python\n${line}\n\`\`\`` });

describe.runIf(tools.run)("recovery evaluation with model agents on the browser (--env browser)", () => {
  const root = mkdtempSync(join(tmpdir(), "retrace-eval-browser-"));
  let server: (ScriptedOpenAIServer & { byRole: Record<Role, number> }) | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("builds a state-hash-confirmed dataset in Chromium and judges model recovery with R_O and the checker's R_TC", async () => {
    tools.assert();
    const cfgFile = join(root, "browser.json");
    writeFileSync(
      cfgFile,
      JSON.stringify({
        kind: "recovery-eval",
        name: "models-browser",
        env: { kind: "browser", tasks: [TASK.id] },
        seed: 2, // draws seed step t = 3 (the new name typed, not saved yet)
        dataset: {
          forward: { kind: "model", temperature: 0 },
          perturber: { kind: "model", temperature: 0 },
          rolloutsPerTask: 1,
          replays: 2,
          seedSteps: 1,
          distances: [1],
          maxSteps: 8,
        },
        eval: {
          recoveryBudget: [1],
          implicit: true,
          recoverers: [{ name: "model", agent: { kind: "model", temperature: 0 }, contexts: ["0-E", "none"] }],
        },
      }),
    );
    server = await roleServer({
      forward: TASK.plan.map(answer),
      // appends a stray note to the new name: saving now would store the wrong name
      perturber: [code("pyautogui.write(' TODO check the fridge and the freezer')", "A stray note.")],
      recoverer: [],
    });
    const fill = { env: "browser", baseUrl: server.url, model: "qwen-test" };
    const ds = join(root, "dataset");
    const { manifest, usage: dsUsage } = await buildConfiguredDataset({
      config: loadRecoveryEvalConfig(cfgFile, fill),
      out: ds,
      preflight: false,
    });
    expect(manifest.trajectories).toMatchObject({
      rollouts: 1,
      successful: 1,
      wellFormed: 1,
      transitionConsistent: 1,
      envErrors: 0,
    });
    expect(manifest.stages[0]).toMatchObject({ seedSteps: 1, targetReproduced: 1, genuineError: 1, final: 1 });
    expect(manifest).toMatchObject({ simulated: false, config: { env: "browser", verify: "auto" } });
    expect(dsUsage.roles).toMatchObject({ policy: { calls: TASK.plan.length, errors: 0 }, perturber: { calls: 1 } });
    const sample = JSON.parse(readFileSync(join(ds, "samples.jsonl"), "utf8").trim());
    expect(sample.targetStep).toBe(3);
    expect(sample.target.stateHash).toMatch(/^[0-9a-f]{64}$/); // the browser's ground truth confirmed the replays

    // evaluation: the error state is rebuilt by a verified replay, then restored from a snapshot
    await server.close();
    server = await roleServer({
      forward: [answer(TASK.plan[3])], // implicit: saves with the stray note in the name
      recoverer: [
        code(
          "pyautogui.hotkey('ctrl', 'a')\npyautogui.write('Acme Support Portal')",
          "A stray note was typed after the name; retyping the name to restore the TARGET state.",
        ),
        code("pyautogui.press('esc')", "Pressing Escape."),
      ],
      perturber: [],
    });
    const {
      report,
      runs,
      usage: evUsage,
    } = await runConfiguredRecoveryEval({
      config: loadRecoveryEvalConfig(cfgFile, { ...fill, baseUrl: server.url }),
      dataset: ds,
      out: join(root, "eval"),
      preflight: false,
    });
    expect(server.byRole).toEqual({ forward: 1, recoverer: 2, perturber: 0 });
    expect(report.simulated).toBe(false);
    expect(runs.map((r) => r.status)).toEqual(["judged", "judged", "judged"]);
    const by = Object.fromEntries(runs.map((r) => [r.variant, r]));
    expect(by["explicit-model/0-E"].verdict).toMatchObject({ success: true, rtc: { pass: true } });
    expect(by["explicit-model/0-E"].verdict!.ro.ssim).toBeGreaterThanOrEqual(0.99);
    expect(by["explicit-model/none"].verdict!.rtc.pass).toBe(false);
    expect(by["implicit/0-E"].verdict!.rtc.pass).toBe(false);
    expect(evUsage.roles).toMatchObject({ policy: { calls: 1 }, recoverer: { calls: 2 } });
  }, 300_000);

  it("refuses the simulated recovery evaluation on the browser in one line that names what to use", async () => {
    for (const cmd of [
      ["dataset", "build", "--env", "browser", "--out", join(root, "sim")],
      ["eval-recovery", "--env", "browser", "--dataset", join(root, "sim"), "--out", join(root, "sim-eval")],
    ]) {
      const r = await cli(cmd);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toMatch(
        /simulated .* SimDesk only.*--config experiments\/configs\/models\/recovery-eval\.yaml/,
      );
    }
  });
});
