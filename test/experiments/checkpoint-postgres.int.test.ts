/**
 * `retrace run CONFIG --checkpoint postgres://...` on a local (non-queued) run, against a real
 * PostgreSQL: CI's (RETRACE_TEST_POSTGRES_URL) or a private throwaway cluster. The run completes,
 * its episodes leave LangGraph checkpoint rows, and results.jsonl is byte-identical to a run
 * without checkpoints. An unreachable server fails up front with one line, before anything is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeSettings } from "../../packages/core/src/settings.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { pgBin } from "../../packages/testing/src/local-services.ts";
import { checkpointThread } from "../../experiments/runner/checkpoints.ts";
import { retrace } from "../helpers/cli-procs.ts";
import { freePort, startPrivatePostgres, type PrivatePostgres } from "../helpers/services.ts";

const given = process.env.RETRACE_TEST_POSTGRES_URL;
const available = !!given || !!pgBin();
if (!available && !runtimeSettings().ci)
  process.stderr.write(
    "skipping the --checkpoint postgres:// tests: missing postgresql (apt-get install postgresql, or source .ci/services.sh)\n",
  );

const dir = mkdtempSync(join(tmpdir(), "retrace-ckpt-pg-"));
// Checkpoint threads are named by run folder and episode key (CI shares one database).
const PAIR = "ckpt";
const CONFIG = {
  kind: "end-to-end",
  name: "checkpoint-postgres",
  env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
  seeds: { count: 1 },
  maxRecoveryIterations: [2],
  options: { maxForwardSteps: 20 },
  pairs: [
    {
      name: PAIR,
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { kind: "sim", profile: "decent" },
    },
  ],
};
const configFile = join(dir, "config.json");
let url = "";
let server: PrivatePostgres | undefined;

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify(CONFIG));
  if (!available) return;
  if (given) url = given;
  else {
    server = await startPrivatePostgres();
    url = server.url;
  }
});
afterAll(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(available || runtimeSettings().ci)("retrace run --checkpoint postgres://", () => {
  it("completes, leaves one checkpoint thread per episode, and writes the same results as a run without checkpoints", async () => {
    expect(available, "PostgreSQL is needed: source .ci/services.sh").toBe(true);
    const out = join(dir, "pg");
    const run = retrace(["run", configFile, "--checkpoint", url, "--out", out, "-q", "--workers", "2"]);
    expect(await run.exited, run.lines.join("\n")).toBe(0);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; status: string });
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.status === "ok")).toBe(true);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const prefix = checkpointThread(out, "");
      expect(prefix).toMatch(/^run-[0-9a-f]{12}\/$/);
      const rows = (
        await c.query(
          "SELECT thread_id, count(*)::int AS n FROM checkpoints WHERE thread_id LIKE $1 GROUP BY thread_id ORDER BY thread_id",
          [`${prefix}%`],
        )
      ).rows as Array<{ thread_id: string; n: number }>;
      expect(rows.map((r) => r.thread_id)).toEqual(lines.map((l) => checkpointThread(out, l.key)).sort());
      for (const r of rows) expect(r.n).toBeGreaterThan(1);
    } finally {
      await c.end();
    }

    const plain = join(dir, "none");
    await runExperiment(parseExperimentConfig(CONFIG), createSimDeskRuntime(), { out: plain, workers: 1 });
    expect(readFileSync(join(out, "results.jsonl")).equals(readFileSync(join(plain, "results.jsonl")))).toBe(true);
  });

  it("keeps two runs of one config into different folders apart on one database (each writes its own threads)", async () => {
    expect(available, "PostgreSQL is needed: source .ci/services.sh").toBe(true);
    const outs = [join(dir, "twin-a"), join(dir, "twin-b")];
    for (const out of outs) {
      const run = retrace(["run", configFile, "--checkpoint", url, "--out", out, "-q", "--workers", "2"]);
      expect(await run.exited, run.lines.join("\n")).toBe(0);
    }
    expect(readFileSync(join(outs[0], "results.jsonl")).equals(readFileSync(join(outs[1], "results.jsonl")))).toBe(
      true,
    );
    expect(checkpointThread(outs[0], "k")).not.toBe(checkpointThread(outs[1], "k"));
  });

  it("refuses an unreachable server with one line naming --checkpoint, before writing anything", async () => {
    const out = join(dir, "unreachable");
    const run = retrace([
      "run",
      configFile,
      "--checkpoint",
      `postgres://postgres@127.0.0.1:${await freePort()}/nothing`,
      "--out",
      out,
      "-q",
    ]);
    expect(await run.exited).not.toBe(0);
    expect(
      run.lines.some((l) =>
        /--checkpoint: cannot set up the PostgreSQL checkpointer at postgres:\/\/postgres@127\.0\.0\.1:\d+\/nothing/.test(
          l,
        ),
      ),
      run.lines.join("\n"),
    ).toBe(true);
    expect(existsSync(join(out, "manifest.json"))).toBe(false);
    expect(existsSync(join(out, "results.jsonl"))).toBe(false);
  });
});
