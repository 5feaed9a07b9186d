/**
 * Defects 1 and 10 of issue 12 (the others are rows of bad-input-cli.test.ts): process workers
 * start when the command runs outside the repository, and `retrace report` reads a
 * `retrace run --policy` folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getSimDeskTask } from "../../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { runModelTask } from "../../experiments/model-run.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { planAnswers } from "../adapters/testing/plan-answers.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-defects-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("issue 12 defects", () => {
  it("--workers 2 works when retrace runs from a folder outside the repository (tsx resolved from the package)", () => {
    const config = join(dir, "tiny.json");
    writeFileSync(
      config,
      JSON.stringify({
        kind: "end-to-end",
        name: "tiny",
        env: { kind: "simdesk", limit: 2 },
        seeds: [0],
        maxRecoveryIterations: [1],
        baseline: false,
        options: { maxForwardSteps: 8 },
        pairs: [
          { name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } },
        ],
      }),
    );
    const out = join(dir, "workers");
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "experiments/bin/retrace.mjs"), "run", config, "--workers", "2", "-q", "--out", out],
      { cwd: tmpdir(), encoding: "utf8", timeout: 240_000 },
    );
    expect(r.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|exited/);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
  }, 250_000);

  it("retrace report reads a run --policy folder as a one-episode run", async () => {
    const task = "files-trash-menu";
    server = await startScriptedOpenAIServer({
      script: planAnswers(getSimDeskTask(task).plan!).map((text) => ({ endpoint: "chat" as const, text })),
    });
    const out = join(dir, "policy-run");
    const run = await runModelTask({
      policy: "openai",
      model: "qwen-test",
      taskId: task,
      baseURL: server.url,
      apiKey: "local",
      out,
      maxRetries: 0,
      maxSteps: 12,
    });
    expect(run.result.success).toBe(true);
    expect(existsSync(join(out, "results.jsonl"))).toBe(false);
    const report = await buildReport(out, { episodesPerRun: 4 });
    expect(report.runs).toBe(1);
    expect(report.episodes).toBe(1);
    expect(report.chunks).toBe(1);
    // the viewer's screenshots come from the run's blob store: SimDesk screens (gzipped SVG there) are
    // named by id in the chunk file and packed beside it
    const ids = [
      ...readFileSync(join(out, "report-files", "chunk-0.js"), "utf8").matchAll(/"screen:([0-9a-f]{16})"/g),
    ].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(0);
    const packs = readdirSync(join(out, "report-files", "screens"))
      .map((f) => readFileSync(join(out, "report-files", "screens", f), "utf8"))
      .join("\n");
    for (const id of ids) expect(packs).toContain(`"${id}"`);
    const html = readFileSync(report.file, "utf8");
    expect(html).toContain("files-trash-menu");
    expect(html).toContain("openai:qwen-test");
  });
});
