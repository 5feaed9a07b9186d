/**
 * The lean run context (packages/graphs/src/run-context.ts): no disabled langsmith RunTree per runnable call,
 * while LangGraph's getConfig(), nested graphs and context variables see what they saw before.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Annotation, END, START, StateGraph, getConfig } from "@langchain/langgraph";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { getContextVariable, setContextVariable } from "@langchain/core/context";
import {
  installLeanRunContext,
  leanRunContextInstalled,
  uninstallLeanRunContext,
} from "../../packages/graphs/src/run-context.ts";

/** The stored run tree's id, or "none" when the storage holds no run tree. */
function runId(): string {
  const store = AsyncLocalStorageProviderSingleton.getInstance().getStore() as
    { createChild?: unknown; id?: string } | undefined;
  return typeof store?.createChild === "function" ? String(store.id) : "none";
}

const S = Annotation.Root({ seen: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) });

/** A graph whose node runs a nested graph; both report what they see of the run's config and storage. */
function graphs() {
  const inner = new StateGraph(S)
    .addNode("inner", () => {
      return {
        seen: [`inner thread=${getConfig().configurable?.thread_id} var=${getContextVariable("probe")} run=${runId()}`],
      };
    })
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  return new StateGraph(S)
    .addNode("outer", async () => {
      const run = runId();
      setContextVariable("probe", "p1"); // replaces the stored run tree by a copy: the config must survive it
      const nested = await inner.invoke({ seen: [] });
      return { seen: [`outer thread=${getConfig().configurable?.thread_id} run=${run}`, ...nested.seen] };
    })
    .addEdge(START, "outer")
    .addEdge("outer", END)
    .compile();
}

afterEach(() => uninstallLeanRunContext());

describe("lean run context", () => {
  it("keeps getConfig(), nested graphs, setContextVariable and run trees working, without constructing a RunTree per call", async () => {
    uninstallLeanRunContext();
    const before = await graphs().invoke({ seen: [] }, { configurable: { thread_id: "t-1" } });
    expect(installLeanRunContext({})).toBe(true);
    expect(leanRunContextInstalled()).toBe(true);
    const after = await graphs().invoke({ seen: [] }, { configurable: { thread_id: "t-1" } });
    const shape = (xs: string[]) => xs.map((x) => x.replace(/run=\S+/, "run=ID"));
    expect(shape(before.seen)).toEqual(["outer thread=t-1 run=ID", "inner thread=t-1 var=p1 run=ID"]);
    expect(shape(after.seen)).toEqual(shape(before.seen));
    const ids = (xs: string[]) => xs.map((x) => /run=(\S+)/.exec(x)![1]);
    // LangChain makes a run tree with a fresh uuid per call; the lean path copies one template
    expect(new Set(ids(before.seen)).size).toBe(2);
    expect(new Set(ids(after.seen)).size).toBe(1);
    expect(ids(after.seen)[0]).not.toBe("none");
  });

  it("stays out when tracing is configured, on request, and for calls that carry callbacks", async () => {
    uninstallLeanRunContext();
    expect(installLeanRunContext({ LANGSMITH_TRACING: "true" })).toBe(false);
    expect(installLeanRunContext({ LANGCHAIN_TRACING_V2: "true" })).toBe(false);
    expect(installLeanRunContext({ RETRACE_LANGCHAIN_RUN_TREES: "1" })).toBe(false);
    expect(leanRunContextInstalled()).toBe(false);
    expect(installLeanRunContext({})).toBe(true);
    const seen: string[] = [];
    const handler = { name: "probe-handler", handleChainStart: () => void seen.push("start") };
    const out = await graphs().invoke({ seen: [] }, { configurable: { thread_id: "t-2" }, callbacks: [handler] });
    // with a callback handler LangChain's own path runs (its RunTree included) and the handler fires
    expect(out.seen[0]).toMatch(/^outer thread=t-2 run=\S+$/);
    expect(seen.length).toBeGreaterThan(0);
  });
});
