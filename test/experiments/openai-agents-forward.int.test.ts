/**
 * `forward: { kind: openai-agents, module, export }`: `retrace run` runs the end-to-end ablation
 * (no recovery vs recovery) on SimDesk with an OpenAI Agents SDK agent loaded from a module as the
 * forward agent; its model (the SDK's OpenAIResponsesModel) answers with `computer_call` items from
 * a scripted server over real HTTP, the other roles are model agents on the same server. After the
 * recovery the agent's Responses input holds step 0, the transition string, and nothing of the
 * cut steps. Bad module/export: one line naming the field, nothing written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { ScriptStep, ScriptedOpenAIServer } from "../../adapters/testing/scripted-openai-server.ts";
import { getSimDeskTask } from "../../adapters/environments/simdesk/index.ts";
import type { Action } from "../../src/action.ts";
import { ablationQueues, cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";
import { toOpenAIAction } from "../adapters/sdk/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-openai-agents-forward-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
const MODULE = fileURLToPath(new URL("../fixtures/openai-agents/desk-agent.ts", import.meta.url));

function agentPreset(file: string, forward: Record<string, unknown>): string {
  return narrowedPreset(file, (c) => {
    const m = { kind: "model" };
    c.pairs = [{ name: "oa", forward: { kind: "openai-agents", ...forward }, recovery: { ...m, format: "pyautogui" }, detector: m, selector: m, summarizer: m }];
  });
}

let callNo = 0;
const call = (a: Action): ScriptStep => ({ endpoint: "responses", output: [{ type: "computer_call", id: `cu_${callNo}`, call_id: `call_${callNo++}`, action: toOpenAIAction(a), pending_safety_checks: [], status: "completed" }] });

describe("forward: { kind: openai-agents } in retrace run", () => {
  it("runs the end-to-end ablation on an Agents SDK agent and its context is cut at R", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep;
    const queues = await ablationQueues();
    const before = task.plan.slice(0, E);
    queues.forward = [
      ...before.map(call), ...mistake.actions.map(call), { endpoint: "responses", text: "I could not find the file." },
      ...before.map(call), ...mistake.actions.map(call), ...task.plan.slice(1).map(call), { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
    ];
    const server = await startRoleServer(queues);
    servers.push(server);
    process.env.RETRACE_TEST_RESPONSES_URL = server.url;
    const out = join(dir, "run1");
    const r = await cli("run", agentPreset(join(dir, "oa.json"), { module: MODULE, export: "agent" }), "--base-url", server.url, "--model", "vlm", "--out", out, "--workers", "1", "--quiet");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    server.verify();
    const [baseline, recovery] = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultLine);
    expect(baseline).toMatchObject({ condition: "oa.no-recovery", simulated: false, success: false });
    expect(recovery).toMatchObject({ condition: "oa.max-rec-1", simulated: false, success: true, recoveryAttempts: 1 });
    expect(recovery.models!.policy!.calls).toBe(E + mistake.actions.length + task.plan.length - 1 + 1);

    // The recovery episode's forward requests: the one right after the restore sees step 0, then the transition string.
    const fwd = server.requests.filter((q) => q.endpoint === "responses").slice(E + mistake.actions.length + 1);
    const afterRestore = fwd[E + mistake.actions.length].body.input as any[];
    const ids = afterRestore.filter((i) => i.type === "computer_call").map((i) => i.call_id);
    const first = before.length + mistake.actions.length; // call numbers of the recovery episode start here (the baseline made 0..first-1)
    expect(ids).toEqual([`call_${first}`]);
    expect(JSON.stringify(afterRestore.at(-1))).toMatch(/state it had at step 1\b/);
    expect(afterRestore.at(-1).role).toBe("user");
    // Every later request keeps the transition string and never the cut steps 1..E.
    for (const q of fwd.slice(E + mistake.actions.length)) {
      const seen = (q.body.input as any[]).filter((i) => i.type === "computer_call").map((i) => i.call_id);
      for (let k = 1; k <= E; k++) expect(seen).not.toContain(`call_${first + k}`);
      expect(JSON.stringify(q.body.input)).toMatch(/state it had at step 1\b/);
    }
    expect(fwd[0].body.instructions).toBe("Operate the desktop to complete the task.");
  });

  it("names the field when the module is missing or the export is not an agent, and writes nothing", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ module: join(dir, "nope.ts") }, /config\.pairs\.0\.forward\.module: .*nope\.ts does not exist/],
      [{}, /config\.pairs\.0\.forward\.module: /],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const out = join(dir, `bad${i}`);
      const r = await cli("run", agentPreset(join(dir, `bad${i}.json`), spec), "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out", out, "--quiet");
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(existsSync(join(out, "results.jsonl"))).toBe(false);
    }
  });
});
