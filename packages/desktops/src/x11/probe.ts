/**
 * State probes of a real desktop (host X11 or container; anything behind `DesktopBackend`):
 * every file under the user's home with its size and content hash (`file:<relative path>`),
 * the focused window's name (`focus`), the clipboard's and the PRIMARY selection's text
 * (`clipboard`, `selection`, through xclip; digests, never the text) and accessibility digests per
 * app (with caret offsets and selected ranges) (`ax:<app>:<aspect>`, from AT-SPI
 * when the backend has it). Read-only: the Python below is our own fixed script run
 * as the desktop user; it reads files and prints JSON, it never writes.
 */
import { axProbeItems } from "@retrace-cua/evaluation/probes/ax-digest";
import { makeProbeReport, type ProbeReport } from "@retrace-cua/core/probes/report";
import { describeError, EnvironmentError } from "@retrace-cua/core/errors";
import { sha256Hex } from "@retrace-cua/core/hash";
import { dumpAxTree } from "./accessibility.ts";
import type { DesktopBackend } from "./backend.ts";

const DIGEST_HOME_PY = String.raw`
import hashlib, json, os, sys
home = os.environ.get("HOME") or os.getcwd()
out = {}
n = 0
for dp, dns, fns in os.walk(home):
    dns.sort()
    for f in sorted(fns):
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, home)
        n += 1
        if n > 20000:
            sys.stdout.write(json.dumps({"__truncated__": "more than 20000 files"}))
            sys.exit(0)
        try:
            if os.path.islink(p):
                out[rel] = "symlink -> " + os.readlink(p)
                continue
            if not os.path.isfile(p):
                continue
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            out[rel] = "size=%d sha256=%s" % (os.path.getsize(p), h.hexdigest()[:16])
        except Exception:
            out[rel] = "unreadable"
sys.stdout.write(json.dumps(out))
`;

/** Options of {@link probeDesktop}. */
export interface DesktopProbeOptions {
  /** Include accessibility digests when the backend supports AT-SPI (~0.2-0.5 s). @default true */
  accessibility?: boolean;
}

/** Probe a desktop: files under home, focused window, accessibility digests. Failures land in `errors`. */
export async function probeDesktop(backend: DesktopBackend, options: DesktopProbeOptions = {}): Promise<ProbeReport> {
  const items: Record<string, string> = {};
  const errors: Record<string, string> = {};
  try {
    const r = await backend.exec(["/usr/bin/python3", "-I", "-c", DIGEST_HOME_PY], { timeoutMs: 20_000 });
    if (r.code !== 0)
      throw new EnvironmentError(`python3 exited ${r.code}: ${r.stderr.trim().split("\n").pop() ?? ""}`);
    const files = JSON.parse(r.stdout.toString("utf8")) as Record<string, string>;
    if ("__truncated__" in files) throw new EnvironmentError(`home has ${files.__truncated__}; probes skip it`);
    for (const [rel, v] of Object.entries(files)) items[`file:${rel}`] = v;
  } catch (err) {
    errors.file = describeError(err);
  }
  const focus = await backend
    .exec(["xdotool", "getwindowfocus", "getwindowname"], { asUser: false, timeoutMs: 5000 })
    .catch((e: unknown) => ({ code: -1, stdout: Buffer.alloc(0), stderr: describeError(e) }));
  if (focus.code === 0) items.focus = focus.stdout.toString("utf8").trim() || "(unnamed window)";
  else errors.focus = `xdotool getwindowfocus failed (${focus.code}): ${focus.stderr.trim()}`;
  const clip = await backend
    .exec(["xclip", "-o", "-selection", "clipboard"], { asUser: false, timeoutMs: 3000 })
    .catch((e: unknown) => ({ code: 127, stdout: Buffer.alloc(0), stderr: describeError(e) }));
  if (clip.code === 0)
    items.clipboard = `text size=${clip.stdout.length} sha256=${sha256Hex(clip.stdout).slice(0, 16)}`;
  else if (/not available|no owner/i.test(clip.stderr)) items.clipboard = "empty";
  else errors.clipboard = `xclip failed (${clip.code}): ${clip.stderr.trim().split("\n").pop() ?? ""}; install xclip`;
  // The PRIMARY selection: X11 apps own it while text is selected and drop it when the selection
  // is cleared, so a selection left in place shows here even without AT-SPI.
  const primary = await backend
    .exec(["xclip", "-o", "-selection", "primary"], { asUser: false, timeoutMs: 3000 })
    .catch((e: unknown) => ({ code: 127, stdout: Buffer.alloc(0), stderr: describeError(e) }));
  if (primary.code === 0)
    items.selection = `text size=${primary.stdout.length} sha256=${sha256Hex(primary.stdout).slice(0, 16)}`;
  else if (/not available|no owner/i.test(primary.stderr)) items.selection = "empty";
  else
    errors.selection = `xclip failed (${primary.code}): ${primary.stderr.trim().split("\n").pop() ?? ""}; install xclip`;
  if ((options.accessibility ?? true) && backend.accessibility) {
    try {
      Object.assign(items, axProbeItems(await dumpAxTree(backend)));
    } catch (err) {
      errors.ax = describeError(err);
    }
  }
  return makeProbeReport(backend.kind, items, errors);
}
