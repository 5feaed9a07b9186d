/**
 * `forward: { kind: stagehand, module, export }`: `retrace run --env browser` runs the end-to-end
 * ablation (no recovery vs recovery) on a Stagehand hybrid agent loaded from a module (its
 * AgentConfig, unchanged) in real Chromium. Its model (Stagehand's @ai-sdk/anthropic) answers with
 * `tool_use` blocks of Stagehand's own tools (screenshot, click, keys) from a scripted server over
 * real HTTP; the other roles are model agents on the same server. The agent misspells the site
 * name; after the recovery to R = 2 its requests hold steps 0-1, the transition string, and
 * nothing of the cut step. A DOM-mode agent is refused with one line naming the field, before any
 * result. The same policy on SimDesk (no browser): read-only calls answered inside the step,
 * `wait` as an Action, a tool it does not offer and endless read-only calls as recorded failures.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BROWSER_TASKS } from "../../packages/browser/src/tasks/index.ts";
import type { ScriptStep, ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { Action } from "../../packages/core/src/action.ts";
import { createSimDesk, getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { startScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import { stagehandForwardPolicy } from "../../packages/stagehand/src/index.ts";
import { tempBlobs } from "../adapters/llm/fixtures.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const tools = systemTools("the Stagehand forward kind on the browser environment", CHROMIUM_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-stagehand-forward-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
const agentModule = fileURLToPath(new URL("../fixtures/stagehand/web-agent.ts", import.meta.url));

/** A retrace Action as the Stagehand tool call that performs it. */
function stagehandCall(a: Action, id: string): ScriptStep {
  const KEY: Record<string, string> = { ctrl: "Control", a: "a" };
  const [name, input] =
    a.type === "CLICK"
      ? ["click", { describe: "the field", coordinates: [a.x, a.y] }]
      : a.type === "HOTKEY"
        ? ["keys", { method: "press", value: a.keys.map((k) => KEY[k] ?? k).join("+") }]
        : a.type === "TYPING"
          ? ["keys", { method: "type", value: a.text }]
          : [];
  if (!name) throw new Error(`no Stagehand call for ${a.type}`);
  return { endpoint: "messages", content: [{ type: "tool_use", id, name, input }] };
}
const screenshot = (id: string): ScriptStep => ({
  endpoint: "messages",
  content: [{ type: "tool_use", id, name: "screenshot", input: {} }],
});
const final = (text: string): ScriptStep => ({ endpoint: "messages", text });

const blocks = (body: any): any[] =>
  (body.messages as any[]).flatMap((m) =>
    typeof m.content === "string"
      ? [{ type: "text", text: m.content, role: m.role }]
      : m.content.map((b: any) => ({ ...b, role: m.role })),
  );
const toolUseIds = (body: any): string[] =>
  blocks(body)
    .filter((b) => b.type === "tool_use")
    .map((b) => b.id);
const systemText = (body: any): string =>
  typeof body.system === "string" ? body.system : body.system?.map((b: any) => b.text).join("");

function stagehandPreset(file: string, forward: Record<string, unknown>): string {
  return narrowedPreset(file, (c) => {
    const m = { kind: "model" };
    c.env = { kind: "browser", tasks: ["admin-rename-site"] };
    c.options.maxForwardSteps = 8;
    c.pairs = [
      {
        name: "sh",
        forward: { kind: "stagehand", ...forward },
        recovery: { ...m, format: "pyautogui" },
        detector: m,
        selector: m,
        summarizer: m,
      },
    ];
  });
}

describe.runIf(tools.run)("forward: { kind: stagehand } in retrace run --env browser", () => {
  it("runs the end-to-end ablation on the Stagehand agent and cuts its messages at R", async () => {
    tools.assert();
    const task = BROWSER_TASKS.find((t) => t.id === "admin-rename-site")!;
    const typo = task.mistakes.find((m) => m.kind === "typo")!; // at step 2: types "Acme Suport Portal"
    const [click, selectAll, typeName, save] = task.plan;
    const ok = { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' };
    const server = await startRoleServer({
      forward: [
        // no-recovery episode: a screenshot (answered inside step 0), the typo, then the agent stops
        screenshot("a_shot"),
        stagehandCall(click, "a_0"),
        stagehandCall(selectAll, "a_1"),
        stagehandCall(typo.actions[0], "a_2"),
        final("I renamed the site."),
        // recovery episode: the same start; after the recovery to R = 2 the right name, save, done
        screenshot("b_shot"),
        stagehandCall(click, "b_0"),
        stagehandCall(selectAll, "b_1"),
        stagehandCall(typo.actions[0], "b_2"),
        stagehandCall(typeName, "b_3"),
        stagehandCall(save, "b_4"),
        final("Renamed the site to Acme Support Portal and saved."),
      ],
      detector: [
        ok,
        ok,
        { text: '{"off_track": true, "error_step": 2, "reason": "misspelled Support", "confidence": 0.95}' },
      ],
      selector: [{ text: '{"recovery_step": 2, "reason": "just before the typing, with the old name selected"}' }],
      summarizer: [
        { text: "TARGET STATE: the settings form with the whole site name field selected, nothing typed yet." },
      ],
      recoverer: [
        { text: "Select the mistyped name again.\n```python\npyautogui.hotkey('ctrl', 'a')\n```" },
        { text: "RESTORED" },
      ],
    });
    servers.push(server);
    process.env.RETRACE_TEST_MESSAGES_URL = server.url;
    const out = join(dir, "run");
    const r = await cli(
      "run",
      stagehandPreset(join(dir, "stagehand.json"), { module: agentModule, export: "agent" }),
      "--env",
      "browser",
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
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
    expect(baseline).toMatchObject({ condition: "sh.no-recovery", simulated: false, success: false });
    expect(recovery).toMatchObject({ condition: "sh.max-rec-1", simulated: false, success: true, recoveryAttempts: 1 });
    // Steps 0 and the screenshot answered inside it: two model calls; then one per step.
    expect(recovery.models!.policy!.calls).toBe(7);
    expect(server.byRole).toMatchObject({ selector: 1, summarizer: 1, recoverer: 2 });

    const fwd = server.requests.filter((q) => q.endpoint === "messages").map((q) => q.body);
    expect(fwd).toHaveLength(12);
    // Stagehand's own system prompt (hybrid tools, the start URL) with the team's instructions, and its tools.
    expect(systemText(fwd[0])).toContain("You operate the ACME admin console for the support team.");
    expect(systemText(fwd[0])).toMatch(/\/admin\b/);
    const offered = (fwd[0].tools as any[]).map((t) => t.name).sort();
    expect(offered).toEqual(expect.arrayContaining(["click", "keys", "screenshot", "type", "scroll"]));
    expect(offered).not.toContain("act");
    expect(offered).not.toContain("goto");
    // The screenshot call is answered with the environment's screenshot, within the same step.
    const shotResult = blocks(fwd[1]).find((b) => b.type === "tool_result" && b.tool_use_id === "a_shot");
    expect(shotResult.content.some((c: any) => c.type === "image")).toBe(true);

    // The recovery episode: the request right after the restore holds steps 0-1, then the transition string.
    const rec = fwd.slice(5);
    expect(toolUseIds(rec[3])).toEqual(["b_shot", "b_0", "b_1"]);
    const afterRestore = rec[4];
    expect(toolUseIds(afterRestore)).toEqual(["b_shot", "b_0", "b_1"]);
    const last = blocks(afterRestore).at(-1);
    expect(last.role).toBe("user");
    expect(last.text).toMatch(/state it had at step 2\b/);
    // Every later request keeps the transition string and never the cut step.
    for (const body of rec.slice(4)) {
      expect(toolUseIds(body)).not.toContain("b_2");
      expect(JSON.stringify(body)).toMatch(/state it had at step 2\b/);
    }
    expect(toolUseIds(rec[6])).toEqual(["b_shot", "b_0", "b_1", "b_3", "b_4"]);
    // Stagehand's own compression: only the two latest screenshot-bearing results keep their image.
    const hasImage = (body: any, id: string) =>
      blocks(body)
        .find((b) => b.type === "tool_result" && b.tool_use_id === id)
        .content.some((c: any) => c.type === "image");
    expect([hasImage(afterRestore, "b_shot"), hasImage(afterRestore, "b_0")]).toEqual([true, true]);
    expect([hasImage(rec[6], "b_shot"), hasImage(rec[6], "b_0"), hasImage(rec[6], "b_4")]).toEqual([false, true, true]);
  }, 300_000);

  it("refuses a DOM-mode agent with one line naming the field, and records no result", async () => {
    const server = await startRoleServer({ forward: [], detector: [], selector: [], summarizer: [], recoverer: [] });
    servers.push(server);
    const out = join(dir, "bad");
    const r = await cli(
      "run",
      stagehandPreset(join(dir, "bad.json"), { module: agentModule, export: "domAgent" }),
      "--env",
      "browser",
      "--base-url",
      server.url,
      "--model",
      "m",
      "--out",
      out,
      "--quiet",
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /forward\.export: "domAgent" of .*web-agent\.ts is not a Stagehand AgentConfig: mode "dom" .*set mode: "hybrid"/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    // The run stops at the first step: no result line, no model call of the agent.
    const results = join(out, "results.jsonl");
    expect(existsSync(results) ? readFileSync(results, "utf8").trim() : "").toBe("");
    expect(server.byRole.forward).toBe(0);
  }, 60_000);
});

describe("stagehandForwardPolicy on SimDesk (the same agent, no browser)", () => {
  it("answers think and ariaTree inside the step, acts on wait, and records a tool it does not offer and endless screenshots as failures", async () => {
    const blobs = tempBlobs();
    const desk = createSimDesk({ blobs });
    const task = getSimDeskTask("files-rename-draft");
    const observation = await desk.reset(task);
    const use = (id: string, name: string, input: object): ScriptStep => ({
      endpoint: "messages",
      content: [{ type: "tool_use", id, name, input }],
    });
    const server = await startScriptedOpenAIServer({
      script: [
        use("t_0", "think", { reasoning: "Open the file manager first." }),
        use("t_1", "ariaTree", {}),
        use("t_2", "wait", { timeMs: 500 }),
        use("t_3", "goto", { url: "https://example.com" }),
        ...Array.from({ length: 5 }, (_, k) => use(`s_${k}`, "screenshot", {})),
      ],
    });
    servers.push(server);
    const policy = stagehandForwardPolicy({
      mode: "hybrid",
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "k", baseURL: server.url },
    });
    const input = { task, history: [], observation, step: 0, tick: 0, blobs };
    const first = await policy.propose(input);
    expect(first.actions).toEqual([{ type: "WAIT", seconds: 0.5 }]);
    expect(first.usage).toHaveLength(3);
    const [, afterThink, afterTree] = server.requests.map((q) => blocks(q.body));
    expect(JSON.stringify(afterThink.find((b) => b.type === "tool_result"))).toContain("Open the file manager first.");
    expect(JSON.stringify(afterTree.filter((b) => b.type === "tool_result").at(-1))).toMatch(/Accessibility Tree:/);
    expect(await policy.propose(input)).toMatchObject({
      actions: [],
      failure: { kind: "unparseable", message: expect.stringMatching(/called goto/) },
    });
    const stuck = await policy.propose(input);
    expect(stuck).toMatchObject({ actions: [], failure: { kind: "empty" } });
    expect(stuck.usage).toHaveLength(5);
    server.verify();
  }, 60_000);
});
