/**
 * A model-backed run prints no process warning: the stand-in end-to-end preset (retrace's
 * SIMULATED sampling model behind the OpenAI API, adapters/testing/stand-in) through the real
 * CLI in a child process, with `--workers 2`, interrupted by SIGTERM and continued with
 * `--resume`. Node writes every process warning to stderr as `(node:PID) XxxWarning: ...`; the
 * one this guards against is the MaxListenersExceededWarning of an episode's AbortSignal that
 * collected one listener per model call (the openai SDK never removes the one it adds).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../packages/testing/src/stand-in/server.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-warnings-"));
let server: StandInServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const resultLines = (out: string) =>
  existsSync(join(out, "results.jsonl"))
    ? readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").filter(Boolean).length
    : 0;

/** Run the CLI; `stopAfter` sends SIGTERM once that many episodes are in results.jsonl. */
function retrace(args: string[], out: string, stopAfter?: number): Promise<{ code: number | null; stderr: string }> {
  const p = spawn(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let stderr = "";
  p.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const poll =
    stopAfter === undefined ? undefined : setInterval(() => resultLines(out) >= stopAfter && p.kill("SIGTERM"), 100);
  const killer = setTimeout(() => p.kill("SIGKILL"), 240_000);
  return new Promise((ok) =>
    p.on("exit", (code) => {
      clearInterval(poll);
      clearTimeout(killer);
      ok({ code, stderr });
    }),
  );
}

const warningsIn = (stderr: string) => stderr.split("\n").filter((l) => /Warning\b|--trace-warnings/.test(l));

describe("model-backed runs", () => {
  it("print no process warning with --workers 2, nor on --resume", async () => {
    server = await startStandInServer({ errorRate: 0.3, seed: 2 });
    const c = parseYaml(readFileSync(join(ROOT, "experiments/configs/stand-in/end-to-end.yaml"), "utf8")) as Record<
      string,
      any
    >;
    c.env = { kind: "simdesk", sample: 4 };
    c.seeds = [0];
    c.maxRecoveryIterations = [1, 3];
    const cfg = join(dir, "e2e.json");
    writeFileSync(cfg, JSON.stringify(c));
    const out = join(dir, "run");
    const args = ["run", cfg, "--base-url", server.url, "--out", out, "--workers", "2", "--quiet"];

    const first = await retrace(args, out, 3);
    expect(resultLines(out)).toBeGreaterThanOrEqual(3);
    const second = await retrace([...args, "--resume"], out);
    expect(second.code).toBe(0);
    expect(resultLines(out)).toBe(12); // 4 tasks x 1 seed x (baseline + 2 caps)
    // Many model calls per episode: more than the 10 listeners Node tolerates on one signal.
    expect(server.log.length / 12).toBeGreaterThan(11);
    expect({ first: warningsIn(first.stderr), resume: warningsIn(second.stderr) }).toEqual({ first: [], resume: [] });
  }, 300_000);
});
