/**
 * A TCP port of a container reached from the host without giving the container a network
 * (desktops run with `NetworkMode: none`): a listener on the host's loopback whose every
 * connection is piped through one `exec` of `socat STDIO TCP:127.0.0.1:<port>` inside the
 * container (a python3 relay where the image has no socat), much as `kubectl port-forward` does.
 * OSWorld's Chrome getters reach Chromium's remote-debugging port (9222) this way; WebSockets
 * (CDP) pass through unchanged.
 */
import type Docker from "dockerode";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { logger } from "@retrace-cua/core/logger";

/** A running forward. */
export interface PortForward {
  /** The host port on 127.0.0.1. */
  port: number;
  /** Stop listening and end every open connection. */
  close(): Promise<void>;
}

/** Forward 127.0.0.1:<free port> on the host to `port` on the container's own loopback. */
export async function forwardContainerPort(o: {
  docker: Docker;
  /** The container a new connection goes to (the current one: a desktop's container changes on reset). */
  container: () => Docker.Container;
  port: number;
}): Promise<PortForward> {
  const open = new Set<Socket>();
  const server: Server = createServer((socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    Promise.resolve()
      .then(() => pipeThroughExec(o.docker, o.container(), o.port, socket))
      .catch((err: Error) => {
        logger.debug({ err: err.message, port: o.port }, "container port forward: connection failed");
        socket.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Python's side of the relay, for images without socat: stdin to the socket, the socket to stdout. */
const PY_RELAY = [
  "import os, socket, sys, threading",
  's = socket.create_connection(("127.0.0.1", int(sys.argv[1])))',
  "def up():",
  "    while True:",
  "        d = os.read(0, 65536)",
  "        if not d: break",
  "        s.sendall(d)",
  "    s.shutdown(socket.SHUT_WR)",
  "threading.Thread(target=up, daemon=True).start()",
  "while True:",
  "    d = s.recv(65536)",
  "    if not d: break",
  "    sys.stdout.buffer.write(d); sys.stdout.buffer.flush()",
].join("\n");

/** socat where the image has it (the apps image), else python3 (every retrace image). */
const RELAY = `if command -v socat >/dev/null 2>&1; then exec socat STDIO "TCP:127.0.0.1:$1"; else exec python3 -c '${PY_RELAY}' "$1"; fi`;

async function pipeThroughExec(
  docker: Docker,
  container: Docker.Container,
  port: number,
  socket: Socket,
): Promise<void> {
  socket.pause();
  const exec = await container.exec({
    Cmd: ["/bin/sh", "-c", RELAY, "relay", String(port)],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as unknown as NodeJS.ReadWriteStream & {
    destroy(): void;
    end(): void;
  };
  // stdout is multiplexed with stderr (no TTY): only stdout is the connection's data.
  const out = new PassThrough();
  const err = new PassThrough();
  docker.modem.demuxStream(stream as NodeJS.ReadableStream, out, err);
  let errText = "";
  err.on("data", (d: Buffer) => (errText += d.toString()).length > 2000 && (errText = errText.slice(-2000)));
  out.pipe(socket);
  socket.on("data", (d: Buffer) => stream.write(d));
  socket.on("end", () => stream.end());
  socket.on("close", () => stream.destroy());
  socket.on("error", () => stream.destroy());
  const done = () => {
    if (errText.trim()) logger.debug({ port, err: errText.trim().split("\n")[0] }, "container port forward: socat");
    out.end();
    socket.end();
  };
  stream.on("end", done);
  stream.on("close", done);
  stream.on("error", () => socket.destroy());
  socket.resume();
}
