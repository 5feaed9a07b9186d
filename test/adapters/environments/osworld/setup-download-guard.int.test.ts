/**
 * An OSWorld task config's `download` set-up step goes through the public-address guard of the
 * control server's `/setup/download_file` (issue 41): a URL on 127.0.0.1, on a name resolving to
 * loopback, on the cloud metadata address or on a private range is refused with one line and
 * never fetched or uploaded, unless `downloads.allowLoopback` opts in to loopback. Real servers on
 * 127.0.0.1: a file server (counts requests) and a stand-in OSWorld VM answering `/setup/upload`
 * as OSWorld's server does (OsworldClient talks to it over HTTP).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OsworldClient } from "../../../../packages/desktops/src/osworld/client.ts";
import { runOsworldSetup, setupProblem } from "../../../../packages/desktops/src/osworld/runner.ts";
import { parseOsworldTask, type OsworldTask } from "../../../../packages/desktops/src/osworld/tasks.ts";

let files: Server;
let vm: Server;
let fileRequests = 0;
const uploads: Buffer[] = [];
let fileUrl = "";
let client: OsworldClient;

const listen = async (s: Server): Promise<number> => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
};

beforeAll(async () => {
  files = createServer((_req, res) => {
    fileRequests++;
    res.writeHead(200, { "content-type": "text/plain" }).end("quarterly numbers\n");
  });
  vm = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url !== "/setup/upload") return void res.writeHead(404).end("not found");
      uploads.push(Buffer.concat(chunks));
      res.writeHead(200, { "content-type": "text/plain" }).end("File Uploaded");
    });
  });
  fileUrl = `http://127.0.0.1:${await listen(files)}/report.txt`;
  client = new OsworldClient({
    baseUrl: `http://127.0.0.1:${await listen(vm)}`,
    retryTimes: 1,
    retryIntervalMs: 10,
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await Promise.all([files, vm].map((s) => new Promise((r) => s?.close(r))));
});

/** A task config whose set-up downloads `url` into the desktop user's home. */
function task(url: string): OsworldTask {
  const t = parseOsworldTask(
    JSON.stringify({
      id: "download-guard-1",
      instruction: "Open the report.",
      config: [{ type: "download", parameters: { files: [{ url, path: "/home/user/report.txt" }] } }],
      evaluator: { func: "infeasible" },
    }),
    "download-guard-1.json",
    "os",
  );
  if (!("setup" in t)) throw new Error(`task rejected: ${JSON.stringify(t)}`);
  return t;
}

describe("a task config's download step reaches only public addresses", () => {
  it.each([
    [
      "127.0.0.1 (the file server)",
      () => fileUrl,
      /download refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address \(the server's own machine\); only public addresses are downloaded/,
    ],
    [
      "localhost (a name resolving to loopback)",
      () => fileUrl.replace("127.0.0.1", "localhost"),
      /download refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    ],
    [
      "the cloud metadata address",
      () => "http://169.254.169.254/latest/meta-data/",
      /download refused: 169\.254\.169\.254 resolves to 169\.254\.169\.254, the cloud metadata address/,
    ],
    [
      "a link-local address",
      () => "http://169.254.10.20/x",
      /169\.254\.10\.20, a private, link-local or reserved address/,
    ],
    ["a private address", () => "http://10.1.2.3:8080/x", /10\.1\.2\.3, a private, link-local or reserved address/],
    [
      "a private address (192.168/16)",
      () => "http://192.168.0.10/x",
      /192\.168\.0\.10, a private, link-local or reserved address/,
    ],
  ])("%s: refused with one line, nothing fetched or uploaded", async (_name, url, reason) => {
    const before = { fetched: fileRequests, uploaded: uploads.length };
    const t = task(url());
    const started = Date.now();
    const out = await runOsworldSetup(client, t.setup);
    expect(out.ran).toEqual([]);
    expect(out.failed).toHaveLength(1);
    expect(out.failed[0].type).toBe("download");
    expect(out.failed[0].message).toMatch(reason);
    expect(out.failed[0].message.split("\n")).toHaveLength(1);
    const problem = setupProblem(t.id, out)!;
    expect(problem).toMatch(
      /^OSWorld task download-guard-1: set-up not done \(step "download" failed: .*download refused/,
    );
    expect(fileRequests).toBe(before.fetched);
    expect(uploads.length).toBe(before.uploaded);
    expect(Date.now() - started).toBeLessThan(5_000); // refused before connecting, not retried
  });

  it("downloads.allowLoopback opts in: the file is fetched and uploaded to the desktop", async () => {
    const before = fileRequests;
    const out = await runOsworldSetup(client, task(fileUrl).setup, { downloads: { allowLoopback: true } });
    expect(out).toEqual({ ran: ["download"], unsupported: [], failed: [] });
    expect(fileRequests).toBe(before + 1);
    expect(uploads.at(-1)!.toString("latin1")).toContain("quarterly numbers\n");
    expect(uploads.at(-1)!.toString("latin1")).toContain("/home/user/report.txt");
  });

  it("allowLoopback opens loopback only: a private address stays refused", async () => {
    const out = await runOsworldSetup(client, task("http://172.16.0.5/x").setup, {
      downloads: { allowLoopback: true },
    });
    expect(out.failed[0]?.message).toMatch(/172\.16\.0\.5, a private, link-local or reserved address/);
  });
});
