/**
 * `forward: { kind: openai-agents | ai-sdk, module, export }`: `retrace run` runs the end-to-end
 * ablation (no recovery vs recovery) on SimDesk with an SDK agent loaded from a module as the
 * forward agent; its model (the Agents SDK's OpenAIResponsesModel, or @ai-sdk/anthropic) answers
 * with `computer_call` items / computer `tool_use` blocks from a scripted server over real HTTP,
 * the other roles are model agents on the same server. After the
 * recovery the agent's Responses input holds step 0, the transition string, and nothing of the
 * cut steps. Bad module/export: one line naming the field, nothing written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { ScriptStep, ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import { getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import type { Action } from "../../packages/core/src/action.ts";
import { ablationQueues, cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";
import { toAnthropicInput, toOpenAIAction } from "../adapters/sdk/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-openai-agents-forward-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
const fixture = (p: string) => fileURLToPath(new URL(p, import.meta.url));

function agentPreset(file: string, kind: string, forward: Record<string, unknown>): string {
  return narrowedPreset(file, (c) => {
    const m = { kind: "model" };
    c.pairs = [
      {
        name: "oa",
        forward: { kind, ...forward },
        recovery: { ...m, format: "pyautogui" },
        detector: m,
        selector: m,
        summarizer: m,
      },
    ];
  });
}

/**
 * Per SDK: its fixture module, the env var naming the server, a scripted tool call, a final text, and how to read a
 * request.
 */
const SDKS = [
  {
    kind: "openai-agents",
    module: fixture("../fixtures/openai-agents/desk-agent.ts"),
    urlVar: "RETRACE_TEST_RESPONSES_URL",
    endpoint: "responses" as const,
    call: (a: Action, n: number): ScriptStep => ({
      endpoint: "responses",
      output: [
        {
          type: "computer_call",
          id: `cu_${n}`,
          call_id: `call_${n}`,
          action: toOpenAIAction(a),
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    }),
    final: (text: string): ScriptStep => ({ endpoint: "responses", text }),
    callIds: (body: any): string[] =>
      (body.input as any[]).filter((i) => i.type === "computer_call").map((i) => i.call_id),
    lastItem: (body: any) => body.input.at(-1),
    system: (body: any) => body.instructions,
  },
  {
    kind: "ai-sdk",
    module: fixture("../fixtures/ai-sdk/desk-agent.ts"),
    urlVar: "RETRACE_TEST_MESSAGES_URL",
    endpoint: "messages" as const,
    call: (a: Action, n: number): ScriptStep => ({
      endpoint: "messages",
      content: [{ type: "tool_use", id: `call_${n}`, name: "computer", input: toAnthropicInput(a) }],
    }),
    final: (text: string): ScriptStep => ({ endpoint: "messages", text }),
    callIds: (body: any): string[] =>
      (body.messages as any[]).flatMap((m) =>
        typeof m.content === "string" ? [] : m.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id),
      ),
    lastItem: (body: any) => body.messages.at(-1),
    system: (body: any) =>
      typeof body.system === "string" ? body.system : body.system?.map((b: any) => b.text).join(""),
  },
];

describe.each(SDKS)("forward: { kind: $kind } in retrace run", (sdk) => {
  it("runs the end-to-end ablation on the SDK agent and its context is cut at R", async () => {
    let callNo = 0;
    const call = (a: Action) => sdk.call(a, callNo++);
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep;
    const queues = await ablationQueues();
    const before = task.plan.slice(0, E);
    queues.forward = [
      ...before.map(call),
      ...mistake.actions.map(call),
      sdk.final("I could not find the file."),
      ...before.map(call),
      ...mistake.actions.map(call),
      ...task.plan.slice(1).map(call),
      sdk.final("Renamed draft.txt to final.txt."),
    ];
    const server = await startRoleServer(queues);
    servers.push(server);
    process.env[sdk.urlVar] = server.url;
    const out = join(dir, `run-${sdk.kind}`);
    const r = await cli(
      "run",
      agentPreset(join(dir, `${sdk.kind}.json`), sdk.kind, { module: sdk.module, export: "agent" }),
      "--base-url",
      server.url,
      "--model",
      "vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    server.verify();
    const [baseline, recovery] = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    expect(baseline).toMatchObject({ condition: "oa.no-recovery", simulated: false, success: false });
    expect(recovery).toMatchObject({ condition: "oa.max-rec-1", simulated: false, success: true, recoveryAttempts: 1 });
    expect(recovery.models!.policy!.calls).toBe(E + mistake.actions.length + task.plan.length - 1 + 1);

    // The recovery episode's forward requests: the one right after the restore sees step 0, then the transition string.
    const fwd = server.requests.filter((q) => q.endpoint === sdk.endpoint).slice(E + mistake.actions.length + 1);
    const afterRestore = fwd[E + mistake.actions.length].body;
    const ids = sdk.callIds(afterRestore);
    const first = before.length + mistake.actions.length; // call numbers of the recovery episode start here (the baseline made 0..first-1)
    expect(ids).toEqual([`call_${first}`]);
    expect(JSON.stringify(sdk.lastItem(afterRestore))).toMatch(/state it had at step 1\b/);
    expect(sdk.lastItem(afterRestore).role).toBe("user");
    // Every later request keeps the transition string and never the cut steps 1..E.
    for (const q of fwd.slice(E + mistake.actions.length)) {
      const seen = sdk.callIds(q.body);
      for (let k = 1; k <= E; k++) expect(seen).not.toContain(`call_${first + k}`);
      expect(JSON.stringify(q.body)).toMatch(/state it had at step 1\b/);
    }
    expect(sdk.system(fwd[0].body)).toBe("Operate the computer to complete the task.");
  });

  it("names the field when the module is missing or the export is not an agent, and writes nothing", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ module: join(dir, "nope.ts") }, /config\.pairs\.0\.forward\.module: .*nope\.ts does not exist/],
      [{ module: sdk.module, extra: 1 }, /config\.pairs\.0\.forward: unknown field\(s\) "extra"/],
      [{}, /config\.pairs\.0\.forward\.module: /],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const out = join(dir, `bad-${sdk.kind}-${i}`);
      const r = await cli(
        "run",
        agentPreset(join(dir, `bad-${sdk.kind}-${i}.json`), sdk.kind, spec),
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
