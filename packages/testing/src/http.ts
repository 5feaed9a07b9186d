/**
 * The HTTP plumbing both local model servers share (the scripted server and the seeded stand-in):
 * read a request body, answer JSON, the `GET /v1/models` list, listen on 127.0.0.1 and close
 * with every open connection.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The whole request body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Answer `body` as JSON with `status` (plus extra headers). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The body of an OpenAI-style `GET /v1/models` that lists one model. */
export function modelList(id: string, ownedBy: string): unknown {
  return { object: "list", data: [{ id, object: "model", owned_by: ownedBy }] };
}

/** Listen on 127.0.0.1 (`port` 0: any free port); resolves to the origin `http://127.0.0.1:PORT`. */
export async function listenLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Close the server, ending open (keep-alive) connections instead of waiting for them. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
