/**
 * Secrets test: run retrace with a fake API key through the CLI (key from an environment variable)
 * and through the computer-use policies, with the model-call cache on, then read every file
 * written under the output folder. The key must be nowhere, and must not be printed either, even
 * when the server echoes it back in an error.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getSimDeskTask } from "../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../packages/testing/src/scripted-openai-server.ts";
import { runModelTask } from "../experiments/model-run.ts";
import { planAnswers, planAnthropicSteps, planOpenAICuaSteps } from "./adapters/testing/plan-answers.ts";

const KEY = "sk-test-SECRET-123";
const TASK = "files-trash-menu";
const ROOT = resolve(import.meta.dirname, "..");

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) =>
    statSync(join(dir, n)).isDirectory() ? allFiles(join(dir, n)) : [join(dir, n)],
  );
}

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("secrets", () => {
  it("a fake API key used by the CLI and the computer-use policies appears in no written file and no output", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    const root = mkdtempSync(join(tmpdir(), "retrace-secrets-"));
    const echo = {
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" } },
    };

    // 1. the CLI, key from --api-key-env, cache on; the server echoes the key in a 401 first
    server = await startScriptedOpenAIServer({
      script: [echo, ...planAnswers(plan).map((text) => ({ endpoint: "chat" as const, text }))],
    });
    const cli = await runCli(
      [
        "run-model",
        "--base-url",
        server.url,
        "--model",
        "qwen-test",
        "--task",
        TASK,
        "--out",
        join(root, "cli"),
        "--api-key-env",
        "RETRACE_TEST_KEY",
        "--cache",
        "readwrite",
        "--max-retries",
        "0",
        "--max-steps",
        "12",
      ],
      { RETRACE_TEST_KEY: KEY, RETRACE_LOG_LEVEL: "debug" },
    );
    expect(cli.stderr).not.toContain(KEY);
    expect(cli.stdout).not.toContain(KEY);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/success/);
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`); // the key really was used
    server.verify();
    await server.close();

    // 2. Anthropic computer use through runModelTask, cache on
    server = await startScriptedOpenAIServer({
      script: [echo, ...planAnthropicSteps(plan).map((s) => ({ endpoint: "messages" as const, ...s }))],
    });
    const anth = await runModelTask({
      policy: "anthropic",
      model: "claude-sonnet-4-6",
      taskId: TASK,
      baseURL: server.origin,
      apiKey: KEY,
      out: join(root, "anthropic"),
      cache: "readwrite",
      maxRetries: 0,
      maxSteps: 12,
    });
    expect(anth.result.success).toBe(true);
    expect(anth.result.accounting.policyFailures).toBe(1);
    server.verify();
    await server.close();

    // 3. OpenAI computer use through runModelTask, cache on
    server = await startScriptedOpenAIServer({
      script: [echo, ...planOpenAICuaSteps(plan).map((s) => ({ endpoint: "responses" as const, ...s }))],
    });
    const cua = await runModelTask({
      policy: "openai-cua",
      model: "computer-use-preview",
      taskId: TASK,
      baseURL: server.url,
      apiKey: KEY,
      out: join(root, "cua"),
      cache: "readwrite",
      maxRetries: 0,
      maxSteps: 12,
    });
    expect(cua.result.success).toBe(true);
    server.verify();

    const files = allFiles(root);
    expect(files.some((f) => f.includes("model-cache"))).toBe(true);
    expect(files.filter((f) => f.endsWith("traj.jsonl"))).toHaveLength(3);
    for (const f of files) {
      const bytes = readFileSync(f);
      expect(bytes.includes(KEY), f).toBe(false);
      expect(bytes.includes("SECRET-123"), f).toBe(false);
    }
    // the echoed 401 was recorded as a model-error step, redacted
    const traj = readFileSync(join(root, "cli", "run.json"), "utf8");
    expect(traj).toMatch(/model-error/);
  });
});
