/**
 * OSWorld's own environment code through the Python bridge: a task whose set-up step and getter
 * retrace does not run natively is set up by OSWorld's `SetupController` and scored by OSWorld's
 * `DesktopEnv.evaluate`, both pointed at retrace's control server on a real X11 desktop.
 *
 * OSWorld cannot be installed on these machines (no PyPI, and its code stays out of this
 * repository), so the test writes a small package with OSWorld's module layout and signatures
 * (`desktop_env.controllers.python.PythonController(vm_ip, server_port)`,
 * `desktop_env.controllers.setup.SetupController(...)`, getters `get_<type>(env, config)`, a
 * metric, `desktop_env.desktop_env.DesktopEnv` with `_set_evaluator_info` and `evaluate`) that
 * talks HTTP to the control server with the standard library. python3 runs it for real: this
 * proves the bridge's plumbing (what the stand-in environment object carries, that OSWorld-shaped
 * clients reach the control server, failures as one line), not OSWorld's own scores.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { EnvironmentError } from "../../../../packages/core/src/errors.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import { OsworldClient } from "../../../../packages/desktops/src/osworld/client.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../packages/desktops/src/osworld/control-server.ts";
import { OsworldEnvironment } from "../../../../packages/desktops/src/osworld/environment.ts";
import { OsworldPythonBridge } from "../../../../packages/desktops/src/osworld/python-bridge.ts";
import {
  loadOsworldTasks,
  offlineBlockers,
  type OsworldTask,
} from "../../../../packages/desktops/src/osworld/tasks.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { osworldTaskSplit } from "../../../../experiments/runtime/osworld.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-osworld-own-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const py = (lines: string[]) => lines.join("\n") + "\n";

/** A package with OSWorld's layout and signatures (standard library only). */
function standInOsworld(withEnvironmentCode: boolean): string {
  const root = join(dir, withEnvironmentCode ? "osworld-full" : "osworld-metrics");
  for (const d of ["desktop_env/controllers", "desktop_env/evaluators/getters", "desktop_env/evaluators/metrics"])
    mkdirSync(join(root, d), { recursive: true });
  for (const f of ["desktop_env/__init__.py", "desktop_env/evaluators/__init__.py"]) writeFileSync(join(root, f), "");
  writeFileSync(
    join(root, "desktop_env/evaluators/metrics/__init__.py"),
    py([
      "def same_text(result, expected, **options):",
      "    return 1. if result is not None and result.strip() == expected['text'] else 0.",
    ]),
  );
  if (!withEnvironmentCode) return root;
  writeFileSync(join(root, "desktop_env/controllers/__init__.py"), "");
  writeFileSync(
    join(root, "desktop_env/controllers/python.py"),
    py([
      "import json, urllib.error, urllib.parse, urllib.request",
      "class PythonController:",
      "    def __init__(self, vm_ip, server_port, pkgs_prefix=None):",
      "        self.http_server = f'http://{vm_ip}:{server_port}'",
      "    def get_file(self, file_path):",
      "        data = urllib.parse.urlencode({'file_path': file_path}).encode()",
      "        try:",
      "            with urllib.request.urlopen(self.http_server + '/file', data=data, timeout=30) as r:",
      "                return r.read()",
      "        except urllib.error.HTTPError:",
      "            return None",
      "    def get_vm_platform(self):",
      "        with urllib.request.urlopen(self.http_server + '/platform', timeout=30) as r:",
      "            return r.read().decode()",
      "    def get_vm_screen_size(self):",
      "        with urllib.request.urlopen(urllib.request.Request(self.http_server + '/screen_size', data=b'', method='POST'), timeout=30) as r:",
      "            return json.loads(r.read())",
    ]),
  );
  writeFileSync(
    join(root, "desktop_env/controllers/setup.py"),
    py([
      "import urllib.request, uuid",
      "class SetupController:",
      "    def __init__(self, vm_ip, server_port, chromium_port, vlc_port, cache_dir, client_password='', screen_width=1920, screen_height=1080):",
      "        self.http_server = f'http://{vm_ip}:{server_port}'",
      "        self.cache_dir = cache_dir",
      "    def reset_cache_dir(self, cache_dir):",
      "        self.cache_dir = cache_dir",
      "    def setup(self, config, use_proxy=False):",
      "        return all(getattr(self, '_%s_setup' % step['type'])(**step['parameters']) is not False for step in config)",
      "    def _write_text_setup(self, path, text):",
      "        b = uuid.uuid4().hex",
      "        body = ('--%s\\r\\nContent-Disposition: form-data; name=\"file_path\"\\r\\n\\r\\n%s\\r\\n' % (b, path)).encode()",
      "        body += ('--%s\\r\\nContent-Disposition: form-data; name=\"file_data\"; filename=\"f\"\\r\\nContent-Type: application/octet-stream\\r\\n\\r\\n' % b).encode() + text.encode() + ('\\r\\n--%s--\\r\\n' % b).encode()",
      "        req = urllib.request.Request(self.http_server + '/setup/upload', data=body, headers={'Content-Type': 'multipart/form-data; boundary=' + b})",
      "        urllib.request.urlopen(req, timeout=30).read()",
      "    def _refuse_setup(self):",
      "        return False",
    ]),
  );
  writeFileSync(
    join(root, "desktop_env/evaluators/getters/__init__.py"),
    py([
      "import json, os",
      "def get_vm_text(env, config):",
      "    data = env.controller.get_file(config['path'])",
      "    with open(os.path.join(env.cache_dir, 'env.json'), 'w') as f:",
      "        json.dump({'vm_ip': env.vm_ip, 'server_port': env.server_port, 'chromium_port': env.chromium_port,",
      "                   'platform': env.vm_platform, 'screen': env.vm_screen_size, 'actions': env.action_history}, f)",
      "    return None if data is None else data.decode()",
      "def get_broken(env, config):",
      "    raise RuntimeError('the getter broke on purpose')",
      "def get_literal(env, config):",
      "    return {'text': config['text']}",
    ]),
  );
  writeFileSync(
    join(root, "desktop_env/desktop_env.py"),
    py([
      "from desktop_env.evaluators import getters, metrics",
      "class DesktopEnv:",
      "    def _set_evaluator_info(self, task_config):",
      "        self.evaluator = task_config['evaluator']",
      "        self.metric = getattr(metrics, self.evaluator['func'])",
      "        self.result_getter = getattr(getters, 'get_' + self.evaluator['result']['type'])",
      "        self.expected_getter = getattr(getters, 'get_' + self.evaluator['expected']['type'])",
      "    def evaluate(self):",
      "        self.setup_controller.setup(self.evaluator.get('postconfig', []), self.enable_proxy)",
      "        if self.action_history and self.action_history[-1] == 'FAIL':",
      "            return 0",
      "        return self.metric(self.result_getter(self, self.evaluator['result']), self.expected_getter(self, self.evaluator['expected']))",
    ]),
  );
  return root;
}

/** OSWorld task files whose set-up step and getter retrace lacks (the stand-in's names). */
function tasksFolder(): string {
  const d = join(dir, "tasks", "os");
  mkdirSync(d, { recursive: true });
  const task = (id: string, config: unknown[], result: unknown, text = "hello from osworld") =>
    writeFileSync(
      join(d, `${id}.json`),
      JSON.stringify({
        id,
        snapshot: "os",
        instruction: "write a greeting",
        source: "test",
        config,
        trajectory: "trajectories/",
        related_apps: ["os"],
        evaluator: { func: "same_text", result, expected: { type: "literal", text } },
      }),
    );
  task(
    "own-ok",
    [{ type: "write_text", parameters: { path: "/home/user/greeting.txt", text: "hello from osworld\n" } }],
    { type: "vm_text", path: "/home/user/greeting.txt" },
  );
  task("own-mismatch", [{ type: "write_text", parameters: { path: "/home/user/other.txt", text: "something else" } }], {
    type: "vm_text",
    path: "/home/user/other.txt",
  });
  task("own-refused", [{ type: "refuse", parameters: {} }], { type: "vm_text", path: "/home/user/greeting.txt" });
  task("own-broken", [], { type: "broken" });
  return join(dir, "tasks");
}

describe("the bridge's levels", () => {
  it("tells OSWorld's metrics from its environment code, and only the latter lifts set-up steps and getters", async () => {
    const metricsOnly = new OsworldPythonBridge({ osworldDir: standInOsworld(false) });
    expect(metricsOnly.availableSync()).toEqual({ ok: true });
    const partial = metricsOnly.availableSync("full");
    expect(partial.ok).toBe(false);
    expect(partial.reason).toMatch(
      /^OSWorld's environment, controllers and evaluators are not importable with python3 \(ModuleNotFoundError: No module named 'desktop_env\.(evaluators\.getters|controllers(\.python)?)'\); install OSWorld/,
    );
    const full = new OsworldPythonBridge({ osworldDir: standInOsworld(true) });
    expect(await full.available("full")).toEqual({ ok: true });

    const folder = tasksFolder();
    const none = osworldTaskSplit(folder);
    expect(none.tasks).toEqual([]);
    expect(none.skipped.find((s) => s.task === "own-ok")?.reason).toMatch(
      /^needs OSWorld's Python code for setup write_text, getter vm_text, getter literal, metric same_text \(set env\.osworldPath/,
    );
    const metricsSplit = osworldTaskSplit(folder, { ...metricsOnly.availableSync(), full: false });
    expect(metricsSplit.tasks).toEqual([]);
    expect(metricsSplit.skipped.find((s) => s.task === "own-ok")?.reason).toMatch(/its environment code does not/);
    const fullSplit = osworldTaskSplit(folder, { ok: true, full: true });
    expect(fullSplit.tasks.map((t) => t.id).sort()).toEqual(["own-broken", "own-mismatch", "own-ok", "own-refused"]);

    const t = (await loadOsworldTasks(folder)).tasks.find((x) => x.id === "own-ok")!;
    const programs = new Set<string>();
    expect(offlineBlockers(t, { programs, python: { metrics: true, full: false } }).join("; ")).toMatch(
      /OSWorld's Python evaluators \(getter vm_text, getter literal\); set-up step write_text/,
    );
    expect(offlineBlockers(t, { programs, python: { metrics: true, full: true } })).toEqual([]);
  });
});

const tools = systemTools("the OSWorld environment-code bridge test", X11_TOOLS);

describe.runIf(tools.run)("OSWorld's SetupController and DesktopEnv.evaluate on a retrace desktop", () => {
  let desktop: DesktopEnvironment;
  let control: OsworldControlServer;
  let tasks: OsworldTask[];
  const cacheDir = join(dir, "cache");
  beforeAll(async () => {
    tools.assert();
    chmodSync(dir, 0o755); // the desktop user must reach its session folder
    desktop = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "desk-blobs") }), baseDir: join(dir, "x11") });
    await desktop.reset(desktopTask("mousepad-append-line")!);
    control = await startOsworldControlServer({ env: desktop });
    tasks = (await loadOsworldTasks(tasksFolder())).tasks;
  }, 120_000);
  afterAll(async () => {
    await control?.close();
    await desktop?.close();
  });

  const environment = () =>
    new OsworldEnvironment({
      blobs: new BlobStore({ dir: join(dir, "env-blobs") }),
      client: new OsworldClient({ baseUrl: control.url }),
      bridge: new OsworldPythonBridge({ osworldDir: standInOsworld(true) }),
      osworldCode: "where-needed",
      bridgeDesktop: { chromiumPort: 19222 },
      evalDir: cacheDir,
      settle: { pollMs: 50, quietMs: 100, maxMs: 1000 },
    });
  const task = (id: string) => tasks.find((t) => t.id === id)!;

  it("sets a task up with OSWorld's SetupController and scores it with OSWorld's evaluation", async () => {
    const env = environment();
    await env.reset(task("own-ok"));
    // the set-up step went through the control server's /setup/upload into the desktop user's home
    expect((await new OsworldClient({ baseUrl: control.url }).file("/home/user/greeting.txt"))?.toString()).toBe(
      "hello from osworld\n",
    );
    const done = await env.evaluate({ terminal: "DONE" });
    expect(done.score).toBe(1);
    expect(done.detail).toMatch(/OSWorld's own evaluation/);
    // what OSWorld's getter read of the environment object
    const seen = JSON.parse(readFileSync(join(cacheDir, "own-ok", "env.json"), "utf8")) as Record<string, unknown>;
    expect(seen).toEqual({
      vm_ip: "127.0.0.1",
      server_port: Number(new URL(control.url).port),
      chromium_port: 19222,
      platform: "Linux",
      screen: await new OsworldClient({ baseUrl: control.url }).screenSize(),
      actions: ["DONE"],
    });
    // the agent's closing FAIL reaches OSWorld's evaluation, which scores it 0
    expect((await env.evaluate({ terminal: "FAIL" })).score).toBe(0);
    await env.close();
  }, 120_000);

  it("scores 0 on a state that does not match, and fails a refused set-up or a broken getter loudly in one line", async () => {
    const env = environment();
    await env.reset(task("own-mismatch"));
    expect((await env.evaluate({ terminal: "DONE" })).score).toBe(0);
    const refused = await env.reset(task("own-refused")).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused).toBeInstanceOf(EnvironmentError);
    expect(refused?.message).toBe(
      "task own-refused: OSWorld's SetupController reported a failed set-up of task own-refused",
    );
    await env.reset(task("own-broken"));
    const broken = await env.evaluate({ terminal: "DONE" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(broken?.message).toBe(
      "OSWorld's evaluation of task own-broken failed in Python: RuntimeError: the getter broke on purpose",
    );
    expect(existsSync(join(cacheDir, "own-broken"))).toBe(true);
    await env.close();
  }, 120_000);
});
