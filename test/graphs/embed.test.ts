import { describe, expect, it } from "vitest";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { createRecoveryGraph } from "../../packages/graphs/src/load-graph.ts";
import { withRecovery } from "../../packages/graphs/src/with-recovery.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import type { EpisodeResult } from "../../packages/core/src/episode.ts";
import type { Task } from "../../packages/core/src/task.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, createToyRecoverer, newBlobs } from "./fixtures/toy.ts";

describe("embedding and wrapping", () => {
  it("the compiled recovery graph runs as a node of a user's own LangGraph", async () => {
    const blobs = newBlobs();
    const inner = await createRecoveryGraph({
      components: {
        policy: createToyPolicy({ slipTicks: [2] }),
        env: new ToyDesk(blobs),
        blobs,
        detector: createToyDetector(),
        recoverer: createToyRecoverer(),
      },
      options: { freezeWindow: 1 },
    });
    const Parent = Annotation.Root({
      task: Annotation<Task>(),
      result: Annotation<EpisodeResult>(),
      summary: Annotation<string>(),
    });
    const parent = new StateGraph(Parent)
      .addNode("retrace", async (s: typeof Parent.State) => ({
        result: (await inner.invoke({ task: s.task })).result!,
      }))
      .addNode("report", (s: typeof Parent.State) => ({
        summary: `${s.result.taskId}: ${s.result.success} after ${s.result.accounting.recoveryAttempts} recovery`,
      }))
      .addEdge(START, "retrace")
      .addEdge("retrace", "report")
      .addEdge("report", END)
      .compile({ checkpointer: new MemorySaver() });
    const out = await parent.invoke({ task: TOY_TASK }, { configurable: { thread_id: "p" }, recursionLimit: 200 });
    expect(out.summary).toBe("toy-type: true after 1 recovery");
  });

  it("withRecovery wraps a policy once and runs episodes on any environment", async () => {
    const agent = withRecovery(createToyPolicy({ slipTicks: [3] }), {
      detector: createToyDetector(),
      recoverer: createToyRecoverer(),
      freezeWindow: 2,
    });
    expect(agent.options.freezeWindow).toBe(2);
    expect(agent.name).toBe("toy-policy+recovery");
    const blobs = newBlobs();
    const r = await agent.run({ task: TOY_TASK, env: new ToyDesk(blobs), blobs });
    expect(r.success).toBe(true);
    expect(r.accounting.recoveryAttempts).toBe(1);
    expect(r.simulated).toBe(true);
    const blobs2 = newBlobs();
    const g = await agent.graph({ env: new ToyDesk(blobs2), blobs: blobs2 });
    const state = await g.invoke({ task: TOY_TASK }, { recursionLimit: 200 });
    expect(state.result?.success).toBe(true);
  });

  it("withRecovery rejects bad options up front, naming the field", () => {
    expect(() => withRecovery(createToyPolicy(), { maxRecoveryIterations: -1 })).toThrow(
      /^withRecovery: option "maxRecoveryIterations" must be >= 0$/,
    );
    expect(() => withRecovery(createToyPolicy(), { maxRecoveryIterations: -1 })).toThrow(ConfigError);
  });
});
