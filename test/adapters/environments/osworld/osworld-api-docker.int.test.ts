/**
 * OSWorld without a VM, on a container desktop (podman through dockerode): the container is the
 * sandbox, so OSWorld's full control API is served, code included, with OSWorld's status codes and
 * body shapes; and a seeded sample of 10 shared OSWorld tasks that need no internet, account or
 * proxy runs its own set-up and then its evaluator on the resulting state (a score, never a crash).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { runtimeSettings } from "../../../../packages/core/src/settings.ts";
import { DEFAULT_DESKTOP_IMAGE } from "../../../../packages/desktops/src/docker/container-backend.ts";
import { createDockerDesktop } from "../../../../packages/desktops/src/docker/create.ts";
import { createDockerClient, removeManagedContainers } from "../../../../packages/desktops/src/docker/engine.ts";
import { CHROME_PREFERENCES, chromeGetter } from "../../../../packages/desktops/src/osworld/chrome-getters.ts";
import { OsworldClient } from "../../../../packages/desktops/src/osworld/client.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../packages/desktops/src/osworld/control-server.ts";
import {
  evaluateOsworldNative,
  runOsworldSetup,
  setupProblem,
} from "../../../../packages/desktops/src/osworld/runner.ts";
import { loadOsworldTasks } from "../../../../packages/desktops/src/osworld/tasks.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { checkOsworldTasks } from "../../../../experiments/runtime/osworld-check.ts";
import { DEFAULT_OSWORLD_TASKS } from "../../../../experiments/runtime/osworld.ts";

const dockerHost = runtimeSettings().dockerHost;
const docker = createDockerClient(dockerHost);
const engineUp = await docker.ping().then(
  () => true,
  () => false,
);
const imageThere =
  engineUp &&
  (await docker
    .getImage(DEFAULT_DESKTOP_IMAGE)
    .inspect()
    .then(
      () => true,
      () => false,
    ));
const run = imageThere || runtimeSettings().ci;

describe.runIf(run)("OSWorld's control API and OSWorld tasks on a container desktop", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-oswdocker-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const runId = `osw-${process.pid}`;
  const desktop = () => createDockerDesktop({ blobs, docker, runId, settle: { quietMs: 300, maxMs: 5000 } });
  let env: DesktopEnvironment;
  let server: OsworldControlServer;
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    if (!imageThere)
      throw new Error(
        `no Docker engine at DOCKER_HOST=${dockerHost ?? "(default)"} or no ${DEFAULT_DESKTOP_IMAGE} image: run \`. .ci/podman-setup.sh\``,
      );
    env = desktop();
    await env.resetBlank("osworld-api");
    server = await startOsworldControlServer({ env });
  });
  afterAll(async () => {
    await server?.close();
    await env?.close();
    await removeManagedContainers(docker, runId);
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs code inside the container with OSWorld's reply shapes: /execute, /run_python, /run_bash_script", async () => {
    expect(await (await post("/execute", { command: "echo $HOME; id -un", shell: true })).json()).toEqual({
      status: "success",
      output: "/home/cua\ncua\n",
      error: "",
      returncode: 0,
    });
    expect(
      await (await post("/execute", { command: ["ls", "/home/user/Desktop"], shell: false })).json(),
    ).toMatchObject({ status: "success", returncode: 0 });
    expect(await (await post("/execute", { command: "exit 3", shell: true })).json()).toMatchObject({
      status: "success",
      returncode: 3,
    });
    const py = await (
      await post("/run_python", { code: "import platform, os\nprint(platform.system(), os.path.expanduser('~'))" })
    ).json();
    expect(py).toEqual({
      status: "success",
      message: "Linux /home/cua\n",
      need_more: false,
      output: "Linux /home/cua\n",
      error: "",
      return_code: 0,
    });
    const pyErr = await (await post("/run_python", { code: "raise ValueError('boom')" })).json();
    expect(pyErr).toMatchObject({ status: "error", need_more: false, return_code: 1 });
    expect(pyErr.error).toMatch(/Traceback[\s\S]*ValueError: boom/);
    expect((await post("/run_python", {})).status).toBe(400);
    const bash = await (
      await post("/run_bash_script", { script: "pwd; echo oops >&2; exit 2", working_dir: "~/Desktop" })
    ).json();
    expect(bash).toEqual({ status: "error", output: "/home/cua/Desktop\noops\n", error: "", returncode: 2 });
    expect(await (await post("/run_bash_script", { script: "true", working_dir: "/nope" })).json()).toMatchObject({
      status: "error",
      returncode: -1,
    });
    // A Python error through /execute: 200 with returncode 1 and the traceback, as OSWorld answers.
    const err = await post("/execute", { command: ["python3", "-c", "import json; json.loads('{')"], shell: false });
    const body = await err.json();
    expect([err.status, body.returncode]).toEqual([200, 1]);
    expect(body.error).toMatch(/JSONDecodeError/);
  });

  it("launches any installed program, maps what is missing to an error, and reads files anywhere in the sandbox", async () => {
    expect(await (await post("/setup/launch", { command: ["sleep", "300"] })).text()).toBe(
      "sleep 300 launched successfully",
    );
    expect((await (await post("/execute", { command: ["pgrep", "-x", "sleep"] })).json()).output).toMatch(/^\d+/);
    const chrome = await post("/setup/launch", { command: ["google-chrome", "--remote-debugging-port=1337"] });
    expect(chrome.status).toBe(500);
    expect((await chrome.json()).error).toMatch(/chromium is not installed in the desktop image/);
    const hostname = await fetch(`${server.url}/file`, {
      method: "POST",
      body: new URLSearchParams({ file_path: "/etc/hostname" }),
    });
    expect(hostname.status).toBe(200);
    expect(
      await (
        await post("/setup/execute_with_verification", {
          command: "touch ~/made.txt",
          shell: true,
          verification: { command_success: "test -f ~/made.txt" },
          max_wait_time: 5,
        })
      ).json(),
    ).toMatchObject({ status: "success", verification: "passed" });
    const failed = await post("/setup/execute_with_verification", {
      command: "true",
      shell: true,
      verification: { command_success: "test -f ~/never.txt" },
      max_wait_time: 1,
      check_interval: 0.2,
    });
    expect([failed.status, (await failed.json()).status]).toEqual([500, "verification_failed"]);
  });

  it("forwards the container's port 9222 (OSWorld's chromium_port) to the host without a container network", async () => {
    expect(server.chromiumUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Nothing listens on 9222 yet: the connection closes without an answer.
    await expect(fetch(`${server.chromiumUrl}/`)).rejects.toThrow();
    await post("/execute", { command: "mkdir -p ~/served && echo forwarded > ~/served/probe.txt", shell: true });
    expect(
      await (
        await post("/setup/launch", {
          command: ["python3", "-m", "http.server", "9222", "--bind", "127.0.0.1", "--directory", "/home/cua/served"],
        })
      ).text(),
    ).toMatch(/launched successfully/);
    let body = "";
    for (let i = 0; i < 40 && body !== "forwarded\n"; i++) {
      body = await fetch(`${server.chromiumUrl}/probe.txt`).then(
        (r) => r.text(),
        () => "",
      );
      if (body !== "forwarded\n") await new Promise((r) => setTimeout(r, 250));
    }
    expect(body).toBe("forwarded\n");
    // Several connections at once, each its own relay; a large body arrives whole.
    await post("/execute", { command: "head -c 3000000 /dev/urandom | base64 -w0 > ~/served/big.txt", shell: true });
    const [big, ...small] = await Promise.all([
      fetch(`${server.chromiumUrl}/big.txt`).then((r) => r.text()),
      ...[1, 2, 3].map(() => fetch(`${server.chromiumUrl}/probe.txt`).then((r) => r.text())),
    ]);
    expect(big.length).toBe(4_000_000);
    expect(small).toEqual(["forwarded\n", "forwarded\n", "forwarded\n"]);
    await post("/execute", { command: ["pkill", "-f", "http.server"] });
  });

  it("reads Chrome's profile preferences like OSWorld's Chrome getters, with their defaults", async () => {
    const client = new OsworldClient({ baseUrl: server.url });
    // No profile yet: OSWorld's defaults.
    expect(await chromeGetter(client, "enable_do_not_track")).toBe("false");
    expect(await chromeGetter(client, "default_search_engine")).toBe("Google");
    expect(await chromeGetter(client, "profile_name")).toBeNull();
    const prefs = {
      enable_do_not_track: true,
      default_search_provider_data: { template_url_data: { short_name: "Bing" } },
      profile: { name: "Thomas" },
    };
    expect((await client.upload(CHROME_PREFERENCES, Buffer.from(JSON.stringify(prefs)))).status).toBe("success");
    expect(await chromeGetter(client, "enable_do_not_track")).toBe("true");
    expect(await chromeGetter(client, "default_search_engine")).toBe("Bing");
    expect(await chromeGetter(client, "profile_name")).toBe("Thomas");
    // Without a Chromium endpoint the CDP getter says what is missing.
    await expect(chromeGetter(client, "open_tabs_info")).rejects.toThrow(/no Chromium debugging endpoint/);
  });

  it("serves the accessibility tree as namespace-valid XML and every read endpoint", async () => {
    await post("/setup/launch", { command: ["mousepad"] });
    await new Promise((r) => setTimeout(r, 2000));
    const { AT } = (await (await fetch(`${server.url}/accessibility`)).json()) as { AT: string };
    const roots = execFileSync(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, lxml.etree as et; r = et.fromstring(sys.stdin.read().encode()); print(r.tag, len(r.xpath('//*[@st:showing=\"true\"]', namespaces={'st': 'https://accessibility.ubuntu.example.org/ns/state'})))",
      ],
      { input: AT },
    )
      .toString()
      .trim()
      .split(" ");
    expect(roots[0]).toBe("desktop-frame");
    expect(Number(roots[1])).toBeGreaterThan(0);
    expect(await (await fetch(`${server.url}/terminal`)).json()).toEqual({ output: null, status: "success" });
    expect(await (await post("/desktop_path", {})).json()).toEqual({ desktop_path: "/home/cua/Desktop" });
    expect(await (await post("/screen_size", {})).json()).toEqual({ width: 1280, height: 800 });
    expect(Array.isArray(await (await fetch(`${server.url}/cursor_position`)).json())).toBe(true);
    expect((await (await post("/list_directory", { path: "~" })).json()).directory_tree.type).toBe("directory");
  });

  it("scores two offline OSWorld tasks 0 before and 1 after their solution is carried out in the sandbox", async () => {
    const { tasks } = await loadOsworldTasks(DEFAULT_OSWORLD_TASKS);
    const solutions: Record<string, string> = {
      "e0df059f-28a6-4169-924f-b9623e7184cc": "mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2",
      "a4d98375-215b-4a4d-aee9-3d4370fccc41": "gsettings set org.gnome.desktop.screensaver lock-enabled true",
    };
    for (const [id, solution] of Object.entries(solutions)) {
      const task = tasks.find((t) => t.id === id)!;
      const d = desktop();
      await d.resetBlank(id);
      const s = await startOsworldControlServer({ env: d });
      try {
        const client = new OsworldClient({ baseUrl: s.url, retryIntervalMs: 100 });
        const setup = await runOsworldSetup(client, task.setup, await client.screenSize());
        expect(setupProblem(id, setup), id).toBeUndefined();
        expect((await evaluateOsworldNative(client, task)).score, id).toBe(0);
        expect((await client.execute(solution, true)).returncode, id).toBe(0);
        expect((await evaluateOsworldNative(client, task)).score, id).toBe(1);
      } finally {
        await s.close();
        await d.close();
      }
    }
  });

  it("runs a seeded sample of 10 offline shared tasks: each set-up runs and each is scored 0 or 1", async () => {
    const report = await checkOsworldTasks({ dir: DEFAULT_OSWORLD_TASKS, sample: 10, seed: 1, desktop });
    expect(report.tasks).toBe(246);
    expect(report.offline).toBeGreaterThanOrEqual(10);
    expect(report.checked).toHaveLength(10);
    for (const c of report.checked) {
      expect(c.outcome, `${c.id}: ${c.detail}`).toBe("scored");
      expect([0, 1]).toContain(c.score);
    }
  });
});
