/**
 * The OSWorld control server on the host's own X11 desktop is a trust boundary (issue 41): it runs
 * as root, and docs/desktops.md promises "the host desktop never runs code; files only inside the
 * desktop user's home; launch only its own apps". Each guarantee is tried here as a hostile caller
 * would, against the real server on 127.0.0.1 and a real Xvfb desktop whose user (`cua`, created
 * as .ci/podman-setup.sh does) plants links, FIFOs and libraries in its own home.
 *
 * This file: launch and open: no caller-controlled option, no uploaded module configuration.
 * Shared setup: helpers/trust-boundary.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  env,
  home,
  outside,
  marker,
  post,
  upload,
  tools,
  asRoot,
  hasGcc,
  trustBoundaryHooks,
} from "./helpers/trust-boundary.ts";

describe.runIf(tools.run && asRoot)(
  "the host control server as a trust boundary (root server, real Xvfb desktop, HTTP on 127.0.0.1)",
  () => {
    trustBoundaryHooks();

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
  },
);
