/**
 * OSWorld's control-server API on the host's own X11 desktop, endpoint by endpoint, with the
 * status codes and body shapes OSWorld's Flask server gives (desktop_env/server/main.py), sent as
 * OSWorld's client sends them (JSON, urlencoded forms, multipart uploads). The host desktop never
 * runs code: every endpoint that reads state or drives the desktop's own apps works; arbitrary
 * code is refused with an `error` key, and nothing of it runs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../packages/desktops/src/osworld/control-server.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the OSWorld API tests on the host desktop", [...X11_TOOLS, "ffmpeg", "pymod:lxml"]);

/** OSWorld's own parse of `/accessibility`: lxml with its namespaces, as its metrics read it. */
function lxmlCheck(xml: string): { roots: string; showing: number; coords: number; mousepad: number } {
  const script = String.raw`
import json, sys, lxml.etree as et
ns = {"st": "https://accessibility.ubuntu.example.org/ns/state", "cp": "https://accessibility.ubuntu.example.org/ns/component"}
root = et.fromstring(sys.stdin.read().encode())
print(json.dumps({"roots": root.tag, "showing": len(root.xpath('//*[@st:showing="true"]', namespaces=ns)), "coords": len(root.xpath('//*[@cp:screencoord and @cp:size]', namespaces=ns)), "mousepad": len(root.xpath('//application[@name="mousepad"]'))}))
`;
  return JSON.parse(execFileSync("/usr/bin/python3", ["-c", script], { input: xml }).toString());
}

describe.runIf(tools.run)("OSWorld's control API on the host X11 desktop (real HTTP on 127.0.0.1)", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-oswapi-"));
  let env: DesktopEnvironment;
  let server: OsworldControlServer;
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: "POST", body: new URLSearchParams(fields) });

  beforeAll(async () => {
    tools.assert();
    env = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "blobs") }) });
    await env.reset(desktopTask("mousepad-append-line")!);
    server = await startOsworldControlServer({ env });
  });
  afterAll(async () => {
    await server?.close();
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads state: platform as text, screen and window size, cursor as a JSON pair, terminal", async () => {
    const platform = await fetch(`${server.url}/platform`);
    expect([platform.status, await platform.text()]).toEqual([200, "Linux"]);
    expect(await (await post("/screen_size", {})).json()).toEqual({ width: 1280, height: 800 });
    const win = await (await form("/window_size", { app_class_name: "mousepad" })).json();
    expect(win.width).toBeGreaterThan(100);
    expect(win.height).toBeGreaterThan(100);
    const missing = await form("/window_size", {});
    expect([missing.status, await missing.json()]).toEqual([400, { error: "app_class_name is required" }]);
    await post("/execute", { command: ["python", "-c", "import pyautogui; pyautogui.moveTo(321, 123)"], shell: false });
    expect(await (await fetch(`${server.url}/cursor_position`)).json()).toEqual([321, 123]);
    expect(await (await fetch(`${server.url}/terminal`)).json()).toEqual({ output: null, status: "success" });
  });

  it("serves namespace-valid accessibility XML that lxml parses with OSWorld's namespaces", async () => {
    const { AT } = (await (await fetch(`${server.url}/accessibility`)).json()) as { AT: string };
    const parsed = lxmlCheck(AT);
    expect(parsed.roots).toBe("desktop-frame");
    expect(parsed.mousepad).toBe(1);
    expect(parsed.showing).toBeGreaterThan(5);
    expect(parsed.coords).toBeGreaterThan(5);
    expect(AT).toMatch(/st:enabled="true"/);
    expect(AT).toMatch(/st:visible="true"/);
  });

  it("accepts read-only Python in /execute and answers it; Python errors are 200 with returncode 1", async () => {
    const run = async (code: string) =>
      (
        await post("/execute", {
          command: ["python3", "-c", `import pyautogui; import time; pyautogui.FAILSAFE = False; ${code}`],
          shell: false,
        })
      ).json();
    expect(await run("print(pyautogui.size())")).toEqual({
      status: "success",
      output: "(1280, 800)\n",
      error: "",
      returncode: 0,
    });
    expect((await run("import platform; print(platform.system())")).output).toBe("Linux\n");
    const home = (await run("import os; print(os.path.expanduser('~'))")).output.trim();
    expect(home).toMatch(/\/home$/);
    expect(
      (await run("import os.path; print(os.path.exists('~/notes.txt'), os.path.isdir('/home/user/nope'))")).output,
    ).toBe("True False\n");
    const err = await post("/execute", { command: ["python", "-c", "print(undefined_name)"], shell: false });
    const body = await err.json();
    expect(err.status).toBe(200);
    expect(body).toMatchObject({ status: "success", returncode: 1 });
    expect(body.error).toMatch(/^Traceback[\s\S]*NameError/);
  });

  it("refuses arbitrary code with an error key, and none of it runs", async () => {
    const mark = join(dir, "pwned");
    for (const [path, body] of [
      ["/run_python", { code: `open('${mark}','w')` }],
      ["/run_bash_script", { script: `touch ${mark}` }],
      ["/execute", { command: `touch ${mark}`, shell: true }],
      [
        "/execute",
        { command: ["python", "-c", `import subprocess; subprocess.run(['touch', '${mark}'])`], shell: false },
      ],
      ["/setup/launch", { command: ["xterm"], shell: false }],
      [
        "/setup/execute_with_verification",
        { command: ["python", "-c", "print(1)"], verification: { command_success: `touch ${mark}` } },
      ],
    ] as const) {
      const r = await post(path, body);
      expect(r.status, path).toBe(501);
      const j = await r.json();
      expect(j.status, path).toBe("error");
      expect(typeof j.error, path).toBe("string");
    }
    expect(existsSync(mark)).toBe(false);
  });

  it("uploads into the home (multipart, as requests sends it), lists it, serves it back, and refuses paths outside", async () => {
    const fd = new FormData();
    fd.append("file_path", "/home/user/Desktop/report.txt");
    fd.append("file_data", new Blob([Buffer.from("quarterly numbers\n")]), "report.txt");
    const up = await fetch(`${server.url}/setup/upload`, { method: "POST", body: fd });
    expect([up.status, await up.text()]).toEqual([200, "File Uploaded: 18 bytes"]);
    const file = await form("/file", { file_path: "~/Desktop/report.txt" });
    expect([file.status, await file.text()]).toEqual([200, "quarterly numbers\n"]);
    const desktop = await (await post("/desktop_path", {})).json();
    expect(desktop.desktop_path).toMatch(/\/home\/Desktop$/);
    const tree = await (await post("/list_directory", { path: "/home/user" })).json();
    const names = tree.directory_tree.children.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(["Desktop", "notes.txt"]));
    expect(tree.directory_tree.children.find((c: { name: string }) => c.name === "Desktop").children).toEqual([
      { type: "file", name: "report.txt" },
    ]);
    expect((await post("/list_directory", {})).status).toBe(400);
    expect(await (await post("/list_directory", { path: "/home/user/notes.txt" })).json()).toEqual({
      error: "The provided path is not a directory",
    });
    expect((await form("/file", { file_path: "/etc/passwd" })).status).toBe(403);
    expect(await (await form("/file", { file_path: "~/nope.txt" })).json()).toEqual({ error: "File not found" });
    const outside = new FormData();
    outside.append("file_path", "/tmp/retrace-escape.txt");
    outside.append("file_data", new Blob([Buffer.from("x")]), "x");
    expect((await fetch(`${server.url}/setup/upload`, { method: "POST", body: outside })).status).toBe(403);
    expect(existsSync("/tmp/retrace-escape.txt")).toBe(false);
  });

  it("opens a file with the desktop's own app, activates and closes windows by name", async () => {
    const fd = new FormData();
    fd.append("file_path", "~/todo.txt");
    fd.append("file_data", new Blob([Buffer.from("buy bread\n")]), "todo.txt");
    await fetch(`${server.url}/setup/upload`, { method: "POST", body: fd });
    const opened = await post("/setup/open_file", { path: "~/todo.txt", timeout_seconds: 20 });
    expect([opened.status, await opened.text()]).toEqual([200, "File opened and window activated successfully"]);
    expect(await (await post("/setup/activate_window", { window_name: "todo.txt" })).text()).toBe(
      "Window activated successfully",
    );
    expect((await post("/setup/activate_window", { window_name: "no such window anywhere" })).status).toBe(404);
    expect((await post("/setup/activate_window", {})).status).toBe(400);
    expect(await (await post("/setup/close_window", { window_name: "todo.txt" })).text()).toBe(
      "Window closed successfully.",
    );
    expect((await post("/setup/open_file", { path: "~/missing.txt" })).status).toBe(404);
    expect(await (await post("/setup/open_file", {})).text()).toBe("Path not supplied!");
  });

  it("changes the wallpaper and serves it back; records the screen as an MP4", async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .png()
      .toBuffer();
    const fd = new FormData();
    fd.append("file_path", "~/wall.png");
    fd.append("file_data", new Blob([png]), "wall.png");
    await fetch(`${server.url}/setup/upload`, { method: "POST", body: fd });
    expect((await post("/wallpaper", {})).status).toBe(404);
    expect(await (await post("/setup/change_wallpaper", { path: "~/wall.png" })).text()).toBe(
      "Wallpaper changed successfully",
    );
    const wall = await post("/wallpaper", {});
    expect(wall.status).toBe(200);
    expect(Buffer.from(await wall.arrayBuffer()).equals(png)).toBe(true);
    expect((await post("/setup/change_wallpaper", {})).status).toBe(400);

    expect((await post("/end_recording", {})).status).toBe(400);
    expect(await (await post("/start_recording", {})).json()).toEqual({
      status: "success",
      message: "Started recording successfully.",
    });
    expect((await post("/start_recording", {})).status).toBe(400);
    await new Promise((r) => setTimeout(r, 1500));
    const mp4 = await post("/end_recording", {});
    expect(mp4.status).toBe(200);
    const bytes = Buffer.from(await mp4.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).toBe("ftyp");
    writeFileSync(join(dir, "rec.mp4"), bytes);
    const probe = execFileSync("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "stream=width,height",
      "-of",
      "csv=p=0",
      join(dir, "rec.mp4"),
    ])
      .toString()
      .trim();
    expect(probe).toBe("1280,800");
  });

  it("answers unknown endpoints with 404 and a wrong method with 405", async () => {
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/screen_size`)).status).toBe(405);
  });
});
