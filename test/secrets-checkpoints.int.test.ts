/**
 * Issue 20: the API key a model server echoes into its answers must reach no byte a run leaves,
 * LangGraph's checkpoints included. The detector and selector of the config are model agents at a
 * local server that echoes the caller's key in every answer (the chaos server's `echo-key` fault,
 * at rate 1); the echoed text lands in graph state, so each checkpointer stores it. Checked: every
 * file under the run folder (SQLite and its WAL included), every row of every PostgreSQL table
 * (bytea columns as text and as hex), and every Redis value of a distributed run whose worker
 * keeps its checkpoints. Each case also proves the echo reached the store (as "[redacted]").
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeSettings } from "../packages/core/src/settings.ts";
import { pgBin } from "../packages/testing/src/local-services.ts";
import { startChaosModelServer, type ChaosModelServer } from "../experiments/chaos/model-server.ts";
import { chaosAnswer } from "../experiments/chaos/runtime.ts";
import { retrace, stop, type CliProc } from "./helpers/cli-procs.ts";
import {
  servicesAvailable,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
} from "./helpers/services.ts";

const KEY = "echo-secret-4f9a2b7c1d0e";
const KEY_HEX = Buffer.from(KEY).toString("hex");
const MARK_HEX = Buffer.from("[redacted]").toString("hex");
const ENV = { RETRACE_ECHO_TEST_KEY: KEY };

const dir = mkdtempSync(join(tmpdir(), "retrace-echo-ckpt-"));
const procs: CliProc[] = [];
let server: ChaosModelServer;
let configFile = "";

function allFiles(d: string): string[] {
  return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? allFiles(join(d, n)) : [join(d, n)]));
}

/** Files under `root` holding the key. */
function filesWithKey(root: string): string[] {
  return allFiles(root).filter((f) => readFileSync(f).includes(KEY));
}

/** Every row of every user table as text (bytea columns come out as hex). */
async function dumpTables(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = (
      await c.query(
        "SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
      )
    ).rows as Array<{ schemaname: string; tablename: string }>;
    const out: Record<string, string> = {};
    for (const t of tables) {
      const rows = await c.query(`SELECT row_to_json(x)::text AS j FROM "${t.schemaname}"."${t.tablename}" x`);
      out[`${t.schemaname}.${t.tablename}`] = rows.rows.map((r: { j: string }) => r.j).join("\n");
    }
    return out;
  } finally {
    await c.end();
  }
}

const holdsKey = (text: string) => text.includes(KEY) || text.toLowerCase().includes(KEY_HEX);

beforeAll(async () => {
  server = await startChaosModelServer({ seed: 1, rate: 1, faults: ["echo-key"], answer: chaosAnswer });
  const model = { kind: "model", baseUrl: server.url, model: "echo-model", apiKeyEnv: "RETRACE_ECHO_TEST_KEY" };
  configFile = join(dir, "config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      kind: "end-to-end",
      name: "echo-checkpoints",
      env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
      seeds: [0],
      maxRecoveryIterations: [2],
      baseline: false,
      options: { maxForwardSteps: 12, recoveryStep: "llm" },
      pairs: [
        {
          name: `p${Date.now().toString(36)}`,
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: model,
          selector: model,
        },
      ],
    }),
  );
});
afterAll(async () => {
  for (const p of procs) await stop(p, 5_000);
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<void> {
  const p = retrace(args, ENV);
  procs.push(p);
  expect(await p.exited, p.lines.join("\n")).toBe(0);
}

describe("an echoed key in checkpoints", () => {
  it("--checkpoint sqlite: no file of the run holds the key, and the checkpoint file holds the redacted echo", async () => {
    const out = join(dir, "sqlite");
    const before = server.requests;
    await run(["run", configFile, "--checkpoint", "sqlite", "--out", out, "-q", "-w", "1"]);
    expect(server.requests - before).toBeGreaterThan(2);
    const files = allFiles(out);
    expect(files.some((f) => f.endsWith("checkpoints.sqlite"))).toBe(true);
    expect(filesWithKey(out)).toEqual([]);
    expect(readFileSync(join(out, "checkpoints.sqlite")).includes("[redacted]")).toBe(true);
  }, 120_000);

  const pgAvailable = !!process.env.RETRACE_TEST_POSTGRES_URL || !!pgBin();
  describe.runIf(pgAvailable || runtimeSettings().ci)("with PostgreSQL", () => {
    let pgServer: PrivatePostgres | undefined;
    let url = "";
    beforeAll(async () => {
      if (process.env.RETRACE_TEST_POSTGRES_URL) url = process.env.RETRACE_TEST_POSTGRES_URL;
      else {
        pgServer = await startPrivatePostgres();
        url = pgServer.url;
      }
    }, 60_000);
    afterAll(() => pgServer?.stop());

    it("--checkpoint postgres://: no file and no row of any table holds the key; checkpoint_blobs and checkpoint_writes hold the redacted echo", async () => {
      const out = join(dir, "pg");
      await run(["run", configFile, "--checkpoint", url, "--out", out, "-q", "-w", "2"]);
      expect(filesWithKey(out)).toEqual([]);
      const tables = await dumpTables(url);
      expect(Object.keys(tables)).toEqual(
        expect.arrayContaining(["public.checkpoints", "public.checkpoint_blobs", "public.checkpoint_writes"]),
      );
      expect(
        Object.entries(tables)
          .filter(([, text]) => holdsKey(text))
          .map(([t]) => t),
      ).toEqual([]);
      expect(
        tables["public.checkpoint_writes"].toLowerCase() + tables["public.checkpoint_blobs"].toLowerCase(),
      ).toContain(MARK_HEX);
    }, 180_000);
  });

  const services = servicesAvailable("the distributed echo test");
  describe.runIf(services.run)("distributed, worker with --keep-checkpoints", () => {
    it("no file, PostgreSQL row or Redis value holds the key", async () => {
      services.assert();
      const redis = await startPrivateRedis();
      const pgs = await startPrivatePostgres();
      try {
        const out = join(dir, "dist");
        const q = `echo${Date.now().toString(36)}`;
        const worker = retrace(
          [
            "worker",
            "--queue",
            redis.url,
            "--store",
            pgs.url,
            "--queue-name",
            q,
            "--keep-checkpoints",
            "--work-dir",
            join(dir, "worker-cache"),
            "--quiet",
          ],
          ENV,
        );
        procs.push(worker);
        await run(["run", configFile, "--queue", redis.url, "--store", pgs.url, "--queue-name", q, "--out", out, "-q"]);
        await stop(worker, 10_000);
        expect(filesWithKey(out)).toEqual([]);
        expect(filesWithKey(join(dir, "worker-cache"))).toEqual([]);
        const tables = await dumpTables(pgs.url);
        expect(tables["public.checkpoint_writes"].length).toBeGreaterThan(0); // kept, not deleted
        expect(
          Object.entries(tables)
            .filter(([, text]) => holdsKey(text))
            .map(([t]) => t),
        ).toEqual([]);
        expect(
          tables["public.checkpoint_writes"].toLowerCase() + tables["public.checkpoint_blobs"].toLowerCase(),
        ).toContain(MARK_HEX);
        const r = new Redis(redis.url, { maxRetriesPerRequest: 1 });
        try {
          const keys = await r.keys("*");
          expect(keys.length).toBeGreaterThan(0);
          const values: string[] = [];
          for (const k of keys) {
            const type = await r.type(k);
            if (type === "string") values.push((await r.getBuffer(k))?.toString("latin1") ?? "");
            else if (type === "hash") values.push(JSON.stringify(await r.hgetall(k)));
            else if (type === "list") values.push(JSON.stringify(await r.lrange(k, 0, -1)));
            else if (type === "set") values.push(JSON.stringify(await r.smembers(k)));
            else if (type === "zset") values.push(JSON.stringify(await r.zrange(k, "0", "-1")));
            else if (type === "stream") values.push(JSON.stringify(await r.xrange(k, "-", "+")));
          }
          expect(values.filter(holdsKey)).toEqual([]);
        } finally {
          r.disconnect();
        }
      } finally {
        redis.stop();
        pgs.stop();
      }
    }, 240_000);
  });
});
