/**
 * The OSWorld control server on the host's own X11 desktop is a trust boundary (issue 41): it runs
 * as root, and docs/desktops.md promises "the host desktop never runs code; files only inside the
 * desktop user's home; launch only its own apps". Each guarantee is tried here as a hostile caller
 * would, against the real server on 127.0.0.1 and a real Xvfb desktop whose user (`cua`, created
 * as .ci/podman-setup.sh does) plants links, FIFOs and libraries in its own home.
 *
 * This file: every refusal is a 4xx with one line, every success is true.
 * Shared setup: helpers/trust-boundary.ts.
 */
import { describe, expect, it } from "vitest";
import { server, post, tools, asRoot, trustBoundaryHooks } from "./helpers/trust-boundary.ts";

describe.runIf(tools.run && asRoot)(
  "the host control server as a trust boundary (root server, real Xvfb desktop, HTTP on 127.0.0.1)",
  () => {
    trustBoundaryHooks();

    describe("every refusal is a 4xx with one line, every success is true", () => {
      it("unsupported Python is a Python error, not success with a stand-in value", async () => {
        const r = await (
          await post("/execute", { command: ["python", "-c", "import os; print(os.environ)"], shell: false })
        ).json();
        expect(r.returncode).toBe(1);
        expect(r.output).toBe("");
        expect(r.error).toMatch(/^Traceback[\s\S]*NotImplementedError: os\.environ is not available/);
      });

      it("moveTo(99999, 99999) clamps to the screen's last pixel, as pyautogui does", async () => {
        const r = await (
          await post("/execute", {
            command: ["python", "-c", "import pyautogui; pyautogui.moveTo(99999, 99999)"],
            shell: false,
          })
        ).json();
        expect(r.returncode).toBe(0);
        expect(await (await fetch(`${server.url}/cursor_position`)).json()).toEqual([1279, 799]);
        await post("/execute", {
          command: ["python", "-c", "import pyautogui; pyautogui.moveTo(-50, 400)"],
          shell: false,
        });
        expect(await (await fetch(`${server.url}/cursor_position`)).json()).toEqual([0, 400]);
      });

      it("304 malformed bodies get a 4xx (or OSWorld's 501 refusal) with a one-line reason, never a 500", async () => {
        const endpoints = [
          "/execute",
          "/setup/execute",
          "/execute_with_verification",
          "/setup/execute_with_verification",
          "/setup/launch",
          "/list_directory",
          "/file",
          "/setup/upload",
          "/setup/download_file",
          "/setup/open_file",
          "/setup/activate_window",
          "/setup/close_window",
          "/setup/change_wallpaper",
          "/window_size",
          "/run_python",
          "/run_bash_script",
        ];
        const fields = [
          "command",
          "path",
          "file_path",
          "url",
          "window_name",
          "app_class_name",
          "verification",
          "max_wait_time",
          "timeout_seconds",
          "code",
          "script",
        ];
        const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
        const nastyValues: unknown[] = [{ toString: 1 }, { valueOf: {} }, [[[[["x"]]]]], true, { a: { b: { c: {} } } }];
        const bodies: string[] = [
          "{",
          "not json",
          "[]",
          '"a string"',
          "null",
          "42",
          deep(5000),
          `{"command": ${deep(100_000)}}`,
          '{"command": ["python", "-c", ' + deep(3000) + "]}",
          "\u0000\u0001",
          ...fields.flatMap((f) =>
            nastyValues.map((v) =>
              JSON.stringify({ [f]: v, ...(f !== "command" ? { command: ["python", "-c", "print(1)"] } : {}) }),
            ),
          ),
        ];
        // every endpoint gets 19 of the bodies (304 = 16 x 19), a different spread for each (7 is prime to the 65
        // bodies)
        const cases = Array.from(
          { length: 304 },
          (_, i) => [endpoints[i % endpoints.length], bodies[(i * 7) % bodies.length]] as const,
        );
        expect(new Set(cases.map(([e]) => e)).size).toBe(endpoints.length);
        expect(cases.length).toBe(304);
        const bad: string[] = [];
        for (const [path, body] of cases) {
          const r = await fetch(`${server.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          const text = await r.text();
          const ok = (r.status >= 400 && r.status < 500) || r.status === 501 || r.status === 200;
          if (
            !ok ||
            /Maximum call stack|Cannot convert|TypeError|is not a function|undefined/.test(text) ||
            text.trim().includes("\n")
          )
            bad.push(`${path} ${body.slice(0, 60)} -> ${r.status} ${text.slice(0, 120)}`);
        }
        expect(bad).toEqual([]);
      }, 120_000);
    });
  },
);
