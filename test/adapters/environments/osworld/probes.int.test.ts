import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { loadProbeReport } from "../../../../packages/core/src/probes/report.ts";
import { createProbeVerifier } from "../../../../packages/evaluation/src/probes/verifier.ts";
import { withProbes } from "../../../../packages/evaluation/src/probes/with-probes.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import { OsworldClient } from "../../../../packages/desktops/src/osworld/client.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../packages/desktops/src/osworld/control-server.ts";
import { OsworldEnvironment } from "../../../../packages/desktops/src/osworld/environment.ts";
import { osworldAxItems, watchedPaths } from "../../../../packages/desktops/src/osworld/probe.ts";
import { parseOsworldTask, type OsworldTask } from "../../../../packages/desktops/src/osworld/tasks.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

function task(): OsworldTask {
  const t = parseOsworldTask(
    JSON.stringify({
      id: "probe-1",
      instruction: "append jam and save",
      config: [],
      evaluator: {
        func: "check_include_exclude",
        result: { type: "vm_file", path: "/home/user/notes.txt" },
        expected: { type: "rule", rules: { include: ["- jam"], exclude: [] } },
      },
    }),
    "probe-1.json",
    "os",
  );
  if (!("support" in t)) throw new Error(t.reason);
  return t;
}

describe("OSWorld probe items", () => {
  it("watch the task's vm_file result paths", () => {
    expect(watchedPaths(task())).toEqual(["/home/user/notes.txt"]);
    expect(watchedPaths(undefined)).toEqual([]);
  });

  it("digest each application of the accessibility XML, ignoring where its windows are", () => {
    const xml = (x: number, text: string) =>
      `<desktop-frame name="main"><application name="mousepad"><frame name="n" screencoord="(${x}, 0)" size="(10, 10)">${text}</frame></application><application name="gnumeric"><frame name="g"></frame></application></desktop-frame>`;
    const a = osworldAxItems(xml(0, "hello"));
    expect(Object.keys(a)).toEqual(["ax:mousepad", "ax:gnumeric"]);
    expect(osworldAxItems(xml(300, "hello"))).toEqual(a);
    expect(osworldAxItems(xml(0, "hullo"))["ax:mousepad"]).not.toBe(a["ax:mousepad"]);
    expect(osworldAxItems(xml(0, "hullo"))["ax:gnumeric"]).toBe(a["ax:gnumeric"]);
  });
});

const tools = systemTools("the OSWorld probe tests", X11_TOOLS);

describe.runIf(tools.run)("OSWorld probes over the local control server (real HTTP, X11 desktop)", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-osw-probes-"));
  let desk: DesktopEnvironment;
  let server: OsworldControlServer;
  beforeAll(async () => {
    tools.assert();
    desk = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "desk-blobs") }) });
    await desk.reset(desktopTask("mousepad-append-line")!);
    server = await startOsworldControlServer({ env: desk });
  });
  afterAll(async () => {
    await server?.close();
    await desk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads /platform, /accessibility and the watched /file, and a saved edit shows as a file difference", async () => {
    const blobs = new BlobStore({ dir: join(dir, "osw-blobs") });
    const osw = withProbes(new OsworldEnvironment({ client: new OsworldClient({ baseUrl: server.url }), blobs }), {
      blobs,
    });
    const target = await osw.reset(task());
    const report = await loadProbeReport(blobs, target.probe!);
    expect(report.env).toBe("osworld");
    expect(report.items.platform).toBe("Linux");
    expect(report.items["file:/home/user/notes.txt"]).toMatch(/^size=28 sha256=[0-9a-f]{16}$/);
    expect(Object.keys(report.items).some((k) => k.startsWith("ax:"))).toBe(true);
    for (const a of [
      { type: "HOTKEY", keys: ["ctrl", "end"] },
      { type: "TYPING", text: "- jam\n" },
      { type: "HOTKEY", keys: ["ctrl", "s"] },
    ] as const)
      await osw.step(a as never);
    const v = await createProbeVerifier({ ignore: ["ax:**"] }).verify({ target, current: await osw.observe(), blobs });
    expect(v.verdict).toBe("mismatch");
    expect(v.comparison!.differed.map((d) => d.key)).toEqual(["file:/home/user/notes.txt"]);
    expect(v.comparison!.matched).toEqual(["platform"]);
    await osw.close();
  }, 90_000);
});
