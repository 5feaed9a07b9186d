/**
 * The OSWorld control server on the host's own X11 desktop is a trust boundary (issue 41): it runs
 * as root, and docs/desktops.md promises "the host desktop never runs code; files only inside the
 * desktop user's home; launch only its own apps". Each guarantee is tried here as a hostile caller
 * would, against the real server on 127.0.0.1 and a real Xvfb desktop whose user (`cua`, created
 * as .ci/podman-setup.sh does) plants links, FIFOs and libraries in its own home.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { connect } from "node:net";
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

const tools = systemTools("the host control server's trust-boundary tests", [...X11_TOOLS, "mkfifo", "truncate"]);
const asRoot = process.getuid?.() === 0;
const hasGcc = (() => {
  try {
    execFileSync("gcc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(tools.run && asRoot)(
  "the host control server as a trust boundary (root server, real Xvfb desktop, HTTP on 127.0.0.1)",
  () => {
    // outside the home, owned by root: what an escape would reach
    const outside = mkdtempSync("/tmp/retrace-trust-");
    const secret = join(outside, "secret.txt");
    const victim = join(outside, "victim.txt");
    const outsideDir = join(outside, "private");
    const marker = join(outside, "marks", "module-ran");
    let env: DesktopEnvironment;
    let server: OsworldControlServer;
    let home: string;
    let cua: { uid: number; gid: number };
    let files: Server;
    let filesUrl: string;

    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${server.url}${path}`, { method: "POST", body: new URLSearchParams(fields) });
    const upload = (path: string, data: Buffer | string, base = server.url) => {
      const fd = new FormData();
      fd.append("file_path", path);
      fd.append("file_data", new Blob([Buffer.from(data)]), path.split("/").pop() ?? "f");
      return fetch(`${base}/setup/upload`, { method: "POST", body: fd });
    };
    /** What the desktop user could do itself: a link in its own home, owned by it. */
    const plantLink = (rel: string, target: string) => {
      const p = join(home, rel);
      rmSync(p, { force: true, recursive: true });
      symlinkSync(target, p);
      lchownSync(p, cua.uid, cua.gid);
    };

    beforeAll(async () => {
      tools.assert();
      cua = {
        uid: Number(execFileSync("id", ["-u", "cua"]).toString()),
        gid: Number(execFileSync("id", ["-g", "cua"]).toString()),
      };
      writeFileSync(secret, "root-only secret\n", { mode: 0o600 });
      writeFileSync(victim, "root-owned original\n", { mode: 0o644 });
      mkdirSync(outsideDir);
      writeFileSync(join(outsideDir, "outside-only.txt"), "x");
      mkdirSync(join(outside, "marks"), { mode: 0o777 });
      chmodSync(join(outside, "marks"), 0o777);
      chmodSync(outside, 0o755);
      env = createX11Desktop({ blobs: new BlobStore({ dir: join(outside, "blobs") }) });
      await env.reset(desktopTask("mousepad-append-line")!);
      // The test's file server is on 127.0.0.1: loopback downloads are opted into (refused by default,
      // download-guard.int.test.ts).
      server = await startOsworldControlServer({ env, downloads: { allowLoopback: true } });
      home = env.desktop.homeDir;
      files = createServer((req, res) => res.end("downloaded bytes\n"));
      await new Promise<void>((r) => files.listen(0, "127.0.0.1", () => r()));
      filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/f.txt`;
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await env?.close();
      await new Promise((r) => (files ? files.close(r) : r(undefined)));
      rmSync(outside, { recursive: true, force: true });
    });

    describe("files: inside the home, as the desktop user, never through a link", () => {
      it("/file refuses a link to a root-only file and never serves its bytes", async () => {
        plantLink("notes-link.txt", secret);
        const r = await form("/file", { file_path: "~/notes-link.txt" });
        const body = await r.text();
        expect(r.status).toBe(403);
        expect(body).toMatch(/symbolic link/);
        expect(body).not.toContain("root-only secret");
        // a link in a folder on the way is refused the same
        plantLink("docs", outside);
        const via = await form("/file", { file_path: "~/docs/secret.txt" });
        expect(via.status).toBe(403);
        expect(await via.text()).not.toContain("root-only secret");
      });

      it("/setup/upload through a link leaves the root-owned file outside as it was", async () => {
        plantLink("report.txt", victim);
        const r = await upload("~/report.txt", "overwritten\n");
        expect(r.status).toBe(403);
        plantLink("docs", outside);
        expect((await upload("~/docs/victim.txt", "overwritten\n")).status).toBe(403);
        expect((await upload("~/docs/new-outside.txt", "x")).status).toBe(403);
        expect(readFileSync(victim, "utf8")).toBe("root-owned original\n");
        expect(existsSync(join(outside, "new-outside.txt"))).toBe(false);
      });

      it("an unrelated upload hands nothing outside to the desktop user; uploaded files are its own", async () => {
        plantLink("victim-link.txt", victim);
        const r = await upload("~/Desktop/unrelated.txt", "fine\n");
        expect([r.status, await r.text()]).toEqual([200, "File Uploaded: 5 bytes"]);
        expect(statSync(victim).uid).toBe(0);
        expect(statSync(victim).mode & 0o777).toBe(0o644);
        const st = statSync(join(home, "Desktop/unrelated.txt"));
        expect([st.uid, st.gid]).toEqual([cua.uid, cua.gid]);
        expect(lstatSync(join(home, "victim-link.txt")).isSymbolicLink()).toBe(true);
      });

      it("/setup/download_file writes nothing outside the home, through a link or otherwise", async () => {
        plantLink("dl.txt", victim);
        const r = await post("/setup/download_file", { url: filesUrl, path: "~/dl.txt" });
        expect(r.status).toBe(403);
        plantLink("docs", outside);
        expect((await post("/setup/download_file", { url: filesUrl, path: "~/docs/dl-outside.txt" })).status).toBe(403);
        expect(readFileSync(victim, "utf8")).toBe("root-owned original\n");
        expect(existsSync(join(outside, "dl-outside.txt"))).toBe(false);
        const ok = await post("/setup/download_file", { url: filesUrl, path: "~/Downloads/f.txt" });
        expect([ok.status, await ok.text()]).toEqual([200, "File downloaded successfully: 17 bytes"]);
        expect(statSync(join(home, "Downloads/f.txt")).uid).toBe(cua.uid);
      });

      it("/list_directory never lists a folder outside through a link", async () => {
        plantLink("docs", outsideDir);
        for (const path of ["~/docs", "~/docs/", "/home/user/docs"]) {
          const r = await post("/list_directory", { path });
          const body = await r.text();
          expect(r.status, path).toBe(403);
          expect(body, path).not.toContain("outside-only.txt");
        }
        const tree = await (await post("/list_directory", { path: "~" })).json();
        const docs = tree.directory_tree.children.find((c: { name: string }) => c.name === "docs");
        expect(docs).toEqual({ type: "file", name: "docs" });
        expect(JSON.stringify(tree)).not.toContain("outside-only.txt");
      });

      it("/setup/open_file and /setup/change_wallpaper refuse links; os.path lookups do not follow them", async () => {
        plantLink("open-me.txt", secret);
        const open = await post("/setup/open_file", { path: "~/open-me.txt", timeout_seconds: 2 });
        expect(open.status).toBe(403);
        expect((await post("/setup/change_wallpaper", { path: "~/open-me.txt" })).status).toBe(403);
        const r = await (
          await post("/execute", {
            command: ["python", "-c", "import os; print(os.path.exists('~/open-me.txt'))"],
            shell: false,
          })
        ).json();
        expect(r.output).toBe("False\n");
      });

      it("a FIFO is refused at once, not read (the server keeps answering)", async () => {
        execFileSync("mkfifo", [join(home, "pipe")]);
        lchownSync(join(home, "pipe"), cua.uid, cua.gid);
        const t0 = Date.now();
        const r = await form("/file", { file_path: "~/pipe" });
        expect(r.status).toBe(403);
        expect(await r.text()).toMatch(/not a regular file/);
        expect((await upload("~/pipe", "x")).status).toBe(403);
        expect(Date.now() - t0).toBeLessThan(5000);
      });

      it("a file over the old 100 MB limit streams whole, and the server answers another request meanwhile", async () => {
        // sparse: 150 MB of zeros and a marker at the end, so the last bytes prove the tail arrived
        const big = join(home, "big.bin");
        const size = 150 * 1024 * 1024;
        const marker = Buffer.from("END-OF-BIG-FILE");
        execFileSync("truncate", ["-s", String(size - marker.length), big]);
        appendFileSync(big, marker);
        lchownSync(big, cua.uid, cua.gid);
        try {
          const r = await form("/file", { file_path: "~/big.bin" });
          expect(r.status).toBe(200);
          expect(r.headers.get("content-length")).toBe(String(size));
          const reader = r.body!.getReader();
          let got = (await reader.read()).value!.length;
          // the stream is under way: another request is served before it ends
          const t0 = Date.now();
          const other = await fetch(`${server.url}/platform`);
          expect(other.status).toBe(200);
          expect(Date.now() - t0).toBeLessThan(3000);
          let tail = Buffer.alloc(0);
          let nonZero = 0;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            got += value.length;
            tail = Buffer.concat([tail, Buffer.from(value)]).subarray(-marker.length);
            if (got <= size - marker.length && value.some((b) => b !== 0)) nonZero++;
          }
          expect(got).toBe(size);
          expect(tail.toString()).toBe(marker.toString());
          expect(nonZero).toBe(0);
        } finally {
          rmSync(big, { force: true });
        }
      });

      it("a streamed file is cut at the request's deadline (a client that stops reading holds nothing)", async () => {
        const big = join(home, "big2.bin");
        execFileSync("truncate", ["-s", "1G", big]);
        lchownSync(big, cua.uid, cua.gid);
        const short = await startOsworldControlServer({ env, requestDeadlineMs: 1500 });
        try {
          const t0 = Date.now();
          const r = await fetch(`${short.url}/file`, {
            method: "POST",
            body: new URLSearchParams({ file_path: "~/big2.bin" }),
          });
          expect(r.status).toBe(200);
          expect(r.headers.get("content-length")).toBe(String(1024 ** 3));
          const reader = r.body!.getReader();
          await reader.read(); // then stop reading: the server's send buffer fills and the stream stalls
          await new Promise((res) => setTimeout(res, 2500));
          const rest = await (async () => {
            try {
              for (;;) if ((await reader.read()).done) return "ended";
            } catch {
              return "cut";
            }
          })();
          expect(rest).toBe("cut");
          expect(Date.now() - t0).toBeLessThan(30_000);
          expect((await fetch(`${short.url}/platform`)).status).toBe(200);
        } finally {
          await short.close();
          rmSync(big, { force: true });
        }
      });

      it("special files are still refused when streaming, at once", async () => {
        const fifo = join(home, "pipe2");
        execFileSync("mkfifo", [fifo]);
        lchownSync(fifo, cua.uid, cua.gid);
        try {
          const t0 = Date.now();
          const r = await form("/file", { file_path: "~/pipe2" });
          expect(r.status).toBe(403);
          expect(await r.text()).toMatch(/not a regular file/);
          expect(Date.now() - t0).toBeLessThan(5000);
        } finally {
          rmSync(fifo, { force: true });
        }
      });
    });

    describe("launch and open: no caller-controlled option, no uploaded module configuration", () => {
      it("refuses options to the desktop's own apps and uploads of dot-files (apps' configuration)", async () => {
        for (const command of [
          ["galculator", "--gtk-module=/tmp/evil.so"],
          ["mousepad", "--gtk-module=evil"],
          ["gnumeric", "-", "x"],
          ["galculator", "~/notes.txt"],
        ]) {
          const r = await post("/setup/launch", { command, shell: false });
          expect(r.status, command.join(" ")).toBeGreaterThanOrEqual(400);
          expect((await r.json()).status).toBe("error");
        }
        for (const path of [
          "~/.config/gtk-3.0/settings.ini",
          "~/.local/share/dbus-1/services/x.service",
          "~/.gnumeric/plugin.xml",
          "/home/user/.profile",
        ]) {
          const r = await upload(path, "[Settings]\ngtk-modules=/tmp/evil.so\n");
          expect(r.status, path).toBe(403);
          expect(await r.text(), path).toMatch(/dot-file or dot-folder/);
        }
        expect(readFileSync(join(home, ".config/gtk-3.0/settings.ini"), "utf8")).not.toContain("gtk-modules");
      });

      it("a file named ~/--gtk-module=... opens as a file, never as an option", async () => {
        expect((await upload("~/--gtk-module=evil", "just text\n")).status).toBe(200);
        const r = await post("/setup/open_file", { path: "~/--gtk-module=evil", timeout_seconds: 20 });
        expect([r.status, await r.text()]).toEqual([200, "File opened and window activated successfully"]);
        const title = execFileSync("xdotool", ["getactivewindow", "getwindowname"], {
          env: { ...process.env, DISPLAY: (env.desktop as unknown as { displayName: string }).displayName },
        }).toString();
        expect(title).toContain("--gtk-module=evil");
        await post("/setup/close_window", { window_name: "--gtk-module=evil" });
      });

      it.runIf(hasGcc)(
        "an uploaded GTK module never runs: not by --gtk-module, not by an uploaded settings.ini",
        async () => {
          const src = join(outside, "evil.c");
          writeFileSync(
            src,
            `#include <stdio.h>\n__attribute__((constructor)) static void ran(void) { FILE *f = fopen("${marker}", "w"); if (f) { fputs("ran", f); fclose(f); } }\nvoid gtk_module_init(int *argc, char ***argv) { (void)argc; (void)argv; }\n`,
          );
          execFileSync("gcc", ["-shared", "-fPIC", "-o", join(outside, "evil.so"), src]);
          expect((await upload("~/evil.so", readFileSync(join(outside, "evil.so")))).status).toBe(200);
          const lib = join(home, "evil.so");
          expect(
            (await post("/setup/launch", { command: ["galculator", `--gtk-module=${lib}`], shell: false })).status,
          ).toBe(501);
          expect((await upload("~/.config/gtk-3.0/settings.ini", `[Settings]\ngtk-modules=${lib}\n`)).status).toBe(403);
          const plain = await post("/setup/launch", { command: ["galculator"], shell: false });
          expect(plain.status).toBe(200);
          await new Promise((r) => setTimeout(r, 1000));
          expect(existsSync(marker)).toBe(false);
          await post("/setup/close_window", { window_name: "galculator", by_class: true });
        },
      );
    });

    describe("no request holds the server", () => {
      const rss = () => process.memoryUsage().rss;
      /** Send a body of `total` bytes in 1 MB chunks until the server answers; the peak RSS growth while it runs. */
      const sendLarge = (path: string, total: number, chunked: boolean) =>
        new Promise<{ status: number; body: string; grewMb: number; sentMb: number }>((resolve, reject) => {
          const base = rss();
          let peak = base;
          const sample = setInterval(() => (peak = Math.max(peak, rss())), 20);
          const url = new URL(`${server.url}${path}`);
          const headers: Record<string, string | number> = { "content-type": "application/json" };
          if (!chunked) headers["content-length"] = total;
          const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers });
          const chunk = Buffer.alloc(1024 * 1024, 0x61);
          let sent = 0;
          let answered = false;
          req.on("response", (res) => {
            answered = true;
            let body = "";
            res.on("data", (d: Buffer) => (body += d.toString()));
            res.on("end", () => {
              clearInterval(sample);
              resolve({ status: res.statusCode ?? 0, body, grewMb: (peak - base) / 2 ** 20, sentMb: sent / 2 ** 20 });
            });
          });
          req.on("error", (err) => {
            if (!answered) {
              clearInterval(sample);
              reject(err);
            }
          });
          const pump = () => {
            while (!answered && sent < total) {
              sent += chunk.length;
              if (!req.write(chunk)) return void req.once("drain", pump);
            }
            if (!answered) req.end();
          };
          pump();
        });

      it("a 600 MB body is refused with 413 while it arrives, and memory stays flat", async () => {
        const declared = await sendLarge("/setup/upload", 600 * 2 ** 20, false);
        expect(declared.status).toBe(413);
        expect(declared.body).toMatch(/accepts at most/);
        expect(declared.grewMb).toBeLessThan(64);
        const streamed = await sendLarge("/execute", 600 * 2 ** 20, true);
        expect(streamed.status).toBe(413);
        expect(streamed.sentMb).toBeLessThan(600);
        expect(streamed.grewMb).toBeLessThan(64);
        expect((await fetch(`${server.url}/platform`)).status).toBe(200);
      }, 60_000);

      it("execute_with_verification with max_wait_time=1e9 is refused at once", async () => {
        const t0 = Date.now();
        const r = await post("/setup/execute_with_verification", {
          command: ["python", "-c", "print(1)"],
          verification: { window_exists: "nope" },
          max_wait_time: 1e9,
        });
        expect(r.status).toBe(400);
        expect((await r.json()).error).toMatch(/max_wait_time must be a number of seconds from 0 to 120/);
        expect(Date.now() - t0).toBeLessThan(2000);
      });

      it("a request line whose URL does not parse is a 400, and the server lives on", async () => {
        const { port } = new URL(server.url);
        const answer = await new Promise<string>((resolve, reject) => {
          const sock = connect(Number(port), "127.0.0.1", () => sock.write("GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n"));
          let text = "";
          sock.on("data", (d) => (text += d.toString()));
          sock.on("close", () => resolve(text));
          sock.on("error", reject);
        });
        expect(answer).toMatch(/^HTTP\/1\.1 400/);
        expect(await (await fetch(`${server.url}/platform`)).text()).toBe("Linux");
      });

      it("a request past its deadline is answered 504 and the next one is served", async () => {
        const short = await startOsworldControlServer({ env, requestDeadlineMs: 1500 });
        try {
          const t0 = Date.now();
          const slow = fetch(`${short.url}/setup/execute_with_verification`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              command: ["python", "-c", "print(1)"],
              verification: { window_exists: "no such window" },
              max_wait_time: 60,
              check_interval: 0.2,
            }),
          });
          const next = fetch(`${short.url}/platform`);
          const r = await slow;
          expect(r.status).toBe(504);
          expect((await r.json()).error).toMatch(/deadline of 1500 ms/);
          expect(Date.now() - t0).toBeLessThan(4000);
          expect(await (await next).text()).toBe("Linux");
        } finally {
          await short.close();
        }
      });

      it("screening /execute code is linear: 99 KB of adversarial os.path calls answer in well under a second", async () => {
        const unit = "os.path.exists('";
        const code = `import os; ${unit.repeat(Math.floor(99_000 / unit.length))}`;
        const t0 = Date.now();
        const r = await post("/execute", { command: ["python", "-c", code], shell: false });
        const ms = Date.now() - t0;
        expect([200, 501]).toContain(r.status); // a Python error (200) or a refusal (501)
        expect(ms).toBeLessThan(1000);
        // each distinct path is one look-up as the desktop user: more than 64 are refused before any
        const many = Array.from({ length: 200 }, (_, i) => `os.path.exists('~/a${i}')`).join("; ");
        const t1 = Date.now();
        const refused = await post("/execute", { command: ["python", "-c", `import os; ${many}`], shell: false });
        expect(refused.status).toBe(501);
        expect((await refused.json()).error).toMatch(/more than 64 paths/);
        expect(Date.now() - t1).toBeLessThan(5000);
        const huge = await post("/execute", { command: ["python", "-c", "x".repeat(300_000)], shell: false });
        expect(huge.status).toBe(413);
      });
    });

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
