/**
 * Model-backed agents on the browser environment: the end-to-end preset (forward agent,
 * detector, LLM selector, summarizer and the recovery sub-agent all behind one scripted
 * OpenAI-compatible server) on a built-in task in real Chromium. The recovery sub-agent's
 * actions run in the page through the environment interface, like any agent's.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BROWSER_TASKS } from "../../../../packages/browser/src/tasks/index.ts";
import type { ScriptedOpenAIServer } from "../../../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../../../experiments/runner/results-log.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";
import { answer, cli, narrowedPreset, startRoleServer } from "../../../experiments/helpers/model-roles.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-models-browser-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

describe.runIf(tools.run)("the model-backed end-to-end preset on the browser (--env browser)", () => {
  it("recovers a typo with the model recovery sub-agent acting in the page, then finishes the task", async () => {
    tools.assert();
    const task = BROWSER_TASKS.find((t) => t.id === "admin-rename-site")!;
    const typo = task.mistakes.find((m) => m.kind === "typo")!; // at step 2: types "Acme Suport Portal"
    const ok = { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' };
    const server = await startRoleServer({
      forward: [
        ...task.plan.slice(0, 2).map(answer),
        ...typo.actions.map(answer),
        { text: "FAIL" }, // no-recovery episode
        ...task.plan.slice(0, 2).map(answer),
        ...typo.actions.map(answer),
        ...task.plan.slice(2).map(answer), // recovery episode (R = 2)
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
    const cfg = narrowedPreset(join(dir, "browser.json"), (c) => {
      c.env = { kind: "browser", tasks: ["admin-rename-site"] };
      c.options.maxForwardSteps = 8;
    });
    const out = join(dir, "run");
    const r = await cli(
      "run",
      cfg,
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
    expect(baseline).toMatchObject({ condition: "model.no-recovery", simulated: false, success: false });
    expect(recovery).toMatchObject({
      condition: "model.max-rec-1",
      simulated: false,
      recoveryAttempts: 1,
      replaySteps: 0,
      success: true,
    });
    expect(recovery.recoverySteps).toBe(1);
    expect(server.byRole).toMatchObject({ selector: 1, summarizer: 1, recoverer: 2 });
  }, 240_000);
});
