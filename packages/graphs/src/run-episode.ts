/**
 * `runEpisode`: run (or resume) one recovery-wrapped episode and return its EpisodeResult.
 * With a durable checkpointer and the same `threadId`, a run interrupted mid-way (process killed)
 * resumes from its last checkpoint (packages/graphs/src/run-episode-graph.ts, packages/graphs/src/resume.ts).
 *
 * This module is light: the graph and LangGraph load on the first episode (a dynamic import),
 * so `import "retrace-cua"` stays cheap (bench line `import-main`).
 */
import type { EpisodeResult } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import type { RunEpisodeArgs } from "./run-episode-graph.ts";

export type { RunEpisodeArgs } from "./run-episode-graph.ts";

/** Run one episode to its end (or resume it) and return the result. The first call loads LangGraph. */
export async function runEpisode(args: RunEpisodeArgs): Promise<EpisodeResult> {
  if (!args || !args.task || typeof args.task.id !== "string")
    throw new ConfigError("runEpisode: task is required (a Task with an id)", { field: "task" });
  return (await import("./run-episode-graph.ts")).runEpisodeGraph(args);
}
