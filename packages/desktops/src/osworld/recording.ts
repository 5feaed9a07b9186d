/**
 * OSWorld's `/start_recording` and `/end_recording`: the desktop's frames, as the backend captures
 * them (host X11 or container alike), piped as raw RGB into Debian's ffmpeg on the host, which
 * writes an H.264 MP4. ffmpeg gets a fixed argv and our own frames; nothing from a request reaches
 * it. The recorder is stopped with the server, so no ffmpeg outlives it.
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DesktopBackend } from "../x11/backend.ts";

/** One recording in progress. */
export class ScreenRecorder {
  private child?: ChildProcess;
  private dir?: string;
  private stopped = false;
  private loop?: Promise<void>;
  private stderr = "";
  private frames = 0;

  constructor(
    private readonly backend: DesktopBackend,
    private readonly fps = 5,
  ) {}

  get running(): boolean {
    return !!this.child && !this.stopped;
  }

  /** Start ffmpeg and the frame loop; rejects when ffmpeg is missing or exits at once. */
  async start(): Promise<void> {
    const { width, height } = this.backend;
    this.dir = await mkdtemp(join(tmpdir(), "retrace-rec-"));
    this.stopped = false;
    this.stderr = "";
    this.frames = 0;
    const args = [
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-s",
      `${width}x${height}`,
      "-r",
      String(this.fps),
      "-i",
      "-",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-preset",
      "ultrafast",
      join(this.dir, "recording.mp4"),
    ];
    const child = spawn("ffmpeg", args, { stdio: ["pipe", "ignore", "pipe"] });
    this.child = child;
    child.stderr!.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    child.stdin!.on("error", () => undefined);
    const failed = await new Promise<string | undefined>((resolve) => {
      child.once("error", (e) => resolve(`could not start ffmpeg (${e.message}); install Debian's ffmpeg package`));
      child.once("spawn", () => resolve(undefined));
    });
    if (failed) {
      this.child = undefined;
      await rm(this.dir, { recursive: true, force: true });
      throw new EnvironmentError(failed, { retryable: false });
    }
    this.loop = this.pump();
  }

  private async pump(): Promise<void> {
    const period = 1000 / this.fps;
    let next = Date.now();
    while (!this.stopped && this.child?.stdin?.writable) {
      try {
        const frame = await this.backend.captureFrame();
        if (this.stopped) break;
        if (frame.width !== this.backend.width || frame.height !== this.backend.height) break;
        // At least one frame per period: a slow capture is written again to keep the clock.
        do {
          this.child.stdin.write(frame.rgb);
          this.frames++;
          next += period;
        } while (next < Date.now() && !this.stopped);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  }

  /** Stop and return the MP4 (undefined with ffmpeg's last words when it wrote nothing). */
  async stop(): Promise<{ mp4?: Buffer; error?: string }> {
    const child = this.child;
    if (!child) return { error: "No recording in progress to stop." };
    this.stopped = true;
    await this.loop;
    // A recording stopped before its first frame arrived still shows the screen once.
    if (this.frames === 0 && child.stdin?.writable) {
      const frame = await this.backend.captureFrame().catch(() => undefined);
      if (frame) child.stdin.write(frame.rgb);
    }
    const exited = new Promise<void>((resolve) =>
      child.exitCode !== null ? resolve() : child.once("exit", () => resolve()),
    );
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
    const file = join(this.dir!, "recording.mp4");
    const mp4 = await readFile(file).catch(() => undefined);
    await rm(this.dir!, { recursive: true, force: true });
    if (!mp4?.length)
      return { error: `Recording failed. The output file is missing or empty. ffmpeg stderr: ${this.stderr.trim()}` };
    return { mp4 };
  }

  /** End any recording without keeping it (server shutdown). */
  async dispose(): Promise<void> {
    if (this.child) await this.stop();
  }
}
