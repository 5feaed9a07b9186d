/**
 * `{ kind: model, backend: langchain, module, export }`: every role of the model-backed end-to-end
 * preset on SimDesk talks to a LangChain ChatOpenAICompletions built by a module (a factory),
 * which reaches a scripted OpenAI-compatible server over real HTTP. Bad module/export: one-line
 * ConfigError naming the field, before anything is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import { ablationQueues, cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-langchain-backend-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
const MODULE = fileURLToPath(new URL("../fixtures/langchain/chat-openai-model.mjs", import.meta.url));

function langchainPreset(file: string, spec: Record<string, unknown>): string {
  return narrowedPreset(file, (c) => {
    const lc = { kind: "model", backend: "langchain", ...spec };
    c.pairs = [
      {
        name: "lc",
        forward: { ...lc, format: "pyautogui" },
        recovery: { ...lc, format: "pyautogui" },
        detector: lc,
        selector: lc,
        summarizer: lc,
      },
    ];
  });
}

describe("backend: langchain (a LangChain chat model from a module)", () => {
  it("runs no recovery vs recovery with every role on a LangChain model built by the module's factory", async () => {
    const server = await startRoleServer(await ablationQueues());
    servers.push(server);
    const cfg = langchainPreset(join(dir, "lc.json"), { module: MODULE });
    const out = join(dir, "run1");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "lc-vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    server.verify();
    expect(server.modelListCalls).toBe(0); // no endpoint preflight: the module owns its client
    expect(server.byRole).toMatchObject({ selector: 1, summarizer: 1, recoverer: 2 });
    expect(server.requests.every((q) => q.body.model === "lc-vlm")).toBe(true);
    const [baseline, recovery] = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    expect(baseline).toMatchObject({ condition: "lc.no-recovery", simulated: false, success: false });
    expect(recovery).toMatchObject({ condition: "lc.max-rec-1", simulated: false, success: true, recoveryAttempts: 1 });
    expect(Object.keys(recovery.models!).sort()).toEqual(["detector", "policy", "recoverer", "selector", "summarizer"]);
    expect(recovery.models!.policy!.inputTokens).toBeGreaterThan(0); // usage_metadata read through LangChain
  });

  it("names the field when the module is missing, the export does not exist or is not a chat model, and writes nothing", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ module: join(dir, "nope.mjs") }, /config\.pairs\.0\.forward\.module: .*nope\.mjs does not exist/],
      [{ module: MODULE, export: "missing" }, /config\.pairs\.0\.forward\.export: .* has no export named "missing"/],
      [
        { module: MODULE, export: "notAModel" },
        /config\.pairs\.0\.forward\.export: "notAModel" .* is neither a LangChain chat model nor a factory/,
      ],
      [{}, /backend langchain needs module/],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const out = join(dir, `bad${i}`);
      const r = await cli(
        "run",
        langchainPreset(join(dir, `bad${i}.json`), spec),
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--out",
        out,
        "--quiet",
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(existsSync(join(out, "results.jsonl"))).toBe(false);
    }
  });
});
