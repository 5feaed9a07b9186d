/** `retrace report <dir>`: write one self-contained report.html for a run folder (or a folder of runs). */
import type { Command } from "commander";
import { buildReport } from "../report/index.ts";

export function register(program: Command): void {
  program
    .command("report")
    .description("Write one self-contained report.html (no network needed): condition tables with CIs, Success@K curves, sweep charts, stability metrics, cost per success, recovery-evaluation tables, and a trajectory viewer.")
    .argument("<dir>", "a run folder (with results.jsonl) or a folder of runs")
    .option("-o, --out <file>", "where to write the report (default: <dir>/report.html)")
    .option("--episodes <n>", "episodes per run in the trajectory viewer", "8")
    .option("-q, --quiet", "print only the report path")
    .action(async (dir: string, flags: { out?: string; episodes: string; quiet?: boolean }) => {
      const r = await buildReport(dir, { file: flags.out, episodesPerRun: Math.max(0, Number(flags.episodes) || 0) });
      if (!flags.quiet) process.stdout.write(`${r.runs} run(s), ${r.episodes} episodes in the viewer, ${r.images} screenshots, ${(r.bytes / 1e6).toFixed(1)} MB\n`);
      process.stdout.write(`report: ${r.file}\n`);
    });
}
