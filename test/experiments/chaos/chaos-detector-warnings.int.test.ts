/**
 * Issue 31: "Chaos seed 11 logged 21 'detector failed; treating as no detection' warnings, but only
 * 12 are in the outputs": the failures in tries thrown away after an environment error were
 * recorded nowhere. `retrace chaos` with seed 11 runs as a child process (the logger writes JSON
 * lines through process.stderr.write, read here from the child's stderr); every "detector failed"
 * warning it logged is in its outputs: the kept tries' steps (trajectory.json, detection.failure)
 * plus the discarded tries on the result lines (results.jsonl, failedTries[].detectorFailures).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-chaos-warnings-"));
let child: ReturnType<typeof spawn> | undefined;
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG = {
  kind: "end-to-end",
  name: "chaos-warnings",
  env: { kind: "simdesk", sample: 4 },
  seeds: { count: 2 },
  options: { maxForwardSteps: 16, freezeWindow: 3, recoveryBudget: 6 },
  maxRecoveryIterations: [3],
  pairs: [
    { name: "skilled", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } },
  ],
};

describe("retrace chaos --seed 11", () => {
  it("records every 'detector failed' warning it logs, those of discarded tries included", async () => {
    const cfg = join(dir, "cfg.json");
    writeFileSync(cfg, JSON.stringify(CONFIG));
    const out = join(dir, "out");
    child = spawn(
      process.execPath,
      [
        join(ROOT, "experiments/bin/retrace.mjs"),
        "chaos",
        cfg,
        "--seed",
        "11",
        "--env-faults",
        "0.2",
        "--model-faults",
        "0.5",
        "--env-timeout-ms",
        "2500",
        "--model-timeout-ms",
        "3000",
        "-w",
        "1",
        "--out",
        out,
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RETRACE_LOG_LEVEL: "warn" } },
    );
    let stderr = "";
    child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((r) => child!.once("exit", r));
    expect(code, stderr.slice(-2000)).toBe(0);

    // What the run logged: one JSON line per failed detector call.
    const logged = stderr.split("\n").flatMap((l) => {
      try {
        const o = JSON.parse(l) as { msg?: unknown };
        return typeof o.msg === "string" && o.msg.startsWith("detector failed") ? [o] : [];
      } catch {
        return [];
      }
    }).length;

    // What the outputs hold: failed detections on the kept tries' steps, and the discarded tries' counts.
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { failedTries?: { detectorFailures?: number }[] });
    const inFailedTries = lines.reduce(
      (n, l) => n + (l.failedTries ?? []).reduce((m, t) => m + (t.detectorFailures ?? 0), 0),
      0,
    );
    const onSteps = readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith("trajectory.json"))
      .reduce(
        (n, f) =>
          n +
          (
            JSON.parse(readFileSync(join(out, f), "utf8")) as {
              trajectory: { steps: { detection?: { failure?: string } }[] };
            }
          ).trajectory.steps.filter((s) => s.detection?.failure).length,
        0,
      );
    const figures = JSON.parse(readFileSync(join(out, "chaos.json"), "utf8")).figures;

    // the seed reproduces the case: discarded tries with failed detector calls
    expect(lines.filter((l) => l.failedTries?.length).length).toBeGreaterThan(0);
    expect(inFailedTries).toBeGreaterThan(0);
    expect(logged).toBeGreaterThan(inFailedTries);
    // every warning is in the outputs, and the chaos figures say the same
    expect(onSteps + inFailedTries).toBe(logged);
    expect(figures.detectorFailures).toBe(logged);
    expect(figures.detectorFailuresInFailedTries).toBe(inFailedTries);
  }, 400_000);
});
