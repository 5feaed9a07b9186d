/**
 * Issue 20's hangs, through the real launcher: every external dependency has a connect deadline
 * and SIGTERM stops a worker within seconds. `run --queue` and `worker` against a Redis nobody
 * listens on give one line and exit 2 (the run folder is never made); a worker whose Redis goes
 * away stops within seconds of SIGTERM; an endpoint answering HTML says so. No process is left.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retrace, stop, type CliProc } from "../../helpers/cli-procs.ts";
import {
  servicesAvailable,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
} from "../../helpers/services.ts";

const services = servicesAvailable("the connect-deadline tests");
const dir = mkdtempSync(join(tmpdir(), "retrace-deadlines-"));
const cfg = join(dir, "e2e.json");
writeFileSync(
  cfg,
  JSON.stringify({
    kind: "end-to-end",
    name: "dl",
    env: { kind: "simdesk", limit: 1 },
    seeds: [0],
    maxRecoveryIterations: [1],
    pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" } }],
  }),
);
const procs: CliProc[] = [];
let pg: PrivatePostgres | undefined;

const alive = (pid: number | undefined) => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  if (services.run) pg = await startPrivatePostgres();
}, 120_000);
afterAll(async () => {
  for (const p of procs) await stop(p, 2_000);
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(services.run)("connect deadlines and SIGTERM", () => {
  it("run --queue with nothing listening on the Redis port fails in one line within the deadline and writes nothing", async () => {
    const out = join(dir, "q1");
    const p = retrace(["run", cfg, "-q", "--queue", "redis://127.0.0.1:1", "--store", pg!.url, "--out", out]);
    procs.push(p);
    const t0 = Date.now();
    expect(await p.exited).toBe(2);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(p.lines).toHaveLength(1);
    expect(p.lines[0]).toMatch(
      /^retrace: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 within 10 s \(.*ECONNREFUSED.*\); start it, or pass another URL$/,
    );
    expect(existsSync(out)).toBe(false);
  }, 90_000);

  it("a worker with nothing listening on the Redis port gives up with one line instead of retrying forever", async () => {
    const p = retrace([
      "worker",
      "--queue",
      "redis://127.0.0.1:1",
      "--store",
      pg!.url,
      "--work-dir",
      join(dir, "cache1"),
    ]);
    procs.push(p);
    expect(await p.exited).toBe(2);
    expect(p.lines).toHaveLength(1);
    expect(p.lines[0]).toMatch(/^retrace: --queue: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 within 10 s/);
    expect(alive(p.proc.pid)).toBe(false);
  }, 90_000);

  it("a worker whose Redis went away stops within seconds of SIGTERM", async () => {
    const redis = await startPrivateRedis();
    const p = retrace(["worker", "--queue", redis.url, "--store", pg!.url, "--work-dir", join(dir, "cache2"), "-q"], {
      RETRACE_LOG_LEVEL: "warn",
    });
    procs.push(p);
    await p.waitFor(/slot\(s\) on/, 90_000);
    redis.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    const reconnectLines = p.lines.filter((l) => /ECONNREFUSED/.test(l)).length;
    expect(reconnectLines, p.lines.join("\n")).toBeLessThanOrEqual(2); // not twice a second
    const t0 = Date.now();
    p.proc.kill("SIGTERM");
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r("still running"), 15_000))]);
    expect(code).not.toBe("still running");
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(alive(p.proc.pid)).toBe(false);
  }, 150_000);
});

describe("an endpoint that answers HTML", () => {
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!DOCTYPE html><html><head><title>Login</title></head><body>proxy</body></html>"),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("is named as an HTML page with a hint about the base URL (it said 'has no choices')", async () => {
    const out = join(dir, "html");
    const p = retrace([
      "run",
      "--policy",
      "openai",
      "--model",
      "m",
      "--task",
      "files-trash-menu",
      "--base-url",
      url,
      "--max-retries",
      "0",
      "--out",
      out,
    ]);
    procs.push(p);
    expect(await p.exited).toBe(2);
    expect(p.lines).toHaveLength(1);
    expect(p.lines[0]).toMatch(
      /answered an HTML page to GET .*\/models, not an API; check --base-url \(an OpenAI-compatible server's ends in \/v1/,
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
