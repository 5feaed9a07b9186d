/**
 * `--checkpoint` backends beyond packages/graphs/src/checkpointers.ts' memory and sqlite: `postgres://...`
 * (LangGraph's PostgresSaver, the one distributed workers use) for local runs too. Registered
 * here, in experiments/, because packages/graphs/src/ may not import adapters/. A run opens its checkpointer
 * before the first episode (a bad URL or unreachable server fails up front, before anything is
 * written) and closes it at the end.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { LazyPostgresSaver } from "@retrace-cua/stores/postgres/checkpointer";
import { createCheckpointer, registerCheckpointerScheme } from "@retrace-cua/graphs/checkpointers";

let registered = false;

/**
 * The checkpoint thread of one episode of the run writing to `out`: `run-<12 hex>/<episode key>`,
 * the hex being the hash of the run folder's real path. Episode keys repeat across runs of one
 * config, and a PostgreSQL checkpointer is shared by every run pointed at it: without the run
 * part, a second run (another `--out`) picked up the first run's threads. `--resume` of the same
 * folder finds its own threads again; a moved folder starts its unfinished episodes afresh.
 */
export function checkpointThread(out: string, key: string): string {
  let where: string;
  try {
    where = realpathSync(out);
  } catch {
    where = resolve(out);
  }
  return `run-${createHash("sha256").update(where).digest("hex").slice(0, 12)}/${key}`;
}

/** Register the `postgres` scheme (`postgres://` and `postgresql://` URLs); idempotent. */
export function registerCheckpointSchemes(): void {
  if (registered) return;
  registerCheckpointerScheme("postgres", (url) => new LazyPostgresSaver(url));
  registered = true;
}

type Closable = BaseCheckpointSaver & { ready?: () => Promise<void>; close?: () => Promise<void> };

/** The run's checkpointer for `spec` (or false for none), connected and set up. */
export async function openRunCheckpointer(spec: string | undefined, out: string): Promise<BaseCheckpointSaver | false> {
  registerCheckpointSchemes();
  const saver = createCheckpointer(spec, { out }) as Closable | false;
  if (saver && saver.ready) await saver.ready();
  return saver;
}

/** Release what {@link openRunCheckpointer} opened (a PostgreSQL pool); the next use reconnects. */
export async function closeRunCheckpointer(saver: BaseCheckpointSaver | false): Promise<void> {
  const c = saver as Closable | false;
  if (c && c.close) await c.close();
}
