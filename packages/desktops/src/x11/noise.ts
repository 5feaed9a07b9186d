/**
 * Desktop noise on a real X server, for measuring oracles the way a live desktop breaks them: a
 * panel clock that ticks every second (top right) and a notification pop-up that comes and goes
 * (bottom right), both override-redirect windows as panels and notification daemons draw them,
 * so the window manager leaves them alone and the apps underneath keep focus. Drawn by our own
 * fixed Tk script (python3 + tkinter), run as the desktop user; it exits when its stop file
 * appears or after `maxSeconds`. The noise lives on the X display, not in the session, so it
 * survives `reset()`.
 */
import { existsSync, writeFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ConfigError, EnvironmentError, describeError } from "@retrace-cua/core/errors";
import type { DesktopBackend, ExecResult } from "./backend.ts";

const NOISE_PY = String.raw`
import os, sys, time
import tkinter as tk
stop, W, H, period, shown, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
root = tk.Tk()
root.withdraw()
clock = tk.Toplevel(root)
clock.overrideredirect(True)
clock.geometry("150x30+%d+4" % (W - 160))
label = tk.Label(clock, font=("DejaVu Sans Mono", 15), bg="#1e2430", fg="#ffffff")
label.pack(fill="both", expand=True)
note = tk.Toplevel(root)
note.overrideredirect(True)
note.geometry("330x74+%d+%d" % (W - 340, H - 86))
tk.Label(note, text="Notification\nCalendar: stand-up in 5 min", justify="left", anchor="w", padx=12, font=("DejaVu Sans", 12), bg="#2b3240", fg="#ffffff").pack(fill="both", expand=True)
note.withdraw()
t0 = time.time()
state = {"note": False}
def tick():
    now = time.time()
    if os.path.exists(stop) or now - t0 > limit:
        root.destroy()
        return
    label.config(text=time.strftime("%H:%M:%S"))
    want = ((now - t0) % period) < shown
    if want != state["note"]:
        (note.deiconify if want else note.withdraw)()
        if want:
            note.lift()
        state["note"] = want
    clock.lift()
    if not state.get("ready"):
        root.update_idletasks()
        open(stop + ".ready", "w").close()
        state["ready"] = True
    root.after(100, tick)
tick()
root.mainloop()
`;

/** Options of {@link startDesktopNoise}. */
export interface DesktopNoiseOptions {
  /** The notification shows for `shownSeconds` out of every `periodSeconds`. @default 4 */
  periodSeconds?: number;
  /** @default 2 */
  shownSeconds?: number;
  /** The script ends by itself after this long. @default 600 */
  maxSeconds?: number;
}

/** Running noise; `stop()` ends it and waits for the script to exit. */
export interface DesktopNoise {
  stop(): Promise<void>;
}

/** Start the clock and the notification pop-up on the backend's X display. */
export async function startDesktopNoise(
  backend: DesktopBackend,
  options: DesktopNoiseOptions = {},
): Promise<DesktopNoise> {
  const period = options.periodSeconds ?? 4;
  const shown = options.shownSeconds ?? 2;
  const limit = options.maxSeconds ?? 600;
  if (!(period > 0))
    throw new ConfigError(`desktop noise: periodSeconds must be positive, got ${period}`, { field: "periodSeconds" });
  if (!(shown >= 0 && shown <= period))
    throw new ConfigError(`desktop noise: shownSeconds ${shown} must lie in [0, periodSeconds ${period}]`, {
      field: "shownSeconds",
    });
  const stopFile = join(tmpdir(), `retrace-noise-stop-${randomBytes(6).toString("hex")}`);
  const running: Promise<ExecResult> = backend.exec(
    [
      "/usr/bin/python3",
      "-I",
      "-c",
      NOISE_PY,
      stopFile,
      String(backend.width),
      String(backend.height),
      String(period),
      String(shown),
      String(limit),
    ],
    { timeoutMs: (limit + 5) * 1000 },
  );
  let failed: string | undefined;
  running.then(
    (r) => {
      if (r.code !== 0) failed = `exited ${r.code}: ${r.stderr.trim().split("\n").pop() ?? ""}`;
    },
    (e: unknown) => {
      failed = describeError(e);
    },
  );
  // Wait until the windows are drawn (the script writes `<stop file>.ready` after its first tick).
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (failed)
      throw new EnvironmentError(`desktop noise script failed: ${failed}; install python3-tk`, { retryable: false });
    if (existsSync(`${stopFile}.ready`)) break;
    if (Date.now() > deadline) {
      writeFileSync(stopFile, "");
      throw new EnvironmentError("desktop noise: the clock window did not show within 15 s", { retryable: false });
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  return {
    async stop() {
      writeFileSync(stopFile, "");
      await running.catch(() => undefined);
      rmSync(stopFile, { force: true });
      rmSync(`${stopFile}.ready`, { force: true });
    },
  };
}
