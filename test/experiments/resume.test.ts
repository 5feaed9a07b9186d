import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = join(ROOT, "test/experiments/fixtures/slow-run.ts");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("resume after the runner is killed", () => {
  it.each(["in-process", "processes"])(
    "ends with every episode exactly once in results.jsonl (%s workers)",
    async (workers) => {
      const out = mkdtempSync(join(tmpdir(), "retrace-resume-"));
      dirs.push(out);
      const lines = () =>
        existsSync(join(out, "results.jsonl"))
          ? readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean)
          : [];
      const start = (mode: string) =>
        spawn(process.execPath, ["--conditions=retrace-dev", "--import", "tsx", FIXTURE, out, mode, workers], {
          cwd: ROOT,
          stdio: ["ignore", "ignore", "pipe"],
        });
      const total = 3 * 3 * 4; // conditions x tasks x seeds
      const child = start("fresh");
      // Everything the run and its process workers print: orphaned workers share this stderr, so it
      // closes only once every one of them has exited.
      let killedStderr = "";
      child.stderr!.on("data", (d) => (killedStderr += d));
      const stderrClosed = new Promise<boolean>((r) => {
        child.stderr!.on("close", () => r(true));
        setTimeout(() => r(false), 60_000);
      });
      const killedAt = await new Promise<number>((done, fail) => {
        const timer = setInterval(() => {
          const n = lines().length;
          if (n >= 8) {
            clearInterval(timer);
            child.kill("SIGKILL");
            done(n);
          }
        }, 20);
        child.on("exit", (code) => {
          clearInterval(timer);
          if (code !== null) fail(new Error(`child finished (code ${code}) before it could be killed; make it slower`));
        });
      });
      await new Promise((r) => child.once("exit", r));
      const partial = lines().length;
      expect(killedAt).toBeGreaterThanOrEqual(8);
      await new Promise((r) => setTimeout(r, 300)); // orphaned process workers notice the parent is gone
      // Orphaned process workers end on their own, quietly: no EPIPE or IPC stack trace.
      expect(await stderrClosed, "an orphaned process worker kept running").toBe(true);
      expect(killedStderr).not.toMatch(/EPIPE|ERR_IPC|^\s+at /m);
      expect(partial).toBeLessThan(total);

      const again = start("resume");
      let stderr = "";
      again.stderr!.on("data", (d) => (stderr += d));
      const code = await new Promise((r) => again.on("exit", r));
      expect(code, stderr).toBe(0);
      const keys = lines().map((l) => JSON.parse(l).key as string);
      expect(keys).toHaveLength(total);
      expect(new Set(keys).size).toBe(total);
      // the finished run is ordered by expansion index
      expect(lines().map((l) => JSON.parse(l).index)).toEqual(Array.from({ length: total }, (_, i) => i));
    },
    180_000,
  );
});
