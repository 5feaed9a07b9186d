/**
 * Running a phase's episodes somewhere else than this process's pool: `retrace run --queue`
 * enqueues them and waits (the coordinator), and `retrace worker` runs one queued episode through
 * the very same experiment code (the worker), so both build components exactly as a local run.
 */
// The phase interfaces live with the run context that hands itself to them (no import cycle).
export type { RemotePhaseRequest, RemotePhases } from "./context.ts";

/**
 * Files of the run folder that the workers of a later phase read, shipped with the run (the
 * coordinator stores them before it enqueues a phase; a worker writes them into its scratch run
 * folder before an episode): ideal recovery's frozen `plan.json`, made on the coordinator between
 * the forward runs and the continuations.
 */
export const RUN_FILES = ["plan.json"] as const;
