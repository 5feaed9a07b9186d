/**
 * Shared setup of the loud-degradation tests (degraded-graph, degraded-openai-agents and degraded-ai-sdk
 * .int.test.ts): judge endpoints that fail (500, an HTML page, nothing listening), a judge pointed at one,
 * a stderr capture for the plain warning line, and a scripted agent model for the wrong-item scenario.
 * Every server is a real one on 127.0.0.1, closed after each test by useServerCleanup().
 */
import { afterEach, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTracingDisabled, setTraceProcessors } from "@openai/agents";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { BlobReader } from "../../../packages/core/src/blob-store.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
export const servers: ScriptedOpenAIServer[] = [];
export const raw: Server[] = [];

/** Closes the servers the calling file's tests started, and undoes their mocks and trace processors, after each test. */
export function useServerCleanup(): void {
  afterEach(async () => {
    vi.restoreAllMocks();
    setTracingDisabled(true);
    setTraceProcessors([]);
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await Promise.all(raw.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
}

/** Judge endpoints that fail: 500 on every request, an HTML page, nothing listening. */
export async function brokenJudge(
  kind: "500" | "html" | "wrong-url",
): Promise<{ baseURL: string; requests: () => number }> {
  if (kind === "500") {
    const s = await startScriptedOpenAIServer({ responder: () => ({ status: 500 }) });
    servers.push(s);
    return { baseURL: s.url, requests: () => s.requests.length };
  }
  if (kind === "html") {
    let n = 0;
    const s = createServer((_req, res) => {
      n++;
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><html><head><title>Login</title></head><body>Please sign in</body></html>");
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    raw.push(s);
    return { baseURL: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, requests: () => n };
  }
  // A port nothing listens on: close a server right after it got its port.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => 0 };
}

export function judge(baseURL: string, blobs: BlobReader, extra: { timeoutMs?: number; maxRetries?: number } = {}) {
  return createLlmErrorDetector({
    model: createOpenAIChatModel({
      model: "judge-vlm",
      blobs,
      baseURL,
      apiKey: "test-key",
      maxRetries: extra.maxRetries ?? 0,
      timeoutMs: extra.timeoutMs ?? 5_000,
    }),
    historyImages: 1,
  });
}

/** Plain warning lines written to stderr while `f` runs. */
export async function capturingStderr<T>(f: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, "write").mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write);
  const value = await f();
  return { value, lines };
}
export const plainDegraded = (lines: string[]) =>
  lines.filter((l) => l.startsWith("retrace: warning: recovery is DEGRADED"));

/** An agent model that answers by how many steps its input holds: the scenario's forward run, then a text answer. */
export async function agentsSetup(kind: "responses" | "messages") {
  const s = await wrongItemScenario(servers);
  let k = 0;
  const server = await startScriptedOpenAIServer({
    responder: (req: RecordedRequest) => {
      if (kind === "responses") {
        const n = (req.body.input as any[]).filter((i) => i.type === "computer_call").length;
        const a = s.forward[n];
        if (!a) return { endpoint: "responses", text: "Done." };
        const id = k++;
        return {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: `cu_${id}`,
              call_id: `call_${id}`,
              action: toOpenAIAction(a),
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        };
      }
      const n = (req.body.messages as any[]).filter(
        (m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p: any) => p.type === "tool_use"),
      ).length;
      const a = s.forward[n];
      if (!a) return { endpoint: "messages", text: "Done." };
      return {
        endpoint: "messages",
        content: [{ type: "tool_use", id: `toolu_${k++}`, name: "computer", input: toAnthropicInput(a) }],
      };
    },
  });
  servers.push(server);
  return { s, server };
}
