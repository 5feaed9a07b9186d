/**
 * Issue 31: "A browser checker that never answers ignores `episodeTimeoutMs` and waits for the 180 s
 * environment deadline." A user's task file on a small app on 127.0.0.1 whose checker module is
 * called and never answers: `retrace run` with episodeTimeoutMs 30 s ends the episode at that
 * deadline (seconds after the checker was called, not 180 s), recorded as an ordinary result line
 * that says so (stopReason "aborted", the deadline in its detail), not as an exception or an
 * environment error, and the run exits 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./helpers/corpus.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";

const tools = systemTools("the browser checker deadline test", CHROMIUM_TOOLS);
const DEADLINE_MS = 30_000;

describe.runIf(tools.run)("a browser task whose checker never answers", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-checker-deadline-"));
  let server: Server;

  beforeAll(async () => {
    tools.assert();
    server = createServer(
      (_req, res) =>
        void res
          .writeHead(200, { "content-type": "text/html" })
          .end("<!doctype html><title>App</title><body><p>Nothing to do.</p></body>"),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // Called once (it writes when), then never answers, and ignores everything it is given.
    writeFileSync(
      join(dir, "check.mjs"),
      `import { writeFileSync } from "node:fs";\nexport function check() { writeFileSync(${JSON.stringify(join(dir, "called"))}, String(Date.now())); return new Promise(() => {}); }\n`,
    );
    writeFileSync(
      join(dir, "tasks.yaml"),
      `tasks:\n  - id: never-judged\n    instruction: Say you are done.\n    url: ${url}\n    checker: ./check.mjs\n    export: check\n    plan: [{ type: DONE }]\n`,
    );
    writeFileSync(
      join(dir, "cfg.json"),
      JSON.stringify({
        kind: "end-to-end",
        name: "checker-deadline",
        env: { kind: "browser", tasksFile: join(dir, "tasks.yaml") },
        seeds: [0],
        maxRecoveryIterations: [1],
        baseline: false,
        episodeTimeoutMs: DEADLINE_MS,
        options: { restoration: "replay", maxForwardSteps: 3 },
        pairs: [
          { name: "a", forward: { kind: "sim", profile: "careful" }, recovery: { kind: "sim", profile: "skilled" } },
        ],
      }),
    );
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("ends at episodeTimeoutMs, recorded as a result that says so, not an exception", async () => {
    const out = join(dir, "out");
    const r = await cli(["run", join(dir, "cfg.json"), "-w", "1", "-q", "--out", out]);
    const ended = Date.now();
    expect(r.code, r.stderr).toBe(0);
    // the checker was reached, and the run ended within the episode's deadline of that, not 180 s later
    expect(
      existsSync(join(dir, "called")),
      `${readFileSync(join(out, "results.jsonl"), "utf8")}\n${readFileSync(join(out, "timings.jsonl"), "utf8")}`,
    ).toBe(true);
    const calledAt = Number(readFileSync(join(dir, "called"), "utf8"));
    expect(ended - calledAt).toBeLessThan(DEADLINE_MS + 15_000);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: "ok", success: false, score: 0, stopReason: "aborted", envTries: 1 });
    expect(lines[0].envError).toBeUndefined();
    const timings = readFileSync(join(out, "timings.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(timings[0].wallMs).toBeLessThan(DEADLINE_MS + 10_000);
    const rec = JSON.parse(readFileSync(join(out, "a.max-rec-1", "never-judged", "0", "trajectory.json"), "utf8"));
    expect(rec.detail).toMatch(
      new RegExp(`episode deadline: still running after ${DEADLINE_MS} ms \\(episodeTimeoutMs\\), aborted`),
    );
  }, 120_000);
});
