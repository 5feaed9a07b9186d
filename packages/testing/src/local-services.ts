/**
 * Throwaway Redis and PostgreSQL servers on 127.0.0.1 free ports, for tests and the benchmark:
 * Redis without persistence, a PostgreSQL cluster from `initdb -A trust` (run as the postgres user
 * when we are root, since PostgreSQL refuses root). Both need the Debian packages (redis-server,
 * postgresql); `.ci/services.sh` installs them.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";

const PG_ROOT = "/usr/lib/postgresql";

/** The newest PostgreSQL bin folder under /usr/lib/postgresql, if any. */
export function pgBin(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, "bin", "initdb")))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length ? join(PG_ROOT, versions[versions.length - 1], "bin") : undefined;
}

/** Whether redis-server is on the PATH. */
export function hasRedis(): boolean {
  try {
    execFileSync("sh", ["-c", "command -v redis-server"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
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

/** Stop routines of the private servers still running in this process. */
const live = new Set<() => void>();
const stopAll = () => {
  for (const stop of [...live]) {
    live.delete(stop);
    try {
      stop();
    } catch {
      // best effort at exit: the next server still gets its stop
    }
  }
};
const onSignal = (signal: NodeJS.Signals) => {
  stopAll();
  process.exit(signal === "SIGINT" ? 130 : 143);
};

/**
 * Register a private server's stop routine until it is stopped: on exit, SIGTERM or SIGINT of this
 * process it runs, so a killed test leaves no PostgreSQL (pg_ctl daemonizes it) or Redis behind.
 * The signal handlers are installed only while a private server runs.
 */
function tracked(stop: () => void): () => void {
  if (live.size === 0) {
    process.on("exit", stopAll);
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    live.delete(once);
    if (live.size === 0) {
      process.off("exit", stopAll);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
    stop();
  };
  live.add(once);
  return once;
}

/** A private PostgreSQL cluster (trust auth) that a test may restart. */
export interface PrivatePostgres {
  url: string;
  port: number;
  /**
   * Restart the server (`pg_ctl -m fast`: open connections are terminated). With `downMs`, it is
   * stopped, left down that long (clients get ECONNREFUSED), then started again.
   */
  restart(downMs?: number): void;
  stop(): void;
}

/** Start a throwaway PostgreSQL cluster on a free loopback port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = pgBin();
  if (!bin) throw new ConfigError("PostgreSQL binaries not found under /usr/lib/postgresql: source .ci/services.sh");
  const dir = mkdtempSync(join(tmpdir(), "retrace-pg-"));
  const root = process.getuid?.() === 0;
  if (root)
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
      Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
    );
  const as = (cmd: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe" })
      : execFileSync(cmd, args, { stdio: "pipe" });
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
    restart: (downMs = 0) => {
      if (downMs <= 0) return void ctl(["-m", "fast", "-l", join(dir, "server.log"), "-o", opts, "restart"]);
      ctl(["-m", "fast", "stop"]);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, downMs);
      ctl(["-l", join(dir, "server.log"), "-o", opts, "start"]);
    },
    stop: tracked(() => {
      try {
        ctl(["-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  };
}

/** A private Redis (no persistence). */
export async function startPrivateRedis(): Promise<{ url: string; port: number; stop(): void }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "retrace-redis-"));
  const proc: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
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
    stop: tracked(() => {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }),
  };
}
