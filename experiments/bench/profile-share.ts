/**
 * Where a run's main-thread CPU goes: a V8 CPU profile (node:inspector, in this process) of a piece
 * of work, and the share of its busy samples spent in the runtime machinery around the agent —
 * LangGraph, LangChain core, langsmith, LangGraph's checkpoint packages and uuid — rather than in
 * retrace's own code, the environment and the agents. A sample belongs to the nearest frame on its
 * stack that comes from a file (JavaScript of a package or of retrace); Node's internals (async
 * hooks, timers) count for whoever called them. Idle samples are left out; GC counts as busy.
 */
import { Session, type Profiler } from "node:inspector";

/** Packages counted as runtime machinery. */
const MACHINERY = /\/node_modules\/(@langchain\/|langsmith\/|uuid\/)/;

/** The busy-sample shares of one profile. */
export interface ProfileShare {
  /** Share of busy samples in LangGraph/LangChain/langsmith/checkpoint/uuid code. */
  machinery: number;
  /** Busy and idle milliseconds sampled. */
  busyMs: number;
  idleMs: number;
  /** Machinery milliseconds per package (`@langchain/langgraph`, ...). */
  byPackage: Record<string, number>;
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

/** Run `work` under the CPU profiler and return its result with the profile. */
export async function profiled<T>(
  work: () => Promise<T>,
  intervalUs = 500,
): Promise<{ result: T; profile: Profiler.Profile }> {
  const session = new Session();
  session.connect();
  try {
    await post(session, "Profiler.enable");
    await post(session, "Profiler.setSamplingInterval", { interval: intervalUs });
    await post(session, "Profiler.start");
    const result = await work();
    const { profile } = await post<{ profile: Profiler.Profile }>(session, "Profiler.stop");
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

function packageOf(url: string): string {
  const rest = url.split("/node_modules/").pop()!.split("/");
  return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** Classify a profile's samples (see the module comment). */
export function machineryShare(profile: Profiler.Profile): ProfileShare {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = new Map<number, string | null>();
  const ownerOf = (id: number): string | null => {
    if (owner.has(id)) return owner.get(id)!;
    const n = byId.get(id)!;
    const url = n.callFrame.url;
    const own = url.startsWith("file://") || url.includes("/node_modules/") ? url : undefined;
    const p = parent.get(id);
    const result = own ?? (p === undefined ? null : ownerOf(p));
    owner.set(id, result);
    return result;
  };
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  let idle = 0;
  let machinery = 0;
  const byPackage: Record<string, number> = {};
  (profile.samples ?? []).forEach((id, i) => {
    const dt = (deltas[i] ?? 0) / 1000;
    const name = byId.get(id)?.callFrame.functionName;
    if (name === "(idle)") {
      idle += dt;
      return;
    }
    busy += dt;
    const url = ownerOf(id);
    if (url && MACHINERY.test(url)) {
      machinery += dt;
      const pkg = packageOf(url);
      byPackage[pkg] = (byPackage[pkg] ?? 0) + dt;
    }
  });
  return { machinery: busy ? machinery / busy : 0, busyMs: busy, idleMs: idle, byPackage };
}
