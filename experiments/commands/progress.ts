/**
 * Progress of a run on stderr: a line redrawn in place on a terminal, or a full line every 30 s
 * when stderr is not a terminal (`nohup`, CI logs), so a long run always shows signs of life.
 * Each line says episodes done, success so far, environment errors, money spent (model runs) and
 * an ETA from the episodes this process has finished in the phase ("estimating" before the first
 * one; never NaN or Infinity). Also: the Ctrl-C message that names the `--resume` command.
 */
import type { PoolProgress } from "../runner/pool.ts";

/** Options of {@link progressReporter}. */
export interface ProgressOptions {
  /** Dollars spent so far (model runs); omitted from the line when absent. */
  spent?: () => number;
  /** Redraw one line (terminal) or print a line per interval. @default process.stderr.isTTY */
  tty?: boolean;
  /** Seconds between lines when not a terminal. @default $RETRACE_PROGRESS_SECONDS or 30 */
  intervalSeconds?: number;
  /** Where lines go. @default process.stderr */
  write?: (text: string) => void;
  /** Clock (tests). @default Date.now */
  now?: () => number;
}

/** "45s", "3m 05s", "1h 02m". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * Time left for `remaining` episodes when `finished` took `elapsedMs` (undefined until one
 * finished: no guess from nothing).
 */
export function etaMs(finished: number, elapsedMs: number, remaining: number): number | undefined {
  if (finished <= 0 || elapsedMs <= 0 || remaining < 0) return undefined;
  const eta = (elapsedMs / finished) * remaining;
  return Number.isFinite(eta) ? eta : undefined;
}

/** A progress reporter: per phase, a redrawn line or periodic lines on stderr; nothing when quiet. */
export function progressReporter(
  quiet: boolean,
  prefix = "",
  options: ProgressOptions = {},
): { onProgress: (phase: string, s: PoolProgress) => void; stop: () => void } {
  if (quiet) return { onProgress: () => {}, stop: () => {} };
  const tty = options.tty ?? Boolean(process.stderr.isTTY);
  const write = options.write ?? ((t: string) => void process.stderr.write(t));
  const now = options.now ?? Date.now;
  const env = Number(process.env.RETRACE_PROGRESS_SECONDS);
  const interval = 1000 * (options.intervalSeconds ?? (Number.isFinite(env) && env > 0 ? env : 30));
  let phase = "";
  let base = 0;
  let started = 0;
  let lastDraw = -Infinity;
  let open = false;
  const line = (s: PoolProgress) => {
    const finished = s.done - base;
    const eta =
      s.done >= s.total
        ? "done"
        : (() => {
            const e = etaMs(finished, now() - started, s.total - s.done);
            return e === undefined ? "estimating" : formatDuration(e);
          })();
    const succ = s.valid ? `${((100 * s.successes) / s.valid).toFixed(1)}% (${s.successes}/${s.valid})` : "n/a";
    const spent = options.spent ? ` | spent $${options.spent().toFixed(4)}` : "";
    return `${prefix}${phase}: ${s.done}/${s.total} episodes | success ${succ} | env errors ${s.envErrors}${spent} | ETA ${eta}`;
  };
  const stop = () => {
    if (tty && open) write("\n");
    open = false;
  };
  const onProgress = (p: string, s: PoolProgress) => {
    const t = now();
    if (p !== phase) {
      stop();
      phase = p;
      base = s.done;
      started = t;
      lastDraw = -Infinity;
    }
    const end = s.done >= s.total;
    if (tty) {
      if (t - lastDraw < 200 && !end) return;
      write(`\r${line(s)}\u001b[K`);
      open = true;
    } else {
      if (t - lastDraw < interval && !end) return;
      write(`${line(s)}\n`);
    }
    lastDraw = t;
  };
  return { onProgress, stop };
}

/** The command that continues this run: the same argv with `--out <out>` and `--resume`. */
export function resumeCommand(argv: readonly string[], out: string): string {
  const args = [...argv];
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  if (!args.some((a) => a === "-o" || a === "--out" || a.startsWith("--out="))) args.push("--out", out);
  if (!args.includes("--resume")) args.push("--resume");
  return `npx retrace ${args.map(quote).join(" ")}`;
}

/**
 * On the first Ctrl-C (SIGINT): say where the finished episodes are and how to continue, then
 * exit 130. Finished episodes are already in results.jsonl (appended as they finish), so nothing
 * is lost but the episodes in flight. Returns a function that removes the handler.
 */
export function onInterrupt(out: string, argv: readonly string[] = process.argv.slice(2)): () => void {
  const handler = () => {
    process.stderr.write(
      `\n\ninterrupted: finished episodes are saved in ${out} (the ones in flight will re-run).\ncontinue with:\n  ${resumeCommand(argv, out)}\n`,
    );
    process.exit(130);
  };
  process.once("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}
