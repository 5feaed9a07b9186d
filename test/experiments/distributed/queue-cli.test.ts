/** Bad input to the distributed commands: one line naming the flag, exit code 2, nothing written. */
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../../experiments/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-queue-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
    return { code: Number(process.exitCode ?? 0), stderr };
  } finally {
    spy.mockRestore();
    process.exitCode = before;
  }
}

const e2e = join(dir, "e2e.json");
writeFileSync(
  e2e,
  JSON.stringify({
    kind: "end-to-end",
    name: "q",
    env: { kind: "simdesk", limit: 1 },
    seeds: [0],
    pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" } }],
  }),
);

describe("distributed commands reject bad input in one line", () => {
  it("run --queue with a non-redis URL names --queue", async () => {
    const r = await cli(
      "run",
      e2e,
      "-q",
      "--queue",
      "http://127.0.0.1:6379",
      "--store",
      "postgres://u@127.0.0.1:5432/db",
      "--out",
      join(dir, "o1"),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--queue: expected redis:\/\/HOST:PORT/);
    expect(existsSync(join(dir, "o1"))).toBe(false);
  });
  it("run --queue without a store names --store and RETRACE_STORE_URL", async () => {
    const r = await cli("run", e2e, "-q", "--queue", "redis://127.0.0.1:6379", "--out", join(dir, "o2"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--store: give the postgres:\/\/ URL .*RETRACE_STORE_URL/);
  });
  it("an unreachable PostgreSQL is one line and leaves no run folder", async () => {
    const r = await cli(
      "run",
      e2e,
      "-q",
      "--queue",
      "redis://127.0.0.1:1",
      "--store",
      "postgres://u@127.0.0.1:1/db",
      "--out",
      join(dir, "o4"),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot reach PostgreSQL at postgres:\/\/u@127\.0\.0\.1:1\/db/);
    expect(existsSync(join(dir, "o4"))).toBe(false);
  }, 30_000);
  it("worker --store with a bad URL, and status of a folder that is not a distributed run", async () => {
    const w = await cli("worker", "--queue", "redis://127.0.0.1:1", "--store", "mysql://x");
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/--store: expected a postgres:\/\//);
    const local = join(dir, "local-run");
    mkdirSync(local);
    const s = await cli("status", local, "--queue", "redis://127.0.0.1:1", "--store", "postgres://u@127.0.0.1:1/db");
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/has no queue.json: it is not a distributed run folder/);
    const c = await cli(
      "worker",
      "--queue",
      "redis://127.0.0.1:1",
      "--store",
      "postgres://u@h/db",
      "--concurrency",
      "0",
    );
    expect(c.stderr).toMatch(/--concurrency: expected a whole number from 1 to 64/);
  });
});
