import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { createSqliteCheckpointer } from "../../packages/graphs/src/checkpointers.ts";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { withoutTiming } from "../../packages/core/src/runtime/accounting.ts";
import type { EpisodeResult } from "../../packages/core/src/episode.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { TOY_TASK } from "./fixtures/toy.ts";
import {
  RESUME_OPTIONS,
  SIMDESK_RESUME_TASK,
  resumeComponents,
  simdeskResumeComponents,
} from "./fixtures/resume-components.ts";

const CHILD = resolve(import.meta.dirname, "fixtures/resume-child.ts");

/** Start the child episode and SIGKILL it once `killWhen` matches a line it printed. */
function runAndKill(
  dbPath: string,
  threadId: string,
  blobDir: string,
  restoration: string,
  killWhen: (line: string) => boolean,
  envKind = "toy",
): Promise<string[]> {
  return new Promise((res, rej) => {
    const child = spawn(
      process.execPath,
      ["--conditions=retrace-dev", "--import", "tsx", CHILD, dbPath, threadId, blobDir, "40", restoration, envKind],
      { cwd: resolve(import.meta.dirname, "../.."), stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: string[] = [];
    let buf = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        if (killWhen(line)) child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code, signal) =>
      signal === "SIGKILL"
        ? res(lines)
        : rej(new Error(`child was not killed (exit ${code}): ${stderr || lines.join("|")}`)),
    );
  });
}

function comparable(r: EpisodeResult) {
  return {
    ...r,
    accounting: withoutTiming(r.accounting),
    trajectory: { ...r.trajectory, steps: r.trajectory.steps.map(({ envMs: _e, ...s }) => s) },
  };
}

describe("kill and resume", () => {
  it.each([
    ["mid forward steps", "model", (l: string) => l === "step forward 7"],
    ["mid recovery", "model", (l: string) => l === "step recovery 4"],
    ["after a snapshot restoration", "snapshot", (l: string) => l === "step forward 6"],
    ["after a replay restoration", "replay", (l: string) => l === "step forward 8"],
  ] as const)(
    "an episode SIGKILLed %s (%s restoration) resumes from its SQLite checkpoint with the uninterrupted result",
    async (_when, restoration, killWhen) => {
      const options = { ...RESUME_OPTIONS, restoration };
      const dir = mkdtempSync(join(tmpdir(), "retrace-resume-"));
      const baseline = await runEpisode({
        task: TOY_TASK,
        components: resumeComponents(join(dir, "blobs-a"), 0),
        options,
      });
      expect(baseline.accounting.recoveryAttempts).toBeGreaterThan(0);

      const db = join(dir, "ckpt.sqlite");
      const lines = await runAndKill(db, "thread-1", join(dir, "blobs-b"), restoration, killWhen);
      expect(lines.some((l) => l.startsWith("finished"))).toBe(false);

      const events = new EpisodeEvents();
      const resumedTicks: number[] = [];
      events.on("step", (e) => resumedTicks.push(e.tick));
      const resumed = await runEpisode({
        events,
        task: TOY_TASK,
        components: resumeComponents(join(dir, "blobs-b"), 0),
        options,
        threadId: "thread-1",
        checkpointer: createSqliteCheckpointer(db),
      });
      expect(comparable(resumed)).toEqual(comparable(baseline));
      // it really resumed: the resumed process did not start from tick 1
      const total = baseline.trajectory.steps.length;
      expect(resumedTicks.length).toBeGreaterThan(0);
      expect(resumedTicks.length).toBeLessThan(total);
      expect(resumedTicks[0]).toBeGreaterThan(1);
    },
  );

  it("a SimDesk episode with simulated agents SIGKILLed mid-way resumes in this process with the uninterrupted result", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-resume-sd-"));
    const options = { ...RESUME_OPTIONS, restoration: "model" as const };
    const baseline = await runEpisode({
      task: SIMDESK_RESUME_TASK,
      components: simdeskResumeComponents(join(dir, "a", "blobs"), 0),
      options,
    });
    expect(baseline.accounting.recoveryAttempts).toBeGreaterThan(0);
    const recoveryTicks = baseline.trajectory.steps.filter((s) => s.role === "recovery").length;
    expect(recoveryTicks).toBeGreaterThan(0);
    const db = join(dir, "ckpt.sqlite");
    // kill during the first recovery attempt
    const lines = await runAndKill(
      db,
      "sd-1",
      join(dir, "b", "blobs"),
      "model",
      (l) => l.startsWith("step recovery"),
      "simdesk",
    );
    expect(lines.some((l) => l.startsWith("finished"))).toBe(false);
    const resumedTicks: number[] = [];
    const events = new EpisodeEvents();
    events.on("step", (e) => resumedTicks.push(e.tick));
    const resumed = await runEpisode({
      task: SIMDESK_RESUME_TASK,
      components: simdeskResumeComponents(join(dir, "b", "blobs"), 0),
      options,
      threadId: "sd-1",
      checkpointer: createSqliteCheckpointer(db),
      events,
    });
    expect(comparable(resumed)).toEqual(comparable(baseline));
    expect(resumedTicks[0]).toBeGreaterThan(1);
    expect(resumed.simulated).toBe(true);
  });
});

/** A MemorySaver that "crashes" (throws) on the n-th checkpoint write, after that step's writes were saved. */
class CrashingSaver extends MemorySaver {
  puts = 0;
  crashAt = -1;
  override async put(...args: Parameters<MemorySaver["put"]>) {
    if (++this.puts === this.crashAt)
      throw new Error("simulated crash between saving a node's writes and its checkpoint");
    return super.put(...args);
  }
}

describe("resume between a node's saved writes and its checkpoint", () => {
  // The episode writes one checkpoint per forward step (act) plus the recovery nodes: about 24 in all.
  it.each(Array.from({ length: 11 }, (_, k) => 2 + 2 * k))(
    "a crash at checkpoint write %i resumes with the uninterrupted result",
    async (crashAt) => {
      const dir = mkdtempSync(join(tmpdir(), "retrace-crash-"));
      const options = { ...RESUME_OPTIONS, restoration: "model" as const };
      const baseline = await runEpisode({ task: TOY_TASK, components: resumeComponents(join(dir, "a"), 0), options });
      const saver = new CrashingSaver();
      saver.crashAt = crashAt;
      await expect(
        runEpisode({
          task: TOY_TASK,
          components: resumeComponents(join(dir, "b"), 0),
          options,
          threadId: "t",
          checkpointer: saver,
        }),
      ).rejects.toThrow(/simulated crash/);
      saver.crashAt = -1;
      const resumed = await runEpisode({
        task: TOY_TASK,
        components: resumeComponents(join(dir, "b"), 0),
        options,
        threadId: "t",
        checkpointer: saver,
      });
      expect(comparable(resumed)).toEqual(comparable(baseline));
      expect(saver.puts).toBeGreaterThan(crashAt);
    },
  );
});
