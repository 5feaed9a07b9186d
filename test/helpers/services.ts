/**
 * Redis and PostgreSQL for the distributed-run tests. CI (`.ci/run` sources `.ci/services.sh`)
 * exports RETRACE_TEST_REDIS_URL and RETRACE_TEST_POSTGRES_URL; without them, a machine that has
 * `redis-server` and PostgreSQL's binaries gets private throwaway servers started here. Missing
 * binaries skip the tests with one line outside CI and fail them in CI.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtimeSettings } from "../../src/settings.ts";

const PG_ROOT = "/usr/lib/postgresql";

function pgBin(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, "bin", "initdb"))).sort((a, b) => Number(a) - Number(b));
  return versions.length ? join(PG_ROOT, versions[versions.length - 1], "bin") : undefined;
}

function hasRedis(): boolean {
  try {
    execFileSync("sh", ["-c", "command -v redis-server"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Whether the service tests run here (and why not). */
export function servicesAvailable(what: string): { run: boolean; assert(): void } {
  const env = !!(process.env.RETRACE_TEST_REDIS_URL && process.env.RETRACE_TEST_POSTGRES_URL);
  const missing = env ? [] : [...(hasRedis() ? [] : ["redis-server"]), ...(pgBin() ? [] : ["postgresql"])];
  const ci = runtimeSettings().ci;
  if (missing.length && !ci) process.stderr.write(`skipping ${what}: missing ${missing.join(", ")} (install: apt-get install redis-server postgresql, or source .ci/services.sh)\n`);
  return {
    run: missing.length === 0 || ci,
    assert() {
      if (missing.length) throw new Error(`${what} needs ${missing.join(", ")}: source .ci/services.sh (it installs and starts them)`);
    },
  };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A private PostgreSQL cluster (trust auth) that a test may restart. */
export interface PrivatePostgres {
  url: string;
  port: number;
  restart(): void;
  stop(): void;
}

/** Start a throwaway PostgreSQL cluster on a free loopback port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = pgBin();
  if (!bin) throw new Error("PostgreSQL binaries not found under /usr/lib/postgresql: source .ci/services.sh");
  const dir = mkdtempSync(join(tmpdir(), "retrace-pg-"));
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const as = (cmd: string, args: string[]) => (root ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe" }) : execFileSync(cmd, args, { stdio: "pipe" }));
  const port = await freePort();
  const data = join(dir, "data");
  as(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const ctl = (args: string[]) => as(join(bin, "pg_ctl"), ["-D", data, "-w", ...args]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  ctl(["-l", join(dir, "server.log"), "-o", opts, "start"]);
  as(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "retrace_test"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/retrace_test`,
    port,
    restart: () => ctl(["-m", "fast", "-l", join(dir, "server.log"), "-o", opts, "restart"]),
    stop() {
      try {
        ctl(["-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A private Redis (no persistence). */
export async function startPrivateRedis(): Promise<{ url: string; port: number; stop(): void }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "retrace-redis-"));
  const proc: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync("redis-cli", ["-p", String(port), "ping"], { stdio: "pipe" });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop() {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The shared test services: CI's (from the environment) or private ones started now. */
export async function testServices(): Promise<{ redisUrl: string; postgresUrl: string; stop(): void }> {
  const r = process.env.RETRACE_TEST_REDIS_URL;
  const p = process.env.RETRACE_TEST_POSTGRES_URL;
  if (r && p) return { redisUrl: r, postgresUrl: p, stop: () => {} };
  const redis = await startPrivateRedis();
  const pg = await startPrivatePostgres();
  return {
    redisUrl: redis.url,
    postgresUrl: pg.url,
    stop() {
      redis.stop();
      pg.stop();
    },
  };
}
