/**
 * Checkpointers for recovery episodes: LangGraph's MemorySaver and SqliteSaver (the embedded
 * durable option that lets a killed episode resume in another process), and a small factory from
 * a spec string (`--checkpoint none|memory|sqlite[:path]`) that other backends register with
 * (`registerCheckpointerScheme("postgres", ...)`). Every saver made here redacts secrets from
 * what it stores (packages/core/src/store/redacting-serde.ts), like every file write. The factories are
 * synchronous and load nothing: each returns a LazyCheckpointSaver that imports its saver's
 * package on its first call (importing `retrace-cua` does not load LangGraph).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { checkOutDir, prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { fileKind } from "@retrace-cua/core/store/read-file";
import { redactCheckpointer } from "@retrace-cua/core/store/redacting-serde";
import { redactText } from "@retrace-cua/core/secrets";
import { LazyCheckpointSaver } from "@retrace-cua/core/store/lazy-checkpointer";
import { importOptional, isMissingPackage, missingPackageError } from "@retrace-cua/core/optional-import";

/**
 * Check a SQLite checkpoint path without creating anything: its folder can be made and written
 * (not /proc, not under a file), and the path itself is a regular file or nothing yet.
 */
export function checkSqlitePath(path: string, flag = "--checkpoint"): void {
  if (path === ":memory:") return;
  if (!path.trim())
    throw new ConfigError(`${flag}: give a file path after sqlite: (or plain sqlite for <out>/checkpoints.sqlite)`, {
      field: "checkpoint",
    });
  checkOutDir(dirname(path), { flag });
  let st;
  try {
    st = statSync(path);
  } catch {
    return; // does not exist yet: SQLite creates it
  }
  if (!st.isFile())
    throw new ConfigError(
      `${flag}: ${path} is ${fileKind(st)}, not a SQLite file; give a file path such as runs/x/checkpoints.sqlite`,
      { field: "checkpoint" },
    );
}

/**
 * A durable checkpointer in a SQLite file (created with its folder if missing). LangGraph's
 * SqliteSaver, from the optional peers `@langchain/langgraph-checkpoint-sqlite` and
 * `better-sqlite3`, loaded on first use (a missing one fails there, naming it).
 */
export function createSqliteCheckpointer(path: string, flag = "--checkpoint"): LazyCheckpointSaver {
  if (path !== ":memory:") {
    checkSqlitePath(path, flag);
    prepareOutDir(dirname(path), { flag });
  }
  return new LazyCheckpointSaver(async () => {
    const { SqliteSaver } = await importOptional(
      "@langchain/langgraph-checkpoint-sqlite",
      "the SQLite checkpointer",
      () => import("@langchain/langgraph-checkpoint-sqlite"),
    );
    try {
      return redactCheckpointer(SqliteSaver.fromConnString(path));
    } catch (err) {
      if (isMissingPackage(err, "better-sqlite3"))
        throw missingPackageError("better-sqlite3", "the SQLite checkpointer", err);
      throw err;
    }
  });
}

/** An in-memory checkpointer (lost with the process): LangGraph's MemorySaver, loaded on first use. */
export function createMemoryCheckpointer(): LazyCheckpointSaver {
  return new LazyCheckpointSaver(async () =>
    redactCheckpointer(new (await import("@langchain/langgraph")).MemorySaver()),
  );
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
  if (!schemes.has(key))
    throw new ConfigError(
      `--checkpoint: unknown checkpointer "${redactText(spec)}" (use none, memory, sqlite or sqlite:<path>${[
        ...schemes.keys(),
      ]
        .filter((k) => !["memory", "sqlite"].includes(k))
        .map((k) => `, ${k}:...`)
        .join("")})`,
      { field: "checkpoint" },
    );
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
