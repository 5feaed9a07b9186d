/**
 * `retrace export --osworld <run> --out <dir>`: OSWorld's per-episode layout (step PNGs, traj.jsonl, result.txt) of a
 * run folder.
 */
import { outFlag } from "./common-flags.ts";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { exportOsworld } from "../report/export-osworld.ts";

export function register(program: Command): void {
  program
    .command("export")
    .description(
      "Write OSWorld's per-episode layout (traj.jsonl, step_N.png, result.txt, result.json) for a run folder or a folder of runs. Runs keep each screenshot once in their blob store; this copies them out per episode.",
    )
    .option("--osworld <run-dir>", "the run folder (with results.jsonl) or folder of runs (e.g. the demo's) to export")
    .addOption(outFlag("output folder (new or empty, outside the run folder)").makeOptionMandatory())
    .option("-q, --quiet", "print only the summary line")
    .action(async (flags: { osworld?: string; out: string; quiet?: boolean }) => {
      if (!flags.osworld)
        throw new ConfigError("export: pass --osworld <run-dir> (the only export format so far)", { field: "osworld" });
      let last = 0;
      const r = await exportOsworld({
        dir: flags.osworld,
        out: flags.out,
        onEpisode: (done, total) => {
          if (flags.quiet || Date.now() - last < 2000) return;
          last = Date.now();
          process.stderr.write(`export: ${done}/${total} episodes\n`);
        },
      });
      process.stdout.write(
        `exported ${r.episodes} episodes (${r.screenshots} screenshots) of ${r.runs} run(s) to ${r.out}${r.missing ? `; ${r.missing} episode(s) had no trajectory.json` : ""}\n`,
      );
    });
}
