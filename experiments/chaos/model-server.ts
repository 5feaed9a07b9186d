/**
 * A seeded OpenAI-compatible chat server with fault injection at the HTTP level (`retrace chaos`),
 * so the real client code (the openai SDK, retries, timeouts, JSON re-asks, the cache) meets the
 * faults a paid endpoint produces: 429, 500, a request that is never answered (the client's
 * timeout ends it), a body that is not JSON, a response cut off mid-body, a refusal in place of an
 * answer, and an answer that echoes the caller's API key. Healthy answers come from `answer`
 * (seeded text standing in for a model: SIMULATED). Whether a request is faulty is drawn from a
 * hash of (seed, request body, how often that body was seen), so the same run gives the same
 * faults. Listens on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { sha256Hex } from "@retrace-cua/core/hash";
import { seededUnit } from "./env-faults.ts";

/** The model fault kinds. */
export const MODEL_FAULTS = [
  "429",
  "500",
  "timeout",
  "malformed-json",
  "truncated-stream",
  "refusal",
  "echo-key",
] as const;
export type ModelFault = (typeof MODEL_FAULTS)[number];

/** Options of {@link startChaosModelServer}. */
export interface ChaosModelServerOptions {
  /** Seed of every draw. */
  seed: number | string;
  /** Probability that one request gets a fault, 0..1. */
  rate: number;
  /** Which faults to draw from (uniformly). @default all of MODEL_FAULTS */
  faults?: readonly ModelFault[];
  /**
   * The healthy answer's text for a parsed request body and a seeded unit draw; `note` is text to carry inside it (the
   * echoed key).
   */
  answer: (body: ChatBody, draw: number, note?: string) => string;
}

/** The parts of a chat-completions request the server looks at. */
export interface ChatBody {
  model?: string;
  messages?: Array<{ role: string; content: unknown }>;
}

/** A running chaos server. */
export interface ChaosModelServer {
  /** Base URL ending in /v1. */
  url: string;
  /** Faults injected, by kind. */
  readonly faults: Record<ModelFault, number>;
  /** Requests answered with HTTP 200 and a complete body (what a paid endpoint bills). */
  readonly billed: number;
  /** Every request received. */
  readonly requests: number;
  /** Hashes of the bodies that were billed, in order (to check that nothing is billed twice). */
  readonly billedBodies: string[];
  close(): Promise<void>;
}

/** The text of every message part, joined (what the answer functions read). */
export function bodyText(body: ChatBody): string {
  return (body.messages ?? [])
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: string }) => p.text ?? "").join("\n")
          : "",
    )
    .join("\n");
}

/** Start the server on 127.0.0.1 and a free port. */
export async function startChaosModelServer(options: ChaosModelServerOptions): Promise<ChaosModelServer> {
  const faults = options.faults ?? MODEL_FAULTS;
  const counts = Object.fromEntries(MODEL_FAULTS.map((f) => [f, 0])) as Record<ModelFault, number>;
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();
  const billedBodies: string[] = [];
  const state = { billed: 0, requests: 0 };

  const completion = (model: string, text: string) =>
    JSON.stringify({
      id: `chaos-${state.requests}`,
      object: "chat.completion",
      created: 0,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 100,
        completion_tokens: Math.ceil(text.length / 4),
        total_tokens: 100 + Math.ceil(text.length / 4),
      },
    });

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    state.requests++;
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    let body: ChatBody;
    try {
      body = JSON.parse(raw) as ChatBody;
    } catch {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "request body is not JSON" } }));
      return;
    }
    const hash = sha256Hex(Buffer.from(raw));
    const nth = seen.get(hash) ?? 0;
    seen.set(hash, nth + 1);
    const model = body.model ?? "chaos-model";
    const draw = seededUnit(options.seed, "model", hash, nth);
    const healthy = (note?: string) => options.answer(body, seededUnit(options.seed, "answer", hash), note);
    const ok = (text: string) => {
      state.billed++;
      billedBodies.push(hash);
      res.writeHead(200, { "content-type": "application/json" }).end(completion(model, text));
    };
    if (draw >= options.rate) return ok(healthy());
    const fault = faults[Math.floor(seededUnit(options.seed, "model-kind", hash, nth) * faults.length)];
    counts[fault]++;
    switch (fault) {
      case "429":
        res
          .writeHead(429, { "content-type": "application/json", "retry-after-ms": "20" })
          .end(JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit_error" } }));
        return;
      case "500":
        res
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "internal error", type: "server_error" } }));
        return;
      case "timeout":
        return; // never answered; the client's timeout ends it, close() drops the socket
      case "malformed-json":
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(`{"id": "x", "choices": [{"message": {"content": "`);
        return;
      case "truncated-stream": {
        const full = completion(model, healthy());
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(full)) });
        res.write(full.slice(0, Math.floor(full.length / 2)));
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      }
      case "refusal":
        return ok("I'm sorry, but I can't help with that request.");
      case "echo-key": {
        const auth = String(req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
        return ok(healthy(`request authorised with ${auth}`));
      }
    }
  };

  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => handle(req, res, raw));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    faults: counts,
    get billed() {
      return state.billed;
    },
    get requests() {
      return state.requests;
    },
    billedBodies,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
