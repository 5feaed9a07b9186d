/**
 * Running a phase's episodes somewhere else than this process's pool: `retrace run --queue`
 * enqueues them and waits (the coordinator), and `retrace worker` runs one queued episode through
 * the very same experiment code (the worker), so both build components exactly as a local run.
 */
import type { EpisodeJob } from "./conditions.ts";
import type { RunContext } from "./context.ts";
import type { JobOutcome } from "./pool.ts";
import type { RecordingEnvironment } from "./recording-env.ts";
import type { ResultLine } from "./results-log.ts";

/**
 * Files of the run folder that the workers of a later phase read, shipped with the run (the
 * coordinator stores them before it enqueues a phase; a worker writes them into its scratch run
 * folder before an episode): ideal recovery's frozen `plan.json`, made on the coordinator between
 * the forward runs and the continuations.
 */
export const RUN_FILES = ["plan.json"] as const;

/** One phase handed to a {@link RemotePhases}. */
export interface RemotePhaseRequest<J extends EpisodeJob> {
  phase: string;
  /** The phase's jobs in expansion order. */
  jobs: readonly J[];
  /** Run one job on a (recording) environment: the runner's per-episode function. */
  execute: (job: J, env: RecordingEnvironment) => Promise<JobOutcome>;
  ctx: RunContext;
}

/** Where the phases of an experiment run when they do not run on the local pool. */
export interface RemotePhases {
  /** "coordinator" writes the run folder; "worker" writes nothing but its episode. */
  readonly role: "coordinator" | "worker";
  /** Run (or look up) the phase's jobs and return their lines in job order. */
  runPhase<J extends EpisodeJob>(req: RemotePhaseRequest<J>): Promise<ResultLine[]>;
}
