/**
 * `/setup/download_file` SSRF rule (issue 41, packages/desktops/src/osworld/download-guard.ts):
 * cloud metadata, link-local, private and reserved addresses are refused, loopback only with the
 * explicit opt-in, host names are checked by the addresses they resolve to, and a redirect to a
 * refused address is refused. Real HTTP servers on 127.0.0.1; no desktop needed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedDownload, refusedAddress } from "../../../../packages/desktops/src/osworld/download-guard.ts";
import { HttpError } from "../../../../packages/desktops/src/osworld/control-http.ts";

let server: Server;
let base = "";
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === "/to-metadata")
      return void res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    if (req.url === "/to-private") return void res.writeHead(301, { location: "http://10.1.2.3/x" }).end();
    if (req.url === "/to-local") return void res.writeHead(302, { location: "/file.txt" }).end();
    if (req.url === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
    res.end("file bytes\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const refusedWith = async (p: Promise<unknown>): Promise<HttpError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  expect((err as Error).message).not.toContain("\n");
  return err as HttpError;
};

describe("download_file fetches only public addresses", () => {
  it("classifies addresses", () => {
    for (const a of [
      "169.254.169.254",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "fe80::1",
      "fd00::1",
      "::",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
    ])
      expect(refusedAddress(a), a).toBeDefined();
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(refusedAddress(a), a).toMatch(/loopback/);
      expect(refusedAddress(a, { allowLoopback: true }), a).toBeUndefined();
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1", "192.169.0.1"])
      expect(refusedAddress(a), a).toBeUndefined();
    expect(refusedAddress("169.254.169.254")).toBe("the cloud metadata address");
  });

  it("refuses cloud metadata and private literals before any connection", async () => {
    const e = await refusedWith(
      guardedDownload("http://169.254.169.254/latest/meta-data/", { maxBytes: 1000, deadlineMs: 2000 }),
    );
    expect([e.status, e.message]).toEqual([
      403,
      "download refused: 169.254.169.254 resolves to 169.254.169.254, the cloud metadata address; only public addresses are downloaded",
    ]);
    expect((await refusedWith(guardedDownload("http://10.0.0.1/", { maxBytes: 1000, deadlineMs: 2000 }))).status).toBe(
      403,
    );
    expect((await refusedWith(guardedDownload("http://[fe80::1]/", { maxBytes: 1000, deadlineMs: 2000 }))).status).toBe(
      403,
    );
  });

  it("refuses loopback by default (literal and a name that resolves to it); the opt-in allows it", async () => {
    const before = hits;
    expect((await refusedWith(guardedDownload(`${base}/file.txt`, { maxBytes: 1000 }))).message).toMatch(
      /127\.0\.0\.1, a loopback address/,
    );
    const port = (server.address() as AddressInfo).port;
    const byName = await refusedWith(guardedDownload(`http://localhost:${port}/file.txt`, { maxBytes: 1000 }));
    expect(byName.message).toMatch(/^download refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(hits).toBe(before); // nothing reached the server
    expect(
      (await guardedDownload(`${base}/file.txt`, { maxBytes: 1000, policy: { allowLoopback: true } })).toString(),
    ).toBe("file bytes\n");
  });

  it("a redirect to a refused address is refused; a redirect to an allowed one is followed; loops end", async () => {
    const policy = { allowLoopback: true };
    expect((await refusedWith(guardedDownload(`${base}/to-metadata`, { maxBytes: 1000, policy }))).message).toMatch(
      /169\.254\.169\.254, the cloud metadata address/,
    );
    expect((await refusedWith(guardedDownload(`${base}/to-private`, { maxBytes: 1000, policy }))).message).toMatch(
      /10\.1\.2\.3, a private/,
    );
    expect((await guardedDownload(`${base}/to-local`, { maxBytes: 1000, policy })).toString()).toBe("file bytes\n");
    expect((await refusedWith(guardedDownload(`${base}/loop`, { maxBytes: 1000, policy }))).message).toMatch(
      /more than 5 redirects/,
    );
  });

  it("keeps the size limit while the body arrives", async () => {
    const e = await refusedWith(guardedDownload(`${base}/file.txt`, { maxBytes: 4, policy: { allowLoopback: true } }));
    expect(e.status).toBe(413);
  });
});
