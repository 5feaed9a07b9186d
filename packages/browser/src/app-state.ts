/**
 * Reading and writing an app's server-side state: the built-in apps' state in this process, or a
 * user's app through its state endpoint (GET returns JSON, PUT puts it back; see tasks/types.ts).
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import type { AppServer } from "./apps/server.ts";
import type { AppsState } from "./apps/state.ts";

/** An app's server state, read and written as JSON. */
export interface AppStateAccess {
  /** Where the state comes from, for messages ("built-in apps", the endpoint URL). */
  readonly source: string;
  read(): Promise<unknown>;
  write(state: unknown): Promise<void>;
}

/** The built-in apps' state (a deep copy on every read and write). */
export function builtInState(server: AppServer): AppStateAccess {
  return {
    source: "built-in apps",
    read: async () => structuredClone(server.state),
    write: async (state) => {
      server.state = structuredClone(state) as AppsState;
    },
  };
}

/** A user's app state endpoint. */
export function endpointState(endpoint: { url: string; headers: Record<string, string> }): AppStateAccess {
  const call = async (method: "GET" | "PUT", body?: unknown): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(endpoint.url, {
        method,
        headers: { ...endpoint.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new EnvironmentError(
        `state endpoint ${endpoint.url}: ${method} failed: ${err instanceof Error ? err.message : String(err)}`,
        { retryable: true, cause: err },
      );
    }
    if (!res.ok)
      throw new EnvironmentError(`state endpoint ${endpoint.url}: ${method} answered ${res.status}`, {
        retryable: res.status >= 500,
      });
    return res;
  };
  return {
    source: endpoint.url,
    read: async () => (await call("GET")).json(),
    write: async (state) => void (await call("PUT", state)),
  };
}
