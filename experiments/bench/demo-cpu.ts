/**
 * `demo-cpu`: CPU time per episode of the tiny demo (`runDemo({ size: "tiny", inProcess: true })`,
 * one fresh process per run, process.cpuUsage around a second demo after a warm-up one, so module
 * loading and JIT are not counted; its libvips threads count, as cpuUsage sees the whole process)
 * for this tree and for the baseline commit side by side, in one run: the baseline's sources are
 * unpacked once (`git archive`) into the temp folder with this tree's node_modules linked in, and
 * the runs alternate baseline, this tree, baseline, this tree... so that a neighbour's load falls
 * on both alike. The line is this tree's median over the baseline's (target <= 1.0: the demo is no
 * slower than at c02bc31, issue 42). RETRACE_DEMO_BASELINE picks another commit,
 * RETRACE_DEMO_RUNS the runs per side (default 3).
 */
import { execFileSync, execSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunFailedError } from "@retrace-cua/core/errors";
import { ROOT } from "./consumer-project.ts";
import type { BenchResult } from "./result.ts";

/** The commit the demo must be no slower than (issue 42: the demo before wave 4). */
export const BASELINE_COMMIT = process.env.RETRACE_DEMO_BASELINE ?? "c02bc31";
/** This tree's CPU per episode over the baseline's. */
export const TARGET = 1.0;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The baseline's sources in the temp folder (unpacked once per commit), with this tree's node_modules. */
export function baselineTree(commit: string): string {
  const sha = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], { cwd: ROOT })
    .toString()
    .trim();
  const dir = join(tmpdir(), `retrace-demo-${sha.slice(0, 12)}`);
  if (!existsSync(join(dir, ".complete"))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${sha} | tar -x -C ${JSON.stringify(dir)}`, {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
    });
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
    writeFileSync(join(dir, ".complete"), sha);
  }
  return dir;
}

/** The child's script: a warm-up tiny demo, then the measured one; prints CPU ms and episodes. */
function driver(tree: string): string {
  return `
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const { runDemo } = await import(${JSON.stringify(join(tree, "experiments/commands/demo.ts"))});
const once = async () => {
  const base = mkdtempSync(join(tmpdir(), "bench-demo-"));
  const out = join(base, "demo");
  try {
    const c0 = process.cpuUsage();
    await runDemo({ out, size: "tiny", workers: 1, seedBase: 0, resume: false, quiet: true, inProcess: true });
    const c = process.cpuUsage(c0);
    const episodes = ["ideal", "e2e", "sweep"].reduce((n, p) => n + readFileSync(join(out, p, "results.jsonl"), "utf8").trim().split("\\n").length, 0);
    return { ms: (c.user + c.system) / 1e3, episodes };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
};
await once();
process.stdout.write("\\nDEMO-CPU " + JSON.stringify(await once()) + "\\n");
process.exit(0);
`;
}

/** One fresh process running the tiny demo of `tree`: CPU ms per episode. */
function demoRun(tree: string, script: string): { msPerEpisode: number; episodes: number } {
  const tsx = join(ROOT, "node_modules", ".bin", "tsx");
  const out = execFileSync(tsx, [script], { cwd: tree, maxBuffer: 64 * 1024 * 1024, timeout: 1_800_000 }).toString();
  const line = out.split("\n").find((l) => l.startsWith("DEMO-CPU "));
  if (!line) throw new RunFailedError(`demo-cpu: no DEMO-CPU line from the demo in ${tree}:\n${out.slice(-2000)}`);
  const { ms, episodes } = JSON.parse(line.slice("DEMO-CPU ".length)) as { ms: number; episodes: number };
  return { msPerEpisode: ms / episodes, episodes };
}

export async function run(): Promise<BenchResult[]> {
  const runs = Number(process.env.RETRACE_DEMO_RUNS ?? 3);
  const old = baselineTree(BASELINE_COMMIT);
  const scriptDir = join(tmpdir(), `bench-demo-cpu-${process.pid}`);
  mkdirSync(scriptDir, { recursive: true });
  const oldScript = join(scriptDir, "old.mts");
  const newScript = join(scriptDir, "new.mts");
  writeFileSync(oldScript, driver(old));
  writeFileSync(newScript, driver(ROOT));
  try {
    const before: number[] = [];
    const after: number[] = [];
    let episodes = { before: 0, after: 0 };
    for (let i = 0; i < runs; i++) {
      const b = demoRun(old, oldScript);
      const a = demoRun(ROOT, newScript);
      before.push(b.msPerEpisode);
      after.push(a.msPerEpisode);
      episodes = { before: b.episodes, after: a.episodes };
    }
    const ratio = median(after) / median(before);
    return [
      {
        name: "demo-cpu",
        ratioOf: `tiny demo CPU ms per episode, this tree over ${BASELINE_COMMIT} (side by side, alternating, median of ${runs} fresh processes each)`,
        ratio,
        target: `<= ${TARGET}`,
        pass: ratio <= TARGET,
        details: {
          cpuMsPerEpisode: Number(median(after).toFixed(1)),
          baselineCpuMsPerEpisode: Number(median(before).toFixed(1)),
          episodes: episodes.after,
          baselineEpisodes: episodes.before,
          runs: after.map((x) => Math.round(x)).join("/"),
          baselineRuns: before.map((x) => Math.round(x)).join("/"),
        },
      },
    ];
  } finally {
    rmSync(scriptDir, { recursive: true, force: true });
  }
}
