/**
 * The graph builders of the main entry, loading the graph on first use. LangGraph and
 * @langchain/core take most of a second of CPU and ~40 MB to import, and a user who only runs
 * episodes (`withRecovery`, `runEpisode`) or uses the core (detectors, metrics, datasets) should
 * not pay for them at `import "retrace-cua"` (test/public-api-loading.test.ts checks it does not load
 * LangGraph). So these builders are async: the first call imports packages/graphs/src/recovery-graph.ts, and
 * LangGraph with it; later calls find it loaded.
 */
import type { RuntimeContext } from "./context.ts";
import type { CreateRecoveryGraphArgs, RecoveryGraph } from "./recovery-graph.ts";
import type { RecoverySubgraph } from "./recovery-subgraph.ts";

/**
 * Build and compile the recovery graph (packages/graphs/src/recovery-graph.ts). Invoke it with `{ task }`; the
 * final state's `result` is the EpisodeResult. Embeddable as a node of a user's own graph. Async
 * because its first call loads LangGraph.
 */
export async function createRecoveryGraph(args: CreateRecoveryGraphArgs): Promise<RecoveryGraph> {
  return (await import("./recovery-graph.ts")).compileRecoveryGraph(args);
}

/**
 * Build and compile the recovery sub-agent graph over a runtime context (packages/graphs/src/recovery-subgraph.ts). Async: its first
 * call loads LangGraph.
 */
export async function createRecoverySubgraph(ctx: RuntimeContext): Promise<RecoverySubgraph> {
  return (await import("./recovery-subgraph.ts")).compileRecoverySubgraph(ctx);
}
