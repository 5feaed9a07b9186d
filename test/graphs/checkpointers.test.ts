import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { createCheckpointer, parseCheckpointSpec, registerCheckpointerScheme } from "../../graphs/checkpointers.ts";
import { ConfigError } from "../../src/errors.ts";
import { runEpisode } from "../../graphs/run-episode.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, createToyRecoverer, newBlobs } from "./fixtures/toy.ts";

describe("checkpointer specs", () => {
  it("none means no checkpointer; memory and sqlite build savers, one per spec and run folder", async () => {
    const out = mkdtempSync(join(tmpdir(), "retrace-ckspec-"));
    expect(createCheckpointer(undefined, { out })).toBe(false);
    expect(createCheckpointer("none", { out })).toBe(false);
    expect(createCheckpointer("memory", { out })).toBeInstanceOf(MemorySaver);
    const sqlite = createCheckpointer("sqlite", { out });
    expect(createCheckpointer("sqlite", { out })).toBe(sqlite);
    // a durable episode through the sqlite saver lands in <out>/checkpoints.sqlite
    const blobs = newBlobs();
    const r = await runEpisode({ task: TOY_TASK, components: { policy: createToyPolicy({}), env: new ToyDesk(blobs), blobs, detector: createToyDetector(), recoverer: createToyRecoverer({}) }, threadId: "x", checkpointer: sqlite || undefined });
    expect(r.success).toBe(true);
    expect(existsSync(join(out, "checkpoints.sqlite"))).toBe(true);
  });

  it("an unknown spec is a ConfigError naming --checkpoint and the choices; registered schemes are accepted", () => {
    expect(() => parseCheckpointSpec("redis")).toThrow(ConfigError);
    expect(() => parseCheckpointSpec("redis")).toThrow(/--checkpoint: unknown checkpointer "redis" \(use none, memory, sqlite/);
    expect(parseCheckpointSpec("sqlite:/tmp/x.sqlite")).toEqual({ scheme: "sqlite", rest: "/tmp/x.sqlite" });
    registerCheckpointerScheme("postgres", () => new MemorySaver());
    expect(parseCheckpointSpec("postgres://u@localhost/db")).toEqual({ scheme: "postgres", rest: "postgres://u@localhost/db" });
  });
});
