/**
 * CPU accounting for the scaling benchmarks: CPU seconds of processes (Linux /proc), and the
 * machine's own scaling for pure CPU work (N busy processes vs 1), measured in the same run, so a
 * worker-scaling ratio can be read against what this machine (and its other load) allows.
 */
import { spawn } from "node:child_process";
import { killOnBenchExit } from "./cleanup.ts";
import { readdirSync, readFileSync } from "node:fs";

/** CPU seconds (user + system) a process has used so far; 0 when it is gone or /proc is missing. */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100 on Linux)
  } catch {
    return 0;
  }
}

/** CPU seconds of every process whose command line matches `re` (e.g. the PostgreSQL server and its backends). */
export function cpuSecondsMatching(re: RegExp): number {
  let total = 0;
  let dirs: string[] = [];
  try {
    dirs = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const d of dirs) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ");
    } catch {
      continue;
    }
    if (re.test(cmd)) total += cpuSecondsOf(Number(d));
  }
  return total;
}

/** PostgreSQL server processes (postmaster and backends), not clients whose arguments mention postgres://. */
export const POSTGRES_PROCESSES = /^(postgres:|\S*\/postgres\s)/;
/** Redis server processes. */
export const REDIS_PROCESSES = /^\S*redis-server/;

const SPIN = `const end = Date.now() + Number(process.argv[1]); let n = 0, x = 1;
while (Date.now() < end) { for (let i = 0; i < 1e5; i++) x = (x * 1103515245 + 12345) % 2147483647; n++; }
process.stdout.write(String(n));`;

async function spinners(count: number, ms: number): Promise<number> {
  const runs = Array.from(
    { length: count },
    () =>
      new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, ["-e", SPIN, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
        killOnBenchExit(p);
        let out = "";
        p.stdout.on("data", (b: Buffer) => (out += b.toString()));
        p.on("exit", (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`spin process exited ${code}`))));
      }),
  );
  return (await Promise.all(runs)).reduce((a, b) => a + b, 0);
}

/**
 * Work done by `n` processes spinning at once / by one, over `ms` each: ~n on n idle cores, less when the cores are
 * shared.
 */
export async function machineScaling(n: number, ms = 1500): Promise<number> {
  const one = await spinners(1, ms);
  const many = await spinners(n, ms);
  return many / one;
}
