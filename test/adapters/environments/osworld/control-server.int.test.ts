import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import { OsworldClient } from "../../../../packages/desktops/src/osworld/client.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../packages/desktops/src/osworld/control-server.ts";
import { evaluateOsworldNative, runOsworldSetup } from "../../../../packages/desktops/src/osworld/runner.ts";
import { parseOsworldTask } from "../../../../packages/desktops/src/osworld/tasks.ts";
import { OsworldEnvironment } from "../../../../packages/desktops/src/osworld/environment.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the OSWorld control-server tests", X11_TOOLS);

describe.runIf(tools.run)(
  "OSWorld client against the local control server (X11 desktop, real HTTP on 127.0.0.1)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-osw-"));
    let env: DesktopEnvironment;
    let server: OsworldControlServer;
    let client: OsworldClient;

    beforeAll(async () => {
      tools.assert();
      env = createX11Desktop({ blobs: new BlobStore({ dir: join(dir, "blobs") }) });
      await env.reset(desktopTask("mousepad-append-line")!);
      server = await startOsworldControlServer({ env });
      client = new OsworldClient({ baseUrl: server.url, retryIntervalMs: 50 });
    });
    afterAll(async () => {
      await server?.close();
      await env?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("serves a PNG screenshot of the desktop's size, and platform and screen size", async () => {
      const png = await client.screenshot();
      expect(png).toBeDefined();
      const meta = await sharp(png!).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 1280, 800]);
      expect(await client.platform()).toBe("Linux");
      expect(await client.screenSize()).toEqual({ width: 1280, height: 800 });
    });

    it("executes pyautogui code through /execute and the saved file comes back through /file", async () => {
      const r = await client.executePython(
        "pyautogui.hotkey('ctrl', 'end'); pyautogui.write('- tea\\n'); pyautogui.hotkey('ctrl', 's')",
      );
      expect(r).toMatchObject({ status: "success", returncode: 0 });
      const file = await client.file("/home/user/notes.txt");
      expect(file?.toString()).toBe("Shopping list\n- milk\n- eggs\n- tea\n");
      expect(await client.file("/etc/passwd")).toBeUndefined();
    });

    it("refuses code that is not pyautogui and never runs it", async () => {
      const r = await client.executePython("import os; os.system('touch /tmp/pwned-by-retrace-test')");
      expect(r.status).toBe("error");
      expect(r.error).toMatch(/unsafe|os/);
      const shell = await client.execute("touch /tmp/pwned", true);
      expect(shell.status).toBe("error");
      expect(await client.runPython("print(1)")).toMatchObject({
        status: "error",
        message: expect.stringContaining("never runs arbitrary code"),
      });
      expect(await client.runBashScript("echo hi")).toMatchObject({ status: "error" });
      expect(await client.setup("download_file", {})).toMatchObject({
        status: "error",
        message: "Path or URL not supplied!",
      });
    });

    it("binds 127.0.0.1 by default: unreachable on the host's other addresses", async () => {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
      if (external) {
        const reached = await fetch(`http://${external}:${server.port}/platform`, {
          signal: AbortSignal.timeout(3000),
        }).then(
          () => true,
          () => false,
        );
        expect(reached).toBe(false);
      }
      expect(await fetch(`${server.url}/platform`).then((r) => r.ok)).toBe(true);
    });

    it("refuses /execute payloads that are not parsed pyautogui, and none of them runs", async () => {
      const mark = join(dir, "pwned");
      const payloads = [
        `__import__('os').system('touch ${mark}')`,
        `exec("open('${mark}','w')")`,
        `pyautogui.click(10, 10); import subprocess; subprocess.run(['touch', '${mark}'])`,
        `open('${mark}', 'w').write('x')`,
        `getattr(__builtins__, 'eval')("1")`,
      ];
      for (const code of payloads) {
        const r = await client.executePython(code);
        expect(r.status, code).toBe("error");
        expect(r.returncode, code).not.toBe(0);
      }
      for (const command of [["bash", "-c", `touch ${mark}`], ["python", "-c", "print(1)", "extra"], ["sh"]]) {
        const r = await fetch(`${server.url}/execute`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ command, shell: false }),
        });
        expect(r.status, command.join(" ")).toBe(501);
      }
      const notJson = await fetch(`${server.url}/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{ nope",
      });
      expect(notJson.status).toBeGreaterThanOrEqual(400);
      expect(existsSync(mark)).toBe(false);
    });

    it("returns the accessibility tree as OSWorld-style XML", async () => {
      const at = await client.accessibilityTree();
      expect(at).toContain("mousepad");
      expect(at).toMatch(/<application name="mousepad"/);
    });

    it("runs OSWorld setup steps it supports and lists the others", async () => {
      const out = await runOsworldSetup(
        client,
        [
          {
            type: "execute",
            parameters: {
              command: [
                "python",
                "-c",
                "import pyautogui; import time; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}); time.sleep(0.5);",
              ],
            },
          },
          { type: "download", parameters: { files: [] } },
          { type: "chrome_open_tabs", parameters: { urls_to_open: ["https://example.org"] } },
          { type: "activate_window", parameters: { window_name: "no such window anywhere" } },
          { type: "sleep", parameters: { seconds: 0.1 } },
        ],
        { width: 1280, height: 800 },
      );
      expect(out).toEqual({
        ran: ["execute", "sleep"],
        unsupported: ["chrome_open_tabs"],
        failed: [
          { type: "download", message: "a download step without files" },
          { type: "activate_window", message: "Window no such window anywhere not found" },
        ],
      });
    });

    it("evaluates an OSWorld task natively over the control server's /file", async () => {
      const task = parseOsworldTask(
        JSON.stringify({
          id: "local-1",
          instruction: "add tea",
          config: [],
          evaluator: {
            func: "check_include_exclude",
            result: { type: "vm_file", path: "/home/user/notes.txt" },
            expected: { type: "rule", rules: { include: ["- tea"], exclude: ["- coffee"] } },
          },
        }),
        "local-1.json",
        "os",
      );
      if (!("support" in task)) throw new Error(task.reason);
      expect(task.support.fullyNative).toBe(true);
      expect(await evaluateOsworldNative(client, task)).toMatchObject({ score: 1 });
      const other = {
        ...task,
        evaluator: { ...task.evaluator, expected: { type: "rule", rules: { include: ["- coffee"] } } },
      };
      expect(await evaluateOsworldNative(client, other)).toMatchObject({ score: 0 });
    });

    it("drives an OSWorld task end to end as a retrace Environment over the control server", async () => {
      const task = parseOsworldTask(
        JSON.stringify({
          id: "local-2",
          instruction: "append jam and save",
          config: [
            {
              type: "execute",
              parameters: {
                command: [
                  "python",
                  "-c",
                  "import pyautogui; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF})",
                ],
              },
            },
          ],
          evaluator: {
            func: "check_include_exclude",
            result: { type: "vm_file", path: "/home/user/notes.txt" },
            expected: { type: "rule", rules: { include: ["- jam"], exclude: [] } },
          },
        }),
        "local-2.json",
        "os",
      );
      if (!("support" in task)) throw new Error(task.reason);
      const osw = new OsworldEnvironment({ client, blobs: new BlobStore({ dir: join(dir, "osw-blobs") }) });
      const first = await osw.reset(task);
      expect([first.width, first.height]).toEqual([1280, 800]);
      expect(osw.lastSetup).toEqual({ ran: ["execute"], unsupported: [], failed: [] });
      expect((await osw.evaluate()).score).toBe(0);
      for (const a of [
        { type: "HOTKEY", keys: ["ctrl", "end"] },
        { type: "TYPING", text: "- jam\n" },
        { type: "HOTKEY", keys: ["ctrl", "s"] },
      ] as const) {
        const out = await osw.step(a as never);
        expect(out.info.noop).toBeUndefined();
      }
      expect(await osw.evaluate()).toMatchObject({ score: 1 });
      // A set-up step that cannot be done fails the reset loudly instead of being skipped.
      const broken = {
        ...task,
        setup: [...(task.setup as object[]), { type: "googledrive", parameters: {} }],
      } as typeof task;
      await expect(osw.reset(broken)).rejects.toThrow(
        /set-up not done \(step "googledrive" cannot run on this desktop\)/,
      );
      await osw.close();
    });

    it("retries a failing screenshot endpoint OSWorld's way and gives up with undefined", async () => {
      const dead = new OsworldClient({ baseUrl: `${server.url}/nope`, retryTimes: 3, retryIntervalMs: 20 });
      const t = Date.now();
      expect(await dead.screenshot()).toBeUndefined();
      expect(Date.now() - t).toBeGreaterThanOrEqual(40);
    });
  },
);
