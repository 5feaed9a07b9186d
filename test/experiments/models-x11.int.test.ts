/**
 * The model-backed end-to-end preset on the real X11 desktop (mousepad under Xvfb): forward agent,
 * detector, selector, summarizer and the recovery sub-agent all talk to one scripted server; the
 * recovery sub-agent's actions run on the real app (no silent switch to replay). A simulated
 * recoverer with restoration "model" is refused up front with one line.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DESKTOP_TASKS } from "../../packages/desktops/src/desktop-tasks/tasks.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { X11_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { answer, cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const tools = systemTools("the model-backed X11 experiment tests", X11_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-models-x11-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

describe.runIf(tools.run)("the model-backed end-to-end preset on X11 (--env x11)", () => {
  it("recovers a typo with the model recovery sub-agent acting on mousepad, then finishes the task", async () => {
    const task = DESKTOP_TASKS.find((t) => t.id === "mousepad-append-line")!;
    const typo = task.mistakes!.find((m) => m.kind === "typo")!; // at step 1: types "- braed\n"
    const ok = { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' };
    const server = await startRoleServer({
      forward: [
        answer(task.plan[0]),
        ...typo.actions.map(answer),
        { text: "FAIL" }, // no-recovery episode
        answer(task.plan[0]),
        ...typo.actions.map(answer),
        ...task.plan.slice(1).map(answer), // recovery episode (R = 1)
      ],
      detector: [
        ok,
        { text: '{"off_track": true, "error_step": 1, "reason": "misspelled bread", "confidence": 0.95}' },
      ],
      selector: [{ text: '{"recovery_step": 1, "reason": "just before the typing"}' }],
      summarizer: [{ text: "TARGET STATE: notes.txt open, cursor at the end, nothing typed yet." }],
      recoverer: [
        { text: "Delete the typed line.\n```python\npyautogui.press('backspace', presses=8)\n```" },
        { text: "RESTORED" },
      ],
    });
    servers.push(server);
    const cfg = narrowedPreset(join(dir, "x11.json"), (c) => {
      c.env = { kind: "x11", tasks: ["mousepad-append-line"] };
      c.options.maxForwardSteps = 8;
    });
    const out = join(dir, "run");
    const r = await cli(
      "run",
      cfg,
      "--env",
      "x11",
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
    expect(recovery.recoverySteps).toBeGreaterThanOrEqual(1);
    expect(recovery.models!.recoverer).toMatchObject({ calls: 2, errors: 0 });
    expect(recovery.models!.summarizer).toMatchObject({ calls: 1 });
    expect(server.byRole).toMatchObject({ selector: 1, summarizer: 1, recoverer: 2 });
  }, 240_000);

  it('refuses restoration "model" with a simulated recoverer on X11 instead of replaying silently', async () => {
    const cfg = join(dir, "sim.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        kind: "end-to-end",
        name: "sim-x11",
        env: { kind: "x11" },
        seeds: [0],
        pairs: [{ name: "s", forward: { kind: "sim", profile: "sloppy" } }],
      }),
    );
    const out = join(dir, "refused");
    const r = await cli("run", cfg, "--out", out, "--quiet");
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^retrace: config\.pairs\.0\.recovery: restoration "model" on env x11 needs a model recovery sub-agent .*options\.restoration: replay$/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
