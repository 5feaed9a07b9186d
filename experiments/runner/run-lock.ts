/**
 * One run per output folder (issue 31): `run-lock` holds the pid of the process writing into the
 * folder, created exclusively, so that two `run`s into one fresh --out, or two `--resume`s of one
 * run, do not interleave their files. A lock whose process is gone (a killed run) is taken over.
 */
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { processAlive as alive } from "@retrace-cua/core/store/file-lock";

/** The lock file's name inside the run folder. */
export const RUN_LOCK = "run.lock";

/** Take the folder's lock or throw a ConfigError naming the process that holds it; returns the release function. */
export function acquireRunLock(out: string): () => void {
  mkdirSync(out, { recursive: true });
  const file = join(out, RUN_LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      const release = () => {
        process.off("exit", release);
        try {
          if (Number(readFileSync(file, "utf8").trim()) === process.pid) rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let pid = NaN;
      try {
        pid = Number(readFileSync(file, "utf8").trim());
      } catch {
        // removed meanwhile: try again
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new ConfigError(
          `--out: another retrace process (pid ${pid}) is writing into ${out}; wait for it to end, or choose another --out`,
          { field: "out" },
        );
      rmSync(file, { force: true }); // a killed run's lock
    }
  }
  throw new ConfigError(
    `--out: cannot lock ${out} (${RUN_LOCK} keeps reappearing); is another retrace run starting there?`,
    { field: "out" },
  );
}
