/**
 * A pass-through HTTP proxy on 127.0.0.1 that records every JSON request body it forwards: put in
 * front of a real model server (the stand-in), it lets a test read exactly what a client sent.
 */
import { createServer, type Server } from "node:http";

/** A running proxy. */
export interface RecordingProxy {
  /** Base URL ending in /v1 (the target's path kept). */
  readonly url: string;
  /** Parsed JSON bodies of the POST requests, in arrival order. */
  readonly bodies: Array<Record<string, any>>;
  close(): Promise<void>;
}

/** Start a proxy forwarding to `target` (an origin, e.g. the stand-in's). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: Array<Record<string, any>> = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === "POST" && body.length) bodies.push(JSON.parse(body.toString("utf8")));
    try {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
      const r = await fetch(target + req.url, {
        method: req.method,
        headers,
        ...(req.method === "POST" ? { body } : {}),
      });
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await r.arrayBuffer()));
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
