import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = join(ROOT, "test/experiments/fixtures/slow-run.ts");
const out = mkdtempSync(join(tmpdir(), "retrace-resume-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const lines = () => (existsSync(join(out, "results.jsonl")) ? readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean) : []);
const start = (...args: string[]) => spawn(process.execPath, ["--import", "tsx", FIXTURE, out, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });

describe("resume after the runner is killed", () => {
  it("ends with every episode exactly once in results.jsonl", async () => {
    const total = 3 * 3 * 4; // conditions x tasks x seeds
    const child = start();
    const killedAt = await new Promise<number>((done, fail) => {
      const timer = setInterval(() => {
        const n = lines().length;
        if (n >= 6) {
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
    expect(killedAt).toBeGreaterThanOrEqual(6);
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
  });
});
