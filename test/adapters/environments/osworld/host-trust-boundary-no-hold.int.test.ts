/**
 * The OSWorld control server on the host's own X11 desktop is a trust boundary (issue 41): it runs
 * as root, and docs/desktops.md promises "the host desktop never runs code; files only inside the
 * desktop user's home; launch only its own apps". Each guarantee is tried here as a hostile caller
 * would, against the real server on 127.0.0.1 and a real Xvfb desktop whose user (`cua`, created
 * as .ci/podman-setup.sh does) plants links, FIFOs and libraries in its own home.
 *
 * This file: no request holds the server.
 * Shared setup: helpers/trust-boundary.ts.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startOsworldControlServer } from "../../../../packages/desktops/src/osworld/control-server.ts";
import { env, server, post, tools, asRoot, trustBoundaryHooks } from "./helpers/trust-boundary.ts";

describe.runIf(tools.run && asRoot)(
  "the host control server as a trust boundary (root server, real Xvfb desktop, HTTP on 127.0.0.1)",
  () => {
    trustBoundaryHooks();

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
  },
);
