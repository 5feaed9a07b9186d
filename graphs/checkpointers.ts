/**
 * Checkpointers for recovery episodes: LangGraph's MemorySaver (the default) and SqliteSaver, the
 * embedded durable option that lets a killed episode resume in another process.
 */
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** A durable checkpointer in a SQLite file (created with its folder if missing). */
export function createSqliteCheckpointer(path: string): SqliteSaver {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  return SqliteSaver.fromConnString(path);
}

/** An in-memory checkpointer (lost with the process). */
export function createMemoryCheckpointer(): MemorySaver {
  return new MemorySaver();
}
