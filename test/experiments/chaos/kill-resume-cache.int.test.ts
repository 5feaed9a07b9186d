/**
 * kill -9 during a model-backed run with the model-call cache on, then `--resume` (issue 12): no
 * request is billed twice once its answer is cached. The LLM detector and selector of `retrace
 * chaos` talk to a seeded server started here (no faults), which counts every billed answer and
 * the body it answered; the run is killed mid-way, resumed, and the counts are compared with the
 * cache entries on disk.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startChaosModelServer, type ChaosModelServer } from "../../../experiments/chaos/model-server.ts";
import { chaosAnswer } from "../../../experiments/chaos/runtime.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-kill-cache-"));
let server: ChaosModelServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cacheEntries = (d: string): string[] =>
  existsSync(d)
    ? readdirSync(d).flatMap((n) =>
        statSync(join(d, n)).isDirectory() ? cacheEntries(join(d, n)) : n.endsWith(".json") ? [n] : [],
      )
    : [];

function chaos(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; stderr: string }>;
} {
  const child = spawn(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), "chaos", ...args], {
    cwd: dir,
    env: { ...process.env, RETRACE_LOG_LEVEL: "error" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  return { child, done: new Promise((r) => child.on("close", (code, signal) => r({ code, signal, stderr }))) };
}

describe("kill -9 and --resume with the model cache on", () => {
  it("bills no cached request twice", async () => {
    server = await startChaosModelServer({ seed: 0, rate: 0, answer: chaosAnswer });
    const config = join(dir, "e2e.json");
    writeFileSync(
      config,
      JSON.stringify({
        kind: "end-to-end",
        name: "kill-cache",
        env: { kind: "simdesk", sample: 6 },
        seeds: { count: 2 },
        maxRecoveryIterations: [3],
        options: { maxForwardSteps: 20, freezeWindow: 3, recoveryBudget: 6 },
        pairs: [
          {
            name: "skilled",
            forward: { kind: "sim", profile: "sloppy" },
            recovery: { kind: "sim", profile: "skilled" },
          },
        ],
      }),
    );
    const out = join(dir, "run");
    const args = [config, "--out", out, "--base-url", server.url, "--env-faults", "0", "-w", "1", "-q"];

    const first = chaos(args);
    const deadline = Date.now() + 150_000;
    while (server.billed < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(server.billed).toBeGreaterThanOrEqual(12);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    await new Promise((r) => setTimeout(r, 200)); // answers in flight at the kill are counted by now
    const billedBefore = server.billed;
    const cachedAtKill = new Set(cacheEntries(join(out, "model-cache")));
    const linesAtKill = existsSync(join(out, "results.jsonl"))
      ? readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean).length
      : 0;
    // every billed answer but the one in flight is on disk
    expect(billedBefore - cachedAtKill.size).toBeLessThanOrEqual(1);

    const second = await chaos([...args, "--resume"]).done;
    expect(second.code, second.stderr).toBe(0);
    const billedAfter = server.billed - billedBefore;
    const cachedAtEnd = new Set(cacheEntries(join(out, "model-cache")));
    const newEntries = [...cachedAtEnd].filter((k) => !cachedAtKill.has(k)).length;
    // each call after the resume recorded a new entry: none was for a request already cached
    expect(billedAfter).toBe(newEntries);
    // and no body was billed twice, except one answered in flight at the kill and never cached
    const counts = new Map<string, number>();
    for (const h of server.billedBodies) counts.set(h, (counts.get(h) ?? 0) + 1);
    const twice = [...counts.values()].filter((n) => n > 1).length;
    expect(twice).toBeLessThanOrEqual(billedBefore - cachedAtKill.size);
    // the run finished: every episode recorded, the earlier ones kept
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2 * 6 * 2);
    expect(lines.length).toBeGreaterThanOrEqual(linesAtKill);
  }, 400_000);
});
