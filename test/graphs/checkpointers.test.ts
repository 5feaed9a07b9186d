import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import {
  createCheckpointer,
  createMemoryCheckpointer,
  parseCheckpointSpec,
  registerCheckpointerScheme,
} from "../../packages/graphs/src/checkpointers.ts";
import { LazyCheckpointSaver } from "../../packages/core/src/store/lazy-checkpointer.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, createToyRecoverer, newBlobs } from "./fixtures/toy.ts";

describe("checkpointer specs", () => {
  it("none means no checkpointer; memory and sqlite build savers, one per spec and run folder", async () => {
    const out = mkdtempSync(join(tmpdir(), "retrace-ckspec-"));
    expect(createCheckpointer(undefined, { out })).toBe(false);
    expect(createCheckpointer("none", { out })).toBe(false);
    expect(createCheckpointer("memory", { out })).toBeInstanceOf(LazyCheckpointSaver);
    const sqlite = createCheckpointer("sqlite", { out });
    expect(createCheckpointer("sqlite", { out })).toBe(sqlite);
    // a durable episode through the sqlite saver lands in <out>/checkpoints.sqlite
    const blobs = newBlobs();
    const r = await runEpisode({
      task: TOY_TASK,
      components: {
        policy: createToyPolicy({}),
        env: new ToyDesk(blobs),
        blobs,
        detector: createToyDetector(),
        recoverer: createToyRecoverer({}),
      },
      threadId: "x",
      checkpointer: sqlite || undefined,
    });
    expect(r.success).toBe(true);
    expect(existsSync(join(out, "checkpoints.sqlite"))).toBe(true);
  });

  it("an unknown spec is a ConfigError naming --checkpoint and the choices; registered schemes are accepted", () => {
    expect(() => parseCheckpointSpec("redis")).toThrow(ConfigError);
    expect(() => parseCheckpointSpec("redis")).toThrow(
      /--checkpoint: unknown checkpointer "redis" \(use none, memory, sqlite/,
    );
    expect(parseCheckpointSpec("sqlite:/tmp/x.sqlite")).toEqual({ scheme: "sqlite", rest: "/tmp/x.sqlite" });
    registerCheckpointerScheme("postgres", () => new MemorySaver());
    expect(parseCheckpointSpec("postgres://u@localhost/db")).toEqual({
      scheme: "postgres",
      rest: "postgres://u@localhost/db",
    });
  });

  it("the memory checkpointer opens LangGraph's MemorySaver on first use and delegates every call to it: a finished thread reads back, resumes to its result, and stores no key", async () => {
    const saver = createMemoryCheckpointer();
    expect(saver).toBeInstanceOf(LazyCheckpointSaver);
    expect(saver.getNextVersion(undefined)).toBe(1); // not opened yet: LangGraph's integer versions
    const blobs = newBlobs();
    const components = {
      policy: createToyPolicy({ slipTicks: [2] }),
      env: new ToyDesk(blobs),
      blobs,
      detector: createToyDetector(),
      recoverer: createToyRecoverer({}),
    };
    const task = { ...TOY_TASK, instruction: `${TOY_TASK.instruction} (key sk-live4f9a2b7c1d0e)` };
    const r = await runEpisode({ task, components, options: { freezeWindow: 1 }, threadId: "m", checkpointer: saver });
    expect(r.success).toBe(true);
    expect(r.accounting.recoveryAttempts).toBe(1);
    const config = { configurable: { thread_id: "m" } };
    const tuple = await saver.getTuple(config);
    expect((await saver.get(config))?.id).toBe(tuple?.checkpoint.id);
    const all: string[] = [];
    let stored = "";
    for await (const t of saver.list(config)) {
      all.push(t.checkpoint.id);
      stored += JSON.stringify([t.checkpoint.channel_values, t.pendingWrites]);
    }
    expect(all.length).toBeGreaterThan(3);
    expect(all[0]).toBe(tuple?.checkpoint.id);
    expect(Object.keys(await saver.getDeltaChannelHistory({ config, channels: ["history"] }))).toEqual(["history"]);
    expect(saver.getNextVersion(7)).toBe(8);
    // What the opened saver stored went through the redacting serializer (it reads back redacted).
    expect(stored).toContain("[redacted]");
    expect(stored).not.toContain("sk-live4f9a2b7c1d0e");
    // The same thread again: the saved result, without running a step.
    const events = new EpisodeEvents();
    let steps = 0;
    events.on("step", () => steps++);
    const again = await runEpisode({
      task,
      components,
      options: { freezeWindow: 1 },
      threadId: "m",
      checkpointer: saver,
      events,
    });
    expect(steps).toBe(0);
    expect(again.success).toBe(true);
    expect(again.accounting.recoveryAttempts).toBe(1);
    await saver.deleteThread("m");
    expect(await saver.getTuple(config)).toBeUndefined();
  });
});
