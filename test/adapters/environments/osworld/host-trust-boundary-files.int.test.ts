/**
 * The OSWorld control server on the host's own X11 desktop is a trust boundary (issue 41): it runs
 * as root, and docs/desktops.md promises "the host desktop never runs code; files only inside the
 * desktop user's home; launch only its own apps". Each guarantee is tried here as a hostile caller
 * would, against the real server on 127.0.0.1 and a real Xvfb desktop whose user (`cua`, created
 * as .ci/podman-setup.sh does) plants links, FIFOs and libraries in its own home.
 *
 * This file: files: inside the home, as the desktop user, never through a link.
 * Shared setup: helpers/trust-boundary.ts.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, lchownSync, lstatSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startOsworldControlServer } from "../../../../packages/desktops/src/osworld/control-server.ts";
import {
  env,
  server,
  home,
  cua,
  filesUrl,
  outside,
  secret,
  victim,
  outsideDir,
  post,
  form,
  upload,
  plantLink,
  tools,
  asRoot,
  trustBoundaryHooks,
} from "./helpers/trust-boundary.ts";

describe.runIf(tools.run && asRoot)(
  "the host control server as a trust boundary (root server, real Xvfb desktop, HTTP on 127.0.0.1)",
  () => {
    trustBoundaryHooks();

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
  },
);
