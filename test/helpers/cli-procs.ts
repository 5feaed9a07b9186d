/**
 * Child `retrace` processes for the distributed tests: workers and coordinators started through
 * the real CLI launcher, with their stderr collected line by line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../experiments/bin/retrace.mjs", import.meta.url));

/** A started `retrace` process. */
export interface CliProc {
  proc: ChildProcess;
  /** Every stderr+stdout line so far. */
  lines: string[];
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Resolve when a line matches (rejects after `timeoutMs`). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
}

/** Start `retrace ...args`. */
export function retrace(args: string[], env: NodeJS.ProcessEnv = {}): CliProc {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, RETRACE_LOG_LEVEL: "error", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  const onData = (buf: Buffer) => {
    for (const l of buf.toString().split("\n")) {
      if (!l) continue;
      lines.push(l);
      for (const w of [...waiters])
        if (w.re.test(l)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(l);
        }
    }
  };
  proc.stdout!.on("data", onData);
  proc.stderr!.on("data", onData);
  const exited = new Promise<number | string>((resolve) =>
    proc.on("exit", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  return {
    proc,
    lines,
    exited,
    waitFor(re, timeoutMs = 60_000) {
      const seen = lines.find((l) => re.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () =>
            reject(new Error(`no line matching ${re} within ${timeoutMs} ms; got:\n${lines.slice(-15).join("\n")}`)),
          timeoutMs,
        );
        waiters.push({ re, resolve: (l) => (clearTimeout(t), resolve(l)) });
      });
    },
  };
}

/** Stop a process gracefully and wait for it (SIGKILL after `graceMs`). */
export async function stop(p: CliProc, graceMs = 15_000): Promise<void> {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.kill("SIGTERM");
  const t = setTimeout(() => p.proc.kill("SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(t);
}
