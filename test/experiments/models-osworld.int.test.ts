/**
 * An OSWorld experiment end to end: the model-backed end-to-end preset on a shared OSWorld task
 * (../shared/osworld-tasks) against retrace's local OSWorld control server (an X11 desktop behind
 * real HTTP on 127.0.0.1), scored by OSWorld's `infeasible` evaluator run natively. A task that
 * needs OSWorld's Python code is skipped with the reason and counted, never scored 0.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { desktopTask } from "../../packages/desktops/src/desktop-tasks/tasks.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../packages/desktops/src/osworld/control-server.ts";
import { createX11Desktop } from "../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../packages/desktops/src/x11/desktop-environment.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { X11_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const tools = systemTools("the OSWorld experiment test", X11_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-models-osworld-"));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

/** "I want to switch on the Bluetooth": infeasible on the VM, no setup steps, natively scored. */
const NATIVE = "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa";
/** Needs OSWorld's Python getters and metrics: skipped. */
const PYTHON_ONLY = "9656a811-9b5b-4ddf-99c7-5117bcef0626";

describe.runIf(tools.run)("an OSWorld experiment against the local control server", () => {
  let desktop: DesktopEnvironment;
  let control: OsworldControlServer;
  afterAll(async () => {
    await control?.close();
    await desktop?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the model-backed preset on a shared OSWorld task, scored by its evaluator, and counts the skipped one", async () => {
    desktop = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "desk-blobs") }) });
    await desktop.reset(desktopTask("mousepad-append-line")!);
    control = await startOsworldControlServer({ env: desktop });
    const ok = { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' };
    const server = await startRoleServer({
      // no-recovery: says it cannot be done at once; recovery condition: looks around once, then FAIL
      forward: [
        { text: "Bluetooth cannot be switched on in this VM.\nFAIL" },
        { text: "Let me check.\n```python\npyautogui.press('shift')\n```" },
        { text: "FAIL" },
      ],
      detector: [ok, ok],
      selector: [],
      summarizer: [],
      recoverer: [],
    });
    servers.push(server);
    const cfg = narrowedPreset(join(dir, "osworld.json"), (c) => {
      c.env = { kind: "osworld", url: control.url, tasks: [NATIVE, PYTHON_ONLY] };
      c.options.maxForwardSteps = 4;
      c.options.settleMs = 0; // the local control server settles by itself; OSWorld's default is the paper's 10 s
    });
    const out = join(dir, "run");
    const r = await cli(
      "run",
      cfg,
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
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    expect(lines.map((l) => [l.condition, l.task, l.success, l.simulated])).toEqual([
      ["model.no-recovery", NATIVE, true, false],
      ["model.max-rec-1", NATIVE, true, false],
    ]);
    expect(lines[1].forwardSteps).toBe(2);
    expect(lines[1].models!.detector!.calls).toBeGreaterThanOrEqual(1);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.skipped).toEqual([
      {
        task: PYTHON_ONLY,
        reason: expect.stringMatching(/^needs OSWorld's Python code for getter enable_safe_browsing/),
      },
    ]);
    expect(r.stdout).toContain(`skipped 1 task(s) that cannot run here: ${PYTHON_ONLY}`);
    expect(readFileSync(join(out, "model.max-rec-1", NATIVE, "0", "result.txt"), "utf8").trim()).toMatch(/^1(\.0)?$/);
  }, 240_000);
});
