/**
 * `npm run bench` leaves nothing running however it ends: a bench process that started a worker
 * process and a private Redis (registered with experiments/bench/cleanup.ts) is ended by SIGTERM,
 * by SIGINT and by an exception, and both are gone afterwards.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasRedis } from "../../../packages/testing/src/local-services.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-bench-cleanup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = join(dir, "bench-like.mts");
writeFileSync(
  script,
  `import { spawn } from "node:child_process";
import { killOnBenchExit, onBenchExit } from ${JSON.stringify(join(ROOT, "experiments/bench/cleanup.ts"))};
import { startPrivateRedis } from ${JSON.stringify(join(ROOT, "packages/testing/src/local-services.ts"))};
const worker = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
killOnBenchExit(worker);
const redis = await startPrivateRedis();
onBenchExit(redis.stop);
const { execFileSync } = await import("node:child_process");
const redisPid = Number(execFileSync("redis-cli", ["-p", String(redis.port), "info", "server"]).toString().match(/process_id:(\\d+)/)[1]);
process.stdout.write(JSON.stringify({ worker: worker.pid, redis: redisPid }) + "\\n");
if (process.argv[2] === "throw") setTimeout(() => { throw new Error("bench failed"); }, 100);
else setInterval(() => {}, 1000);
`,
);

/** Running (a zombie waiting for a reaper counts as gone: it holds no port, memory or files). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

async function runAndEnd(how: "SIGTERM" | "SIGINT" | "throw"): Promise<{ code: number | null; pids: number[] }> {
  const p = spawn(
    process.execPath,
    ["--conditions=retrace-dev", "--import", "tsx", script, how === "throw" ? "throw" : "wait"],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const pids = await new Promise<{ worker: number; redis: number }>((res, rej) => {
    let buf = "";
    p.stdout!.on("data", (b: Buffer) => {
      buf += b.toString();
      if (buf.includes("\n")) res(JSON.parse(buf.split("\n")[0]));
    });
    p.on("exit", (c) => rej(new Error(`exited ${c} before starting`)));
  });
  expect(alive(pids.worker) && alive(pids.redis)).toBe(true);
  if (how !== "throw") p.kill(how);
  const code = await new Promise<number | null>((r) =>
    p.exitCode !== null ? r(p.exitCode) : p.on("exit", (c) => r(c)),
  );
  await new Promise((r) => setTimeout(r, 300));
  return { code, pids: [pids.worker, pids.redis] };
}

describe.runIf(hasRedis())("the bench's cleanup", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["throw", 1],
  ] as const)(
    "after %s the worker process and the private Redis are gone",
    async (how, exitCode) => {
      const r = await runAndEnd(how);
      expect(r.code).toBe(exitCode);
      for (const pid of r.pids) expect(alive(pid), `pid ${pid} still running`).toBe(false);
    },
    60_000,
  );
});
