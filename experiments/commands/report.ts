/** `retrace report <dir>`: write report.html (and its report-files/ folder) for a run folder (or a folder of runs). */
import type { Command } from "commander";
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { checkOutDir } from "@retrace-cua/core/store/out-dir";
import { buildReport } from "../report/index.ts";
import { outFlag, quietFlag } from "./common-flags.ts";
import { optionalIntFlag } from "./numeric-flags.ts";

export function register(program: Command): void {
  program
    .command("report")
    .description(
      "Write report.html and its report-files/ folder (keep them together; no network needed): condition tables with CIs, Success@K curves, sweep charts, stability metrics, cost per success, recovery-evaluation tables, and a trajectory viewer reaching every episode (screenshots read from the run's blob store).",
    )
    .argument("<dir>", "a run folder (with results.jsonl) or a folder of runs")
    .addOption(outFlag("where to write the report (default: <dir>/report.html)", undefined, "file"))
    .option("--episodes <n>", "at most this many episodes per run in the trajectory viewer (default: every episode)")
    .addOption(quietFlag("print only the report path"))
    .action(async (dir: string, flags: { out?: string; episodes?: string; quiet?: boolean }) => {
      const episodes = optionalIntFlag("--episodes", flags.episodes, {
        min: 0,
        max: 1000,
        expect: "expected an integer from 0 to 1000 (episodes per run in the viewer)",
      });
      if (flags.out !== undefined) {
        if (!flags.out.trim() || flags.out.endsWith("/"))
          throw new ConfigError(`--out: expected a file path such as report.html, got "${flags.out}"`, {
            field: "out",
          });
        if (existsSync(flags.out) && statSync(flags.out).isDirectory())
          throw new ConfigError(
            `--out: ${flags.out} is a folder; give a file path such as ${join(flags.out, "report.html")}`,
            { field: "out" },
          );
        const missing = checkOutDir(dirname(resolve(flags.out)));
        if (missing.length)
          throw new ConfigError(
            `--out: the folder ${missing[0]} does not exist; create it or write the report elsewhere`,
            { field: "out" },
          );
      }
      const r = await buildReport(dir, {
        file: flags.out,
        ...(episodes !== undefined && { episodesPerRun: episodes }),
      });
      if (r.missing.length)
        process.stderr.write(
          `retrace: warning: ${r.missing.length} finished episode(s) are not in the viewer because their record is missing, e.g. ${r.missing[0]}; restore the file or re-run them (delete their lines from results.jsonl, then --resume)\n`,
        );
      if (!flags.quiet)
        process.stdout.write(
          `${r.runs} run(s), ${r.episodes} episodes in the viewer; ${megabytes(r.totalBytes)} in all: report.html ${megabytes(r.bytes)} plus ${r.chunks} chunk file(s) and screens beside it\n`,
        );
      process.stdout.write(`report: ${r.file}\n`);
    });
}

/** "4.7 MB", "0.3 MB", "12 KB" (small reports in KB, so a size never reads as 0.0 MB). */
export function megabytes(bytes: number): string {
  return bytes < 100_000 ? `${Math.max(1, Math.round(bytes / 1000))} KB` : `${(bytes / 1e6).toFixed(1)} MB`;
}
