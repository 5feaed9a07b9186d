/**
 * Issue 31: a PostgreSQL restart during `retrace run --checkpoint postgres://...` used to kill the
 * run with `Connection terminated unexpectedly`. Against a private PostgreSQL that this test
 * starts (and stops on any exit), the run is taken down for two seconds while episodes write
 * their checkpoints: the run rides it out (exit 0), keeps checkpointing after the restart, and
 * writes the same results.jsonl as an undisturbed run of the same config and seed. A server that
 * stays down past the retry budget (RETRACE_PG_RETRY_MS) ends the run with one line that names it
 * and the budget, keeping the results already written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeSettings } from "../../packages/core/src/settings.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { pgBin } from "../../packages/testing/src/local-services.ts";
import { retrace, stop, type CliProc } from "../helpers/cli-procs.ts";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/services.ts";

const available = !!pgBin();
if (!available && !runtimeSettings().ci)
  process.stderr.write(
    "skipping the PostgreSQL restart test: missing postgresql (apt-get install postgresql, or source .ci/services.sh)\n",
  );

const dir = mkdtempSync(join(tmpdir(), "retrace-ckpt-restart-"));
const CONFIG = {
  kind: "end-to-end",
  name: "checkpoint-restart",
  env: {
    kind: "simdesk",
    tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green", "cross-tidy-downloads"],
  },
  seeds: { count: 2 },
  maxRecoveryIterations: [2],
  options: { maxForwardSteps: 20 },
  pairs: [
    {
      name: "restart",
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { kind: "sim", profile: "decent" },
    },
  ],
};
const EPISODES = 16; // 4 tasks x 2 seeds x (baseline, recovery)
const configFile = join(dir, "config.json");
// Local runs name checkpoint threads by episode key: the second run gets its own pair name, or it
// would resume the first run's threads (whose blobs are in the first run's folder).
const goneConfigFile = join(dir, "config-gone.json");
let server: PrivatePostgres | undefined;
let run: CliProc | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Checkpoint rows so far (0 while the table does not exist yet or the server is down). */
async function checkpointRows(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  c.on("error", () => {});
  try {
    await c.connect();
    return (await c.query("SELECT count(*)::int AS n FROM checkpoints")).rows[0].n as number;
  } catch {
    return 0;
  } finally {
    await c.end().catch(() => {});
  }
}

const resultLines = (out: string): string[] => {
  try {
    return readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify(CONFIG));
  writeFileSync(goneConfigFile, JSON.stringify({ ...CONFIG, pairs: [{ ...CONFIG.pairs[0], name: "gone" }] }));
  if (available) server = await startPrivatePostgres();
}, 120_000);
afterAll(async () => {
  if (run) await stop(run, 5_000);
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(available || runtimeSettings().ci)(
  "a PostgreSQL restart during retrace run --checkpoint postgres://",
  () => {
    it("is ridden out: exit 0, checkpoints continue after the restart, and results.jsonl equals an undisturbed run's", async () => {
      expect(available, "PostgreSQL's binaries are needed: source .ci/services.sh").toBe(true);
      const plain = join(dir, "undisturbed");
      await runExperiment(parseExperimentConfig(CONFIG), createSimDeskRuntime(), { out: plain, workers: 2 });
      const expected = readFileSync(join(plain, "results.jsonl"));
      expect(expected.toString().trim().split("\n")).toHaveLength(EPISODES);

      const out = join(dir, "restarted");
      run = retrace(["run", configFile, "--checkpoint", server!.url, "--out", out, "-q", "--workers", "2"]);
      let exited = false;
      void run.exited.then(() => (exited = true));
      // Wait until episodes are writing checkpoints, then take the server down mid-run.
      let before = 0;
      for (const t0 = Date.now(); before < 20 && !exited && Date.now() - t0 < 120_000;) {
        await sleep(100);
        before = await checkpointRows(server!.url);
      }
      expect(exited, `the run ended before the restart:\n${run.lines.join("\n")}`).toBe(false);
      const doneBefore = resultLines(out).length;
      expect(doneBefore).toBeLessThan(EPISODES);
      server!.restart(2_000);

      expect(await run.exited, `the run did not survive the restart:\n${run.lines.join("\n")}`).toBe(0);
      // Episodes went on checkpointing after the restart (the restart did land mid-run).
      expect(await checkpointRows(server!.url)).toBeGreaterThan(before);
      expect(readFileSync(join(out, "results.jsonl")).equals(expected)).toBe(true);
    }, 300_000);

    it("a server that stays down past RETRACE_PG_RETRY_MS ends the run with one line naming the server and the budget; written results stay", async () => {
      const out = join(dir, "gone");
      run = retrace(["run", goneConfigFile, "--checkpoint", server!.url, "--out", out, "-q", "--workers", "2"], {
        RETRACE_PG_RETRY_MS: "3000",
      });
      let exited = false;
      void run.exited.then(() => (exited = true));
      const start = await checkpointRows(server!.url);
      for (
        const t0 = Date.now();
        (await checkpointRows(server!.url)) < start + 20 && !exited && Date.now() - t0 < 120_000;
      )
        await sleep(100);
      expect(exited, `the run ended before the server went away:\n${run.lines.join("\n")}`).toBe(false);
      const written = resultLines(out);
      server!.stop();
      const t0 = Date.now();
      expect(await run.exited).toBe(1);
      expect(Date.now() - t0).toBeLessThan(60_000);
      const errors = run.lines.filter((l) => l.startsWith("retrace: "));
      expect(errors, run.lines.join("\n")).toHaveLength(1);
      expect(errors[0]).toMatch(
        /PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/retrace_test stayed unreachable for \d+ s \(.*\); start it, or give it longer with RETRACE_PG_RETRY_MS \(now 3000 ms\)$/,
      );
      expect(resultLines(out).slice(0, written.length)).toEqual(written);
    }, 300_000);
  },
);
