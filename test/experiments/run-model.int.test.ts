import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../experiments/cli.ts";
import { runModelTask } from "../../experiments/model-run.ts";
import { getSimDeskTask } from "../../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { planAnswers } from "../adapters/testing/plan-answers.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TASK = "files-trash-menu";

describe("retrace run --policy (one model-backed task)", () => {
  it("solves a SimDesk task with a scripted OpenAI-compatible model and writes the OSWorld folder; a cached re-run makes zero calls", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    const answers = planAnswers(plan);
    server = await startScriptedOpenAIServer({
      script: answers.map((text) => ({
        endpoint: "chat" as const,
        text,
        usage: { inputTokens: 1000, outputTokens: 40 },
      })),
    });
    const root = mkdtempSync(join(tmpdir(), "retrace-run-model-"));
    const out = join(root, "run1");
    const cacheDir = join(root, "cache");
    const argv = [
      "node",
      "retrace",
      "run",
      "--policy",
      "openai",
      "--base-url",
      server.url,
      "--model",
      "qwen-test",
      "--task",
      TASK,
      "--out",
      out,
      "--cache",
      "readwrite",
      "--cache-dir",
      cacheDir,
      "--max-retries",
      "0",
    ];
    const written: string[] = [];
    const origWrite = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      await main(argv);
    } finally {
      process.stdout.write = origWrite;
    }
    expect(process.exitCode ?? 0).toBe(0);
    expect(written.join("")).toMatch(new RegExp(`${TASK}: success \\(score 1, done\\) in ${plan.length + 1} step`));
    expect(readFileSync(join(out, "result.txt"), "utf8").trim()).toBe("1");
    const traj = readFileSync(join(out, "traj.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(traj).toHaveLength(plan.length + 1);
    expect(traj[0]).toMatchObject({
      step_num: 1,
      screenshot_file: "step_1.png",
      info: { simulated: false, role: "forward" },
    });
    expect(traj[0].response).toContain("pyautogui.click(");
    expect(traj.at(-1).actions).toEqual([{ type: "DONE" }]);
    for (const t of traj) expect(existsSync(join(out, t.screenshot_file))).toBe(true);
    expect(existsSync(join(out, "step_0.png"))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, "result.json"), "utf8"))).toMatchObject({
      taskId: TASK,
      score: 1,
      simulated: false,
    });
    const result = JSON.parse(readFileSync(join(out, "run.json"), "utf8"));
    expect(result).toMatchObject({ task: TASK, success: true, simulated: false, policyKind: "openai" });
    expect(result.accounting.models.policy).toMatchObject({
      calls: plan.length + 1,
      inputTokens: 1000 * (plan.length + 1),
    });
    // the call log: one policy call per step, recorded against that step, its reply that step's response
    expect(result.calls.map((c: { seq: number; phase: string }) => `${c.seq}:${c.phase}`)).toEqual(
      result.trajectory.steps.map((s: { seq: number }) => `${s.seq}:policy`),
    );
    for (const [i, c] of result.calls.entries()) expect(c.reply).toBe(result.trajectory.steps[i].response ?? c.reply);
    // every request carried exactly the current screenshot (plus history), as a PNG data URL
    expect(server.calls).toBe(plan.length + 1);
    for (const r of server.requests) {
      expect(r.images.length).toBeGreaterThanOrEqual(1);
      expect(r.images.every((i) => i.mediaType === "image/png")).toBe(true);
      // a draw identity per call (seed 0, the task, role, ordinal), sent as the request's seed
      expect(Number.isInteger(r.body.seed)).toBe(true);
    }
    expect(new Set(server.requests.map((r) => r.body.seed)).size).toBe(server.requests.length);
    server.verify();

    // replay: a fresh server with an empty script; any call would fail the run loudly
    await server.close();
    server = await startScriptedOpenAIServer({ script: [] });
    const again = await runModelTask({
      model: "qwen-test",
      taskId: TASK,
      baseURL: server.url,
      out: join(root, "run2"),
      cache: "read",
      cacheDir,
      maxRetries: 0,
    });
    expect(server.calls).toBe(0);
    expect(again.cache).toMatchObject({ hits: plan.length + 1, misses: 0 });
    expect(again.result.success).toBe(true);
    // identical up to environment timing
    const untimed = (file: string) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => {
          const { info, ...rest } = JSON.parse(l);
          const { env_ms: _ms, ...facts } = info;
          return { ...rest, info: facts };
        });
    expect(untimed(join(root, "run2", "traj.jsonl"))).toEqual(untimed(join(out, "traj.jsonl")));
    expect(readdirSync(join(root, "run2")).filter((f) => f.endsWith(".png"))).toHaveLength(plan.length + 2);
  });

  it("asks for a config file or --policy when run is given neither, and refuses both at once", async () => {
    const errors: string[] = [];
    const origErr = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      await main(["node", "retrace", "run"]);
      expect(process.exitCode).toBe(2);
      await main(["node", "retrace", "run", "some.yaml", "--policy", "openai", "--model", "m", "--task", TASK]);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = origErr;
      process.exitCode = 0;
    }
    expect(errors[0]).toMatch(/^retrace: give an experiment config file .* or --policy openai --model NAME --task ID/);
    expect(errors[1]).toMatch(/^retrace: give either a config file or --policy/);
  });

  it("rejects an unknown task or policy with a ConfigError naming the flag", async () => {
    await expect(
      runModelTask({ model: "m", taskId: "no-such-task", baseURL: "http://127.0.0.1:9/v1" }),
    ).rejects.toThrow(ConfigError);
    await expect(runModelTask({ model: "m", taskId: TASK, policy: "telepathy" as never })).rejects.toThrow(/--policy/);
    await expect(
      runModelTask({ model: "m", taskId: TASK, apiKeyEnv: "RETRACE_TEST_UNSET_VAR", env: {} }),
    ).rejects.toThrow(/RETRACE_TEST_UNSET_VAR is not set/);
  });
});
