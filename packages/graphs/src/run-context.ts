/**
 * LangChain builds a disabled langsmith RunTree for every runnable call even when tracing is off
 * (a uuid from crypto random bytes, two microsecond timestamps, a dozen environment reads): LangGraph
 * calls `runWithConfig` for each node, channel writer and branch, about 8 times per superstep, and
 * the RunTree was ~20% of LangGraph's cost per superstep here (profiles in README "Runtime cost").
 * With tracing off, that RunTree only carries the runnable config (and context variables) in
 * async-local storage.
 *
 * {@link installLeanRunContext} stores a copy of one disabled RunTree made once (same prototype and
 * fields, its own `extra` with the config and its own `child_runs`) instead of constructing a new
 * one, so everything that reads the storage (LangGraph's `getConfig()`, nested graphs,
 * `setContextVariable`, a langsmith `traceable` inside a node) sees what it saw before, minus a
 * fresh run id that nothing records. It only takes calls that nothing traces: not when tracing is
 * configured in the environment (LANGSMITH_TRACING, LANGCHAIN_TRACING_V2, ...: then it is not
 * installed at all), not when the call carries callbacks, and not inside a langsmith run that
 * traces; those go to LangChain's own code. RETRACE_LANGCHAIN_RUN_TREES=1 turns it off.
 */
import { AsyncLocalStorageProviderSingleton, _CONTEXT_VARIABLES_KEY } from "@langchain/core/singletons";

const LC_CHILD_KEY = Symbol.for("lc:child_config");
const TRACING_VARS = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
  "LANGCHAIN_VERBOSE",
];

type RunWithConfig = typeof AsyncLocalStorageProviderSingleton.runWithConfig;
type Store = Record<PropertyKey, unknown> | undefined;

let original: RunWithConfig | undefined;

/** Whether the lean path is installed in this process. */
export function leanRunContextInstalled(): boolean {
  return original !== undefined;
}

/** Install the lean path once per process (see the module comment); returns whether it is active. */
export function installLeanRunContext(env: NodeJS.ProcessEnv = process.env): boolean {
  if (original) return true;
  if (env.RETRACE_LANGCHAIN_RUN_TREES === "1" || TRACING_VARS.some((v) => env[v] === "true")) return false;
  const provider = AsyncLocalStorageProviderSingleton;
  const base = provider.runWithConfig.bind(provider) as RunWithConfig;
  // One disabled RunTree made by LangChain itself, as the template of every lean one.
  const template = base({}, () => provider.getInstance().getStore()) as Record<PropertyKey, unknown> | undefined;
  if (!template || !isRunTree(template) || template.tracingEnabled !== false) return false; // storage not initialised, or tracing on
  const proto = Object.getPrototypeOf(template) as object;
  original = base;
  provider.runWithConfig = function lean<T>(
    config: Parameters<RunWithConfig>[0],
    callback: () => T,
    avoidCreatingRootRunTree?: boolean,
  ): T {
    const storage = provider.getInstance();
    const previous = storage.getStore() as Store;
    if (hasCallbacks(config) || (isRunTree(previous) && previous?.tracingEnabled !== false))
      return base(config, callback, avoidCreatingRootRunTree);
    let store: Store;
    if (!avoidCreatingRootRunTree)
      store = Object.assign(Object.create(proto) as object, template, {
        child_runs: [],
        inputs: {},
        serialized: {},
        extra: { metadata: {}, [LC_CHILD_KEY]: config },
      });
    const vars = previous?.[_CONTEXT_VARIABLES_KEY];
    if (vars !== undefined) (store ??= {})[_CONTEXT_VARIABLES_KEY] = vars;
    return storage.run(store, callback);
  } as RunWithConfig;
  return true;
}

/** Undo {@link installLeanRunContext} (tests). */
export function uninstallLeanRunContext(): void {
  if (!original) return;
  AsyncLocalStorageProviderSingleton.runWithConfig = original;
  original = undefined;
}

function hasCallbacks(config: unknown): boolean {
  const cb = (config as { callbacks?: unknown } | undefined)?.callbacks;
  if (!cb) return false;
  if (Array.isArray(cb)) return cb.length > 0;
  const m = cb as { handlers?: unknown[]; inheritableHandlers?: unknown[] };
  return (m.handlers?.length ?? 0) > 0 || (m.inheritableHandlers?.length ?? 0) > 0;
}

function isRunTree(x: Store): boolean {
  return typeof (x as { createChild?: unknown } | undefined)?.createChild === "function";
}
