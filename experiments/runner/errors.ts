/** Errors of a run that finished but must not pass for a good one. */

/**
 * The run completed but its results are meaningless (e.g. every model call failed); the CLI exits 1. Lives in
 * packages/core/src/errors.ts with the others.
 */
export { RunFailedError } from "@retrace-cua/core/errors";
