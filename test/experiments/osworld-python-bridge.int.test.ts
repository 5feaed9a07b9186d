/**
 * OSWorld's own Python evaluators in experiment runs: a shared task whose metric
 * (`check_json_settings`) only OSWorld's Python code implements is skipped with the reason
 * without `env.osworldPath`, and runs and is scored through the Python bridge with it. OSWorld
 * cannot be installed here, so the test writes a tiny `desktop_env.evaluators.metrics` package
 * (the one metric, with OSWorld's signature: a local file path and `{expected: {...}}`) into a
 * temp dir and points `env.osworldPath` at it; python3 runs it for real.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { desktopTask } from "../../packages/desktops/src/desktop-tasks/tasks.ts";
import { OsworldClient } from "../../packages/desktops/src/osworld/client.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../packages/desktops/src/osworld/control-server.ts";
import { createX11Desktop } from "../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../packages/desktops/src/x11/desktop-environment.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { DEFAULT_OSWORLD_TASKS, osworldTaskSplit } from "../../experiments/runtime/osworld.ts";
import { OsworldPythonBridge } from "../../packages/desktops/src/osworld/python-bridge.ts";
import { X11_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-osworld-bridge-"));

/**
 * The shared task, with its set-up (launch VS Code, activate its window) left out: the host desktop
 * launches only its own apps, and a set-up step that cannot be done fails the episode loudly. The
 * evaluator (OSWorld's Python metric over a VM file) is the task's own.
 */
function tasksDir(): string {
  const d = join(dir, "tasks", "vs_code");
  mkdirSync(d, { recursive: true });
  const task = JSON.parse(readFileSync(join(DEFAULT_OSWORLD_TASKS, "vs_code", `${TASK}.json`), "utf8")) as Record<
    string,
    unknown
  >;
  writeFileSync(join(d, `${TASK}.json`), JSON.stringify({ ...task, config: [] }));
  return join(dir, "tasks");
}
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

/**
 * VS Code "keep the cursor in the debug console": setup native, vm_file + rule getters, metric check_json_settings
 * (Python only).
 */
const TASK = "9439a27b-18ae-42d8-9778-5f68f891805e";

/** A fake OSWorld checkout with one metric, as OSWorld defines it. */
function fakeOsworld(): string {
  const root = join(dir, "OSWorld");
  const pkg = join(root, "desktop_env", "evaluators", "metrics");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(root, "desktop_env", "__init__.py"), "");
  writeFileSync(join(root, "desktop_env", "evaluators", "__init__.py"), "");
  writeFileSync(
    join(pkg, "__init__.py"),
    [
      "import json, os",
      "def check_json_settings(actual, expected, **options):",
      "    if not actual or not os.path.exists(actual):",
      "        return 0.",
      "    with open(actual) as f:",
      "        data = json.load(f)",
      "    score = 1. if all(data.get(k) == v for k, v in expected['expected'].items()) else 0.",
      "    with open(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'calls.log'), 'a') as log:",
      "        log.write(f'{actual} {score}\\n')",
      "    return score",
      "",
    ].join("\n"),
  );
  return root;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("OSWorld tasks with Python-only metrics", () => {
  it("are skipped with the reason without OSWorld and runnable when its evaluators import", () => {
    const without = osworldTaskSplit(DEFAULT_OSWORLD_TASKS);
    expect(without.tasks.map((t) => t.id)).not.toContain(TASK);
    expect(without.skipped.find((s) => s.task === TASK)?.reason).toMatch(
      /^needs OSWorld's Python code for metric check_json_settings \(set env\.osworldPath/,
    );
    const missing = new OsworldPythonBridge({ osworldDir: join(dir, "nowhere") }).availableSync();
    expect(missing.ok).toBe(false);
    expect(osworldTaskSplit(DEFAULT_OSWORLD_TASKS, missing).skipped.find((s) => s.task === TASK)?.reason).toMatch(
      /not importable with python3 \(ModuleNotFoundError: No module named 'desktop_env'\)/,
    );
    const ok = new OsworldPythonBridge({ osworldDir: fakeOsworld() }).availableSync();
    expect(ok).toEqual({ ok: true });
    const withBridge = osworldTaskSplit(DEFAULT_OSWORLD_TASKS, ok);
    expect(withBridge.tasks.map((t) => t.id)).toContain(TASK);
    // tasks needing Python setup steps or getters stay skipped: only metrics are bridged
    expect(withBridge.skipped.length).toBeGreaterThan(0);
    expect(withBridge.skipped.every((s) => /setup|getter|rejected/.test(s.reason))).toBe(true);
  });
});

const tools = systemTools("the OSWorld Python bridge test", X11_TOOLS);

describe.runIf(tools.run)("an OSWorld experiment scored by OSWorld's Python metric", () => {
  let desktop: DesktopEnvironment;
  let control: OsworldControlServer;
  afterAll(async () => {
    await control?.close();
    await desktop?.close();
  });

  it("skips the task without env.osworldPath and runs and scores it through the bridge with it", async () => {
    const baseDir = join(dir, "x11");
    chmodSync(dir, 0o755); // the desktop user must reach its session folder
    desktop = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "desk-blobs") }), baseDir });
    await desktop.reset(desktopTask("mousepad-append-line")!);
    control = await startOsworldControlServer({ env: desktop });
    // The state the task asks for, in the desktop user's home (the control server's /file reads it).
    const [session] = readdirSync(baseDir).filter((d) => d.startsWith("d"));
    const userDir = join(baseDir, session, "home", ".config", "Code", "User");
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      join(userDir, "settings.json"),
      JSON.stringify({ "debug.focusEditorOnBreak": false, "editor.fontSize": 14 }),
    );
    expect(
      (
        await new OsworldClient({ baseUrl: control.url }).file("/home/user/.config/Code/User/settings.json")
      )?.toString(),
    ).toContain("focusEditorOnBreak");
    const preset = (name: string, env: Record<string, unknown>) =>
      narrowedPreset(join(dir, `${name}.json`), (c) => {
        c.env = { kind: "osworld", url: control.url, tasks: [TASK], tasksDir: tasksDir(), ...env };
        c.options.maxForwardSteps = 2;
        c.options.settleMs = 0;
        c.maxRecoveryIterations = [1];
        c.baseline = false;
      });

    const skipped = await cli(
      "run",
      preset("without", {}),
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--out",
      join(dir, "without"),
      "--quiet",
      "--no-preflight",
    );
    expect(skipped.code).not.toBe(0);
    expect(skipped.stderr).toMatch(
      /no task of osworld can run here \(1 skipped, e\.g\. 9439a27b.*: needs OSWorld's Python code for metric check_json_settings/,
    );

    const server = await startRoleServer({
      forward: [{ text: "The setting is already as asked.\nDONE" }],
      detector: [],
      selector: [],
      summarizer: [],
      recoverer: [],
    });
    servers.push(server);
    const out = join(dir, "with");
    const r = await cli(
      "run",
      preset("with", { osworldPath: fakeOsworld() }),
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
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    expect(lines.map((l) => [l.task, l.success, l.simulated])).toEqual([[TASK, true, false]]);
    expect(lines[0].score).toBe(1);
    // the Python metric ran, on a local copy of the VM file (as OSWorld's vm_file getter gives it)
    const calls = readFileSync(join(dir, "OSWorld", "calls.log"), "utf8")
      .trim()
      .split("\n");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/settings\.json 1\.0$/);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.skipped ?? []).toEqual([]);
  }, 240_000);
});
