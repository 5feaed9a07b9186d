/**
 * Distributed runs against real Redis and PostgreSQL, through the real CLI: worker processes
 * killed with SIGKILL mid-episode, a worker cut off from Redis for a few seconds, a PostgreSQL
 * restart mid-run. Every time: every episode stored exactly once, and results.jsonl byte-identical
 * to a local run of the same config and seed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, Socket, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runExperiment } from "../../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../../experiments/runtime/simdesk.ts";
import { retrace, stop, type CliProc } from "../../helpers/cli-procs.ts";
import { cli } from "../helpers/corpus.ts";
import { servicesAvailable, startPrivatePostgres, testServices, type PrivatePostgres } from "../../helpers/services.ts";

const services = servicesAvailable("the distributed-run tests");
const dir = mkdtempSync(join(tmpdir(), "retrace-dist-"));
const CONFIG = {
  kind: "end-to-end",
  name: "dist-test",
  env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green"] },
  seeds: { count: 2 },
  maxRecoveryIterations: [3],
  options: { maxForwardSteps: 20 },
  pairs: [
    {
      name: "skilled",
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { kind: "sim", profile: "decent" },
    },
  ],
};
const configFile = join(dir, "config.json");
let local: Buffer;
let redisUrl = "";
let postgresUrl = "";
let stopServices = () => {};
const procs: CliProc[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = (p: CliProc) => (procs.push(p), p);

function worker(queueName: string, opts: { redis?: string; postgres?: string; lockMs?: number } = {}): CliProc {
  return start(
    retrace([
      "worker",
      "--queue",
      opts.redis ?? redisUrl,
      "--store",
      opts.postgres ?? postgresUrl,
      "--queue-name",
      queueName,
      "--lock-ms",
      String(opts.lockMs ?? 2000),
      "--work-dir",
      join(dir, "cache"),
    ]),
  );
}
/** Files with this name anywhere under `dir`. */
function filesNamed(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f === name || f.endsWith(`/${name}`));
}

function coordinator(queueName: string, out: string, postgres = postgresUrl): CliProc {
  return start(
    retrace([
      "run",
      configFile,
      "--queue",
      redisUrl,
      "--store",
      postgres,
      "--queue-name",
      queueName,
      "--out",
      out,
      "-q",
      "--attempts",
      "5",
    ]),
  );
}

async function rowsOf(postgres: string, out: string): Promise<Array<{ key: string; line: string }>> {
  const { runId } = JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { runId: string };
  const c = new pg.Client({ connectionString: postgres });
  await c.connect();
  try {
    return (await c.query("SELECT key, line FROM retrace_results WHERE run_id = $1 ORDER BY idx", [runId])).rows;
  } finally {
    await c.end();
  }
}

/** Whether the episode `key` of the run at `out` has a LangGraph checkpoint in PostgreSQL. */
async function hasCheckpoints(postgres: string, out: string, key: string): Promise<boolean> {
  const { runId } = JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { runId: string };
  const c = new pg.Client({ connectionString: postgres });
  await c.connect();
  try {
    return (
      (await c.query("SELECT 1 FROM checkpoints WHERE thread_id LIKE $1 LIMIT 1", [`${runId}/${key}/%`])).rowCount! > 0
    );
  } finally {
    await c.end();
  }
}

/** How many LangGraph checkpoint threads of the run at `out` are left in PostgreSQL. */
async function checkpointThreadsOf(postgres: string, out: string): Promise<number> {
  const { runId } = JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { runId: string };
  const c = new pg.Client({ connectionString: postgres });
  await c.connect();
  try {
    return (
      await c.query("SELECT count(DISTINCT thread_id)::int AS n FROM checkpoints WHERE thread_id LIKE $1", [
        `${runId}/%`,
      ])
    ).rows[0].n as number;
  } finally {
    await c.end();
  }
}

async function expectExactlyOnce(postgres: string, out: string): Promise<void> {
  const rows = await rowsOf(postgres, out);
  expect(rows.length).toBe(12);
  expect(new Set(rows.map((r) => r.key)).size).toBe(12);
  expect(readFileSync(join(out, "results.jsonl")).equals(local)).toBe(true);
}

beforeAll(async () => {
  if (!services.run) return;
  services.assert();
  writeFileSync(configFile, JSON.stringify(CONFIG));
  const run = await runExperiment(parseExperimentConfig(CONFIG), createSimDeskRuntime(), {
    out: join(dir, "local"),
    workers: 2,
  });
  expect(run.lines).toHaveLength(12);
  local = readFileSync(join(dir, "local", "results.jsonl"));
  ({ redisUrl, postgresUrl, stop: stopServices } = await testServices());
}, 180_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => stop(p, 5_000)));
  stopServices();
});

describe.skipIf(!services.run)("distributed runs (BullMQ + PostgreSQL)", () => {
  it("3 workers, one SIGKILLed mid-episode three times: every episode once, results byte-identical to a local run", async () => {
    const q = `kill-${process.pid}`;
    const out = join(dir, "kill");
    let alive = [worker(q), worker(q), worker(q)];
    const run = coordinator(q, out);
    let exited = false;
    void run.exited.then(() => (exited = true));
    let kills = 0;
    const lastEvent = (w: CliProc) => [...w.lines].reverse().find((l) => /^(start|done) /.test(l));
    // SimDesk episodes take a few hundred ms: kill at several points into one, until three kills
    // landed (an episode that ended before its kill is skipped and the next delay tried).
    const delays = [60, 150, 300];
    for (let attempt = 0; kills < 3 && !exited && attempt < 40; attempt++) {
      const delay = delays[attempt % delays.length];
      // A worker in the middle of an episode, killed `delay` ms later if it is still in it.
      let victim: CliProc | undefined;
      let event: string | undefined;
      while (!exited && !victim) {
        victim = alive.find((w) => lastEvent(w)?.startsWith("start "));
        event = victim && lastEvent(victim);
        if (!victim) await sleep(10);
      }
      if (!victim) break;
      await sleep(delay);
      if (lastEvent(victim) !== event) continue;
      // The first kill waits until the episode has a checkpoint, so some worker must resume one.
      if (kills === 0 && !(await hasCheckpoints(postgresUrl, out, event!.slice("start ".length).split(" ")[0])))
        continue;
      victim.proc.kill("SIGKILL");
      await victim.exited;
      kills++;
      alive = [...alive.filter((w) => w !== victim), worker(q)];
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    const victims = alive;
    expect(await run.exited, `coordinator output:\n${run.lines.join("\n")}`).toBe(0);
    await expectExactlyOnce(postgresUrl, out);
    // At least one killed episode was picked up by another worker from its checkpoints.
    expect(procs.some((p) => p.lines.some((l) => l.includes("(resuming its checkpoints)")))).toBe(true);
    // Stored episodes' checkpoint threads are deleted (they only serve to resume unfinished ones).
    expect(await checkpointThreadsOf(postgresUrl, out)).toBe(0);
    await Promise.all(victims.map((v) => stop(v)));
  }, 300_000);

  it("status reports a queued run per condition and cancel stops it, keeping what is stored", async () => {
    const q = `cancel-${process.pid}`;
    const out = join(dir, "cancel");
    const run = coordinator(q, out); // no workers: everything stays queued
    // status and cancel run in this process (the CLI's main, as the launcher calls it): each
    // would otherwise be a whole CLI process start; the coordinator stays a process of its own.
    const status = async () => {
      const r = await cli(["status", out, "--queue", redisUrl, "--store", postgresUrl]);
      expect(r.code, r.stderr).toBe(0);
      return `${r.stderr}${r.stdout}`;
    };
    // Ask once the coordinator has written queue.json (it enqueues right after).
    for (let i = 0; i < 1200 && !existsSync(join(out, "queue.json")) && run.proc.exitCode === null; i++)
      await sleep(100);
    let text = "";
    // The coordinator writes queue.json just before it enqueues: until the jobs are in, status
    // reports the run with no condition row yet, so wait for the row as well.
    const queued = /skilled\.no-recovery\s+0\s+0\s+6\s+0/;
    for (let i = 0; i < 200 && !(/0\/12 episodes stored/.test(text) && queued.test(text)); i++) {
      if (i > 0) await sleep(250);
      text = await status().catch(() => "");
    }
    expect(text).toMatch(/0\/12 episodes stored/);
    expect(text).toMatch(queued);
    const cancel = await cli(["cancel", out, "--queue", redisUrl, "--store", postgresUrl]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(/cancelled: 12 queued episode\(s\) removed/);
    expect(await run.exited).toBe(2);
    expect(run.lines.join("\n")).toMatch(
      /was cancelled \(retrace cancel\); 0\/12 episodes are stored: re-run the same command to continue it/,
    );
    expect(await status()).toMatch(/CANCELLED: 0\/12/);
  }, 300_000);

  it("a worker that loses its Redis connection for 3 s reconnects and finishes the run", async () => {
    const q = `cut-${process.pid}`;
    const out = join(dir, "cut");
    const port = Number(new URL(redisUrl).port);
    const proxy = await tcpProxy(port);
    const proxied = `redis://127.0.0.1:${proxy.port}`;
    const ws = [worker(q, { redis: proxied, lockMs: 10_000 }), worker(q, { redis: proxied, lockMs: 10_000 })];
    const run = coordinator(q, out);
    await ws[0].waitFor(/^done /, 90_000);
    proxy.cut();
    // The coordinator fills the run folder while the run goes on: an episode finished before the
    // cut has its files in the folder before the run ends.
    const cutAt = Date.now();
    let filledEarly = false;
    while (!filledEarly && Date.now() - cutAt < 3_000) {
      await sleep(100);
      filledEarly = run.proc.exitCode === null && filesNamed(out, "result.txt").length > 0;
    }
    await sleep(Math.max(0, 3_000 - (Date.now() - cutAt)));
    expect(filledEarly).toBe(true);
    await proxy.restore();
    const after = ws.map((w) => w.lines.length);
    expect(await run.exited).toBe(0);
    await expectExactlyOnce(postgresUrl, out);
    // Episodes finished after the cut, by the workers that only reach Redis through the proxy.
    expect(ws.some((w, i) => w.lines.slice(after[i]).some((l) => l.startsWith("done ")))).toBe(true);
    await Promise.all(ws.map((w) => stop(w)));
    proxy.close();
  }, 300_000);

  it("an ideal-recovery run: forward runs on the workers, plan.json made by the coordinator and shipped to the workers for the continuations; same files as a local run", async () => {
    const q = `ideal-${process.pid}`;
    const IDEAL = {
      kind: "ideal-recovery",
      name: "dist-ideal",
      env: {
        kind: "simdesk",
        tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green", "cross-tidy-downloads"],
      },
      seeds: { count: 2 },
      k: 2,
      forward: { kind: "sim", profile: "sloppy" },
      detector: { kind: "sim", profile: "decent" },
      selector: { kind: "sim", profile: "accurate" },
      strategies: ["zero", "error-minus-1", "llm"],
      options: { maxForwardSteps: 30 },
    };
    const file = join(dir, "ideal.json");
    writeFileSync(file, JSON.stringify(IDEAL));
    const localRun = await runExperiment(parseExperimentConfig(IDEAL), createSimDeskRuntime(), {
      out: join(dir, "ideal-local"),
      workers: 2,
    });
    const continuations = localRun.lines.filter((l) => l.condition !== localRun.lines[0].condition).length;
    expect(continuations).toBeGreaterThan(0); // the check below covers the plan's shipping
    const ws = [worker(q), worker(q)];
    const out = join(dir, "ideal-queued");
    const run = start(
      retrace(["run", file, "--queue", redisUrl, "--store", postgresUrl, "--queue-name", q, "--out", out, "-q"]),
    );
    expect(await run.exited, `coordinator output:\n${run.lines.join("\n")}`).toBe(0);
    expect(
      readFileSync(join(out, "results.jsonl")).equals(readFileSync(join(dir, "ideal-local", "results.jsonl"))),
    ).toBe(true);
    expect(readFileSync(join(out, "plan.json")).equals(readFileSync(join(dir, "ideal-local", "plan.json")))).toBe(true);
    // the workers ran continuations (they had the plan), and stored no copy of plan.json per episode
    expect(ws.some((w) => w.lines.some((l) => /^done R=/.test(l)))).toBe(true);
    const c = new pg.Client({ connectionString: postgresUrl });
    await c.connect();
    try {
      const { runId } = JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { runId: string };
      expect(
        (
          await c.query(
            "SELECT count(*)::int AS n FROM retrace_episode_files WHERE run_id = $1 AND path = 'plan.json'",
            [runId],
          )
        ).rows[0].n,
      ).toBe(0);
      expect(
        (
          await c.query("SELECT count(*)::int AS n FROM retrace_run_files WHERE run_id = $1 AND path = 'plan.json'", [
            runId,
          ])
        ).rows[0].n,
      ).toBe(1);
    } finally {
      await c.end();
    }
    await Promise.all(ws.map((w) => stop(w)));
  }, 300_000);

  it("a PostgreSQL restart mid-run loses no acknowledged result", async () => {
    const q = `pg-${process.pid}`;
    const out = join(dir, "pgrestart");
    let server: PrivatePostgres | undefined;
    try {
      server = await startPrivatePostgres();
      const ws = [worker(q, { postgres: server.url }), worker(q, { postgres: server.url })];
      const run = coordinator(q, out, server.url);
      await ws[0].waitFor(/^done /, 90_000);
      await ws[1].waitFor(/^done /, 90_000);
      const acknowledged = await rowsOf(server.url, out);
      expect(acknowledged.length).toBeGreaterThan(0);
      server.restart();
      expect(await run.exited).toBe(0);
      const rows = await rowsOf(server.url, out);
      for (const a of acknowledged) expect(rows.find((r) => r.key === a.key)?.line).toBe(a.line);
      await expectExactlyOnce(server.url, out);
      await Promise.all(ws.map((w) => stop(w)));
    } finally {
      server?.stop();
    }
  }, 300_000);
});

/** A TCP proxy to 127.0.0.1:port that can drop every connection and refuse new ones for a while. */
async function tcpProxy(
  target: number,
): Promise<{ port: number; cut(): void; restore(): Promise<void>; close(): void }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket();
        upstream.connect(target, "127.0.0.1");
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("error", () => {});
          s.on("close", () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const cut = () => {
    server.close();
    for (const s of sockets) s.destroy();
  };
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}
