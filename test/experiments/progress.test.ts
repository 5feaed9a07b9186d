/**
 * Progress of a run when stderr is not a terminal: a line per interval (and at the end of each
 * phase) with done, success, spend and an ETA from the episodes finished so far ("estimating"
 * before the first, never NaN); the resume command printed on Ctrl-C; and the CLI flags of issue
 * 22: `--version`, `run --tasks/--limit`, `worker --work-dir` (the old `--cache <dir>` and
 * `--cache-dir <dir>` are one clear error each: `--cache-dir` is the model-call cache elsewhere).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { etaMs, formatDuration, progressReporter, resumeCommand } from "../../experiments/commands/progress.ts";
import { main } from "../../experiments/cli.ts";
import { withTaskFlags } from "../../experiments/commands/run.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (done: number, successes = 0) => ({ total: 10, done, skipped: 0, successes, valid: done, envErrors: 0 });

describe("progress lines without a terminal", () => {
  it("prints a line per interval with success, spend and an ETA from observed episodes", () => {
    let t = 0;
    const lines: string[] = [];
    const p = progressReporter(false, "", {
      tty: false,
      intervalSeconds: 30,
      now: () => t,
      write: (s) => lines.push(s),
      spent: () => 0.125,
    });
    p.onProgress("episodes", at(0));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe("episodes: 0/10 episodes | success n/a | env errors 0 | spent $0.1250 | ETA estimating\n");
    t = 10_000;
    p.onProgress("episodes", at(2, 1)); // within the interval: no line
    expect(lines).toHaveLength(1);
    t = 40_000;
    p.onProgress("episodes", at(4, 2)); // 4 episodes in 40 s -> 6 left take 60 s
    expect(lines[1]).toBe(
      "episodes: 4/10 episodes | success 50.0% (2/4) | env errors 0 | spent $0.1250 | ETA 1m 00s\n",
    );
    t = 41_000;
    p.onProgress("episodes", at(10, 5)); // the end of a phase always prints
    expect(lines[2]).toMatch(/10\/10 episodes .* ETA done\n$/);
    // a resumed phase: episodes done before this process started do not speed up the ETA
    t = 100_000;
    p.onProgress("continuations", { ...at(8), total: 20 });
    t = 160_000;
    p.onProgress("continuations", { ...at(9), total: 20 });
    expect(lines.at(-1)).toMatch(/9\/20 episodes .* ETA 11m 00s\n$/);
    expect(lines.join("")).not.toMatch(/NaN|Infinity/);
    p.stop();
  });

  it("computes ETAs and durations that never read NaN", () => {
    expect(etaMs(0, 5000, 10)).toBeUndefined();
    expect(etaMs(2, 0, 10)).toBeUndefined();
    expect(etaMs(5, 50_000, 5)).toBe(50_000);
    expect(formatDuration(59_400)).toBe("59s");
    expect(formatDuration(3_725_000)).toBe("1h 02m");
  });

  it("names the command that continues an interrupted run", () => {
    expect(resumeCommand(["run", "cfg.yaml", "--workers", "2"], "runs/x")).toBe(
      "npx retrace run cfg.yaml --workers 2 --out runs/x --resume",
    );
    expect(resumeCommand(["demo", "--out", "runs/my demo", "--resume"], "runs/my demo")).toBe(
      "npx retrace demo --out 'runs/my demo' --resume",
    );
  });
});

/** Run the CLI in-process; returns stdout, stderr and the exit code it set. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stderr = "";
  let stdout = "";
  const e = vi
    .spyOn(process.stderr, "write")
    .mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  const o = vi
    .spyOn(process.stdout, "write")
    .mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    e.mockRestore();
    o.mockRestore();
    process.exitCode = before;
  }
}

describe("CLI flags", () => {
  it("--version prints the package version", async () => {
    const r = await cli("--version");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")).version);
  });

  it("run --tasks / --limit replace the config's tasks; bad values are one clear line", async () => {
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "t",
      env: { kind: "simdesk", sample: 5 },
      seeds: { count: 1 },
      pairs: [{ name: "p", forward: { kind: "sim" } }],
    });
    expect(withTaskFlags(config, { tasks: "files-rename-folder, editor-append-notes" }).env).toMatchObject({
      kind: "simdesk",
      tasks: ["files-rename-folder", "editor-append-notes"],
    });
    expect(withTaskFlags(config, { tasks: "files-rename-folder" }).env).not.toHaveProperty("sample");
    expect(withTaskFlags(config, { limit: "3" }).env).toMatchObject({ limit: 3 });
    expect(() => withTaskFlags(config, { limit: "0" })).toThrow(/--limit: expected a positive integer/);
    expect(() => withTaskFlags(config, { tasks: " , " })).toThrow(/--tasks: expected comma-separated task ids/);
    const r = await cli(
      "run",
      join(__dirname, "../../experiments/configs/end-to-end.yaml"),
      "--limit",
      "x",
      "--quiet",
      "--out",
      join(dir, "o"),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--limit: expected a positive integer/);
  });

  it("worker names its folder --work-dir; the old --cache <dir> and --cache-dir <dir> are one line each saying so", async () => {
    for (const flag of ["--cache", "--cache-dir"]) {
      const r = await cli("worker", "--queue", "redis://127.0.0.1:1", flag, join(dir, "c"));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${flag} is now --work-dir <dir>`));
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
