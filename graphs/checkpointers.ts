/**
 * Checkpointers for recovery episodes: LangGraph's MemorySaver and SqliteSaver (the embedded
 * durable option that lets a killed episode resume in another process), and a small factory from
 * a spec string (`--checkpoint none|memory|sqlite[:path]`) that other backends register with
 * (`registerCheckpointerScheme("postgres", ...)`). Every saver made here redacts secrets from
 * what it stores (src/store/redacting-serde.ts), like every file write.
 */
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../src/errors.ts";
import { redactCheckpointer } from "../src/store/redacting-serde.ts";

/** A durable checkpointer in a SQLite file (created with its folder if missing). */
export function createSqliteCheckpointer(path: string): SqliteSaver {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  return redactCheckpointer(SqliteSaver.fromConnString(path));
}

/** An in-memory checkpointer (lost with the process). */
export function createMemoryCheckpointer(): MemorySaver {
  return redactCheckpointer(new MemorySaver());
}

/** Builds a checkpointer for `scheme:rest` specs; `rest` is everything after the first colon. */
export type CheckpointerFactory = (rest: string, ctx: { out: string }) => BaseCheckpointSaver;

const schemes = new Map<string, CheckpointerFactory>([
  ["memory", () => createMemoryCheckpointer()],
  ["sqlite", (rest, ctx) => createSqliteCheckpointer(rest || join(ctx.out, "checkpoints.sqlite"))],
]);

/** Let a backend (e.g. PostgreSQL) handle `<scheme>:...` checkpoint specs. */
export function registerCheckpointerScheme(scheme: string, factory: CheckpointerFactory): void {
  schemes.set(scheme, factory);
}

/** Check a checkpoint spec; throws a ConfigError naming `--checkpoint` and the known schemes. */
export function parseCheckpointSpec(spec: string): { scheme: string; rest: string } | null {
  if (spec === "none" || spec === "") return null;
  const i = spec.indexOf(":");
  const scheme = i < 0 ? spec : spec.slice(0, i);
  // postgres://user@host/db: the scheme is the URL's
  const key = schemes.has(scheme) ? scheme : /^postgres(ql)?$/.test(scheme) ? "postgres" : scheme;
  if (!schemes.has(key)) throw new ConfigError(`--checkpoint: unknown checkpointer "${spec}" (use none, memory, sqlite or sqlite:<path>${[...schemes.keys()].filter((k) => !["memory", "sqlite"].includes(k)).map((k) => `, ${k}:...`).join("")})`, { field: "checkpoint" });
  return { scheme: key, rest: key === "postgres" ? spec : i < 0 ? "" : spec.slice(i + 1) };
}

const opened = new Map<string, BaseCheckpointSaver>();

/**
 * The checkpointer for a spec, or `false` for "none" (batch runs: no per-step checkpoint copies;
 * a killed episode re-runs from its start, the results log still resumes the run). One instance
 * per spec and run folder.
 */
export function createCheckpointer(spec: string | undefined, ctx: { out: string }): BaseCheckpointSaver | false {
  const parsed = parseCheckpointSpec(spec ?? "none");
  if (!parsed) return false;
  const key = `${spec}\u0000${ctx.out}`;
  let saver = opened.get(key);
  if (!saver) {
    // Registered backends redact too, whatever their factory did.
    saver = redactCheckpointer(schemes.get(parsed.scheme)!(parsed.rest, ctx));
    opened.set(key, saver);
  }
  return saver;
}
