/**
 * OSWorld's apps on the opt-in container image (`retrace-desktop-apps:1`, experiments/docker/apps):
 * `google-chrome` with OSWorld's `--remote-debugging-port=1337` and the tasks' socat 9222 -> 1337
 * give a CDP endpoint the host reaches (the container has no network: exec + socat), so a CDP
 * client drives Chromium and the native Chrome getters read it; a Chrome task scores 0 before and 1
 * after its solution; every task offline only with the apps image runs its set-up and evaluator.
 *
 * The image takes minutes and ~2 GB to build, so CI does not build it (docs/desktops.md): without
 * it this file is skipped, saying so. Build it with `RETRACE_DESKTOP_APPS=1 experiments/docker/build-image.sh`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { runtimeSettings } from "../../../../packages/core/src/settings.ts";
import { createDockerDesktop } from "../../../../packages/desktops/src/docker/create.ts";
import { createDockerClient, removeManagedContainers } from "../../../../packages/desktops/src/docker/engine.ts";
import {
  APPS_DESKTOP_IMAGE,
  APPS_IMAGE_PROGRAMS,
  DESKTOP_IMAGE_PROGRAMS,
} from "../../../../packages/desktops/src/docker/image-programs.ts";
import { openTabs } from "../../../../packages/desktops/src/osworld/chrome-getters.ts";
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
import { loadOsworldTasks, offlineBlockers } from "../../../../packages/desktops/src/osworld/tasks.ts";
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
    .getImage(APPS_DESKTOP_IMAGE)
    .inspect()
    .then(
      () => true,
      () => false,
    ));
if (!imageThere) {
  process.stdout.write(
    `osworld-apps-docker: skipped, ${engineUp ? `no ${APPS_DESKTOP_IMAGE} image` : `no Docker engine at DOCKER_HOST=${dockerHost ?? "(default)"}`} (the opt-in apps image is not built in CI: minutes and ~2 GB; build it with RETRACE_DESKTOP_APPS=1 experiments/docker/build-image.sh)\n`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(imageThere)("OSWorld's apps on the apps container image", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-oswapps-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const runId = `oswapps-${process.pid}`;
  const desktop = () =>
    createDockerDesktop({ blobs, docker, runId, image: APPS_DESKTOP_IMAGE, settle: { quietMs: 300, maxMs: 5000 } });
  let env: DesktopEnvironment;
  let server: OsworldControlServer;
  let client: OsworldClient;

  beforeAll(async () => {
    env = desktop();
    await env.resetBlank("osworld-apps");
    server = await startOsworldControlServer({ env });
    client = new OsworldClient({
      baseUrl: server.url,
      chromiumUrl: server.chromiumUrl,
      retryIntervalMs: 100,
      timeoutMs: 120_000,
    });
  });
  afterAll(async () => {
    await server?.close();
    await env?.close();
    await removeManagedContainers(docker, runId);
    rmSync(dir, { recursive: true, force: true });
  });

  it("launches google-chrome as Chromium with its debugging port reachable from the host over CDP", async () => {
    expect(server.chromiumUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await client.setup("launch", { command: ["google-chrome", "--remote-debugging-port=1337"] })).status).toBe(
      "success",
    );
    expect(
      (await client.setup("launch", { command: ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"] })).status,
    ).toBe("success");
    let version: { Browser?: string; webSocketDebuggerUrl?: string } = {};
    for (let i = 0; i < 60 && !version.Browser; i++) {
      version = await fetch(`${server.chromiumUrl}/json/version`).then(
        (r) => r.json() as Promise<typeof version>,
        () => ({}),
      );
      if (!version.Browser) await sleep(500);
    }
    expect(version.Browser).toMatch(/^(Headless)?Chrome\//);
    // The tasks' `pkill chrome` must find it: the browser process is named chrome.
    expect((await client.execute(["pgrep", "-x", "chrome"])).output).toMatch(/^\d+/);
    // A CDP client (as OSWorld's getters use playwright's connect_over_cdp) drives it through the forward.
    const browser = await chromium.connectOverCDP(server.chromiumUrl!);
    try {
      const page = await browser.contexts()[0].newPage();
      await page.goto("data:text/html,<title>retrace tab</title><p>hello</p>");
      expect(await page.title()).toBe("retrace tab");
    } finally {
      await browser.close();
    }
    const tabs = await openTabs(client);
    expect(tabs).toContainEqual({ title: "retrace tab", url: "data:text/html,<title>retrace tab</title><p>hello</p>" });
  }, 120_000);

  it("scores the Do-Not-Track Chrome task 0 after its set-up and 1 once the profile enables it", async () => {
    const { tasks } = await loadOsworldTasks(DEFAULT_OSWORLD_TASKS);
    const task = tasks.find((t) => t.id === "030eeff7-b492-4218-b312-701ec99ee0cc")!;
    expect(offlineBlockers(task, { programs: DESKTOP_IMAGE_PROGRAMS })).toContain(
      "a program the desktop image lacks: google-chrome",
    );
    expect(offlineBlockers(task, { programs: APPS_IMAGE_PROGRAMS })).toEqual([]);
    const d = desktop();
    await d.resetBlank(task.id);
    const s = await startOsworldControlServer({ env: d });
    try {
      const c = new OsworldClient({
        baseUrl: s.url,
        chromiumUrl: s.chromiumUrl,
        retryIntervalMs: 100,
        timeoutMs: 120_000,
      });
      const screen = await c.screenSize();
      expect(setupProblem(task.id, await runOsworldSetup(c, task.setup, screen))).toBeUndefined();
      const post = task.evaluator.postconfig as typeof task.setup;
      expect(setupProblem(task.id, await runOsworldSetup(c, post, screen))).toBeUndefined();
      expect((await evaluateOsworldNative(c, task)).score).toBe(0);
      // The solution, as Chrome's settings page stores it: quit Chrome, set the preference, start it again.
      await c.execute(["pkill", "chrome"]);
      await sleep(2000);
      const set = await c.runPython(
        "import json, os\np = os.path.expanduser('~/.config/google-chrome/Default/Preferences')\nd = json.load(open(p))\nd['enable_do_not_track'] = True\njson.dump(d, open(p, 'w'))",
      );
      expect(set.status).toBe("success");
      expect(setupProblem(task.id, await runOsworldSetup(c, post, screen))).toBeUndefined();
      expect((await evaluateOsworldNative(c, task)).score).toBe(1);
    } finally {
      await s.close();
      await d.close();
    }
  }, 180_000);

  it("runs every task that is offline only with the apps image: each set-up runs and each is scored 0 or 1", async () => {
    const { tasks } = await loadOsworldTasks(DEFAULT_OSWORLD_TASKS);
    const appsOnly = tasks
      .filter(
        (t) =>
          offlineBlockers(t, { programs: DESKTOP_IMAGE_PROGRAMS }).length > 0 &&
          offlineBlockers(t, { programs: APPS_IMAGE_PROGRAMS }).length === 0,
      )
      .map((t) => t.id);
    expect(appsOnly.length).toBeGreaterThanOrEqual(4);
    const report = await checkOsworldTasks({
      dir: DEFAULT_OSWORLD_TASKS,
      desktop,
      programs: APPS_IMAGE_PROGRAMS,
      image: APPS_DESKTOP_IMAGE,
      ids: appsOnly,
    });
    expect(report.checked.map((c) => c.id).sort()).toEqual([...appsOnly].sort());
    for (const c of report.checked) {
      expect(c.outcome, `${c.id}: ${c.detail}`).toBe("scored");
      expect([0, 1]).toContain(c.score);
    }
  }, 600_000);
});
