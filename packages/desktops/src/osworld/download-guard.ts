/**
 * `/setup/download_file` fetches only public addresses (issue 41: it fetched any URL, cloud
 * metadata at 169.254.169.254 and private ranges included). The rule, applied to every hop:
 *
 * - http(s) only; the host name is resolved first and EVERY address it resolves to must be
 *   allowed, and the connection goes to the checked address (the `lookup` of the request is the
 *   check itself, so a name cannot resolve differently between check and connect);
 * - refused: unspecified, link-local (169.254/16, fe80::/10: cloud metadata), private
 *   (10/8, 172.16/12, 192.168/16, fc00::/7), shared CGNAT (100.64/10), benchmarking (198.18/15),
 *   IETF (192.0.0/24), multicast and reserved (224/4, 240/4, ff00::/8), and loopback (127/8, ::1)
 *   unless the server was started with `downloads.allowLoopback` (tests serve files on 127.0.0.1);
 *   IPv4-mapped IPv6 addresses are checked as IPv4;
 * - redirects are followed by hand, at most {@link MAX_REDIRECTS}, each hop checked the same way.
 *
 * A refusal is an HttpError 403 with one line naming the host, the address and why.
 */
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { HttpError, type DownloadPolicy } from "./control-http.ts";
import { EnvironmentError } from "@retrace-cua/core/errors";

export type { DownloadPolicy };

export const MAX_REDIRECTS = 5;

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Why `address` may not be fetched, or undefined when it may. */
export function refusedAddress(address: string, policy: DownloadPolicy = {}): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1] : address;
  const family = isIP(ip) === 6 ? "ipv6" : "ipv4";
  if (isIP(ip) === 0) return "not an IP address";
  if (LOOPBACK.check(ip, family))
    return policy.allowLoopback ? undefined : "a loopback address (the server's own machine)";
  if (ip === "169.254.169.254" || ip.toLowerCase() === "fd00:ec2::254") return "the cloud metadata address";
  if (PRIVATE.check(ip, family)) return "a private, link-local or reserved address";
  return undefined;
}

function refusal(host: string, address: string, why: string): HttpError {
  return new HttpError(
    403,
    `download refused: ${host} resolves to ${address}, ${why}; only public addresses are downloaded`,
    true,
  );
}

/** A `lookup` that resolves every address of a name and refuses the name when any is refused. */
function checkedLookup(policy: DownloadPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: (options as { family?: number }).family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      for (const a of addresses) {
        const why = refusedAddress(a.address, policy);
        if (why) return callback(refusal(hostname, a.address, why) as unknown as NodeJS.ErrnoException, "", 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * The body of an http(s) URL under `policy`, within `deadlineMs` for the whole chain (headers,
 * redirects, body), refused beyond `maxBytes` while it arrives.
 */
export async function guardedDownload(
  url: string,
  options: { policy?: DownloadPolicy; maxBytes: number; deadlineMs?: number },
): Promise<Buffer> {
  const policy = options.policy ?? {};
  const signal = AbortSignal.timeout(options.deadlineMs ?? 300_000);
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let u: URL;
    try {
      u = new URL(current);
    } catch {
      throw new HttpError(400, `not a URL: ${current}`, true);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new HttpError(400, `only http(s) URLs are downloaded, not ${current}`, true);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) {
      const why = refusedAddress(host, policy);
      if (why) throw refusal(host, host, why);
    }
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (u.protocol === "https:" ? httpsRequest : httpRequest)(
        u,
        { method: "GET", lookup: checkedLookup(policy), signal },
        resolve,
      );
      req.on("error", (err) =>
        reject(
          err instanceof HttpError
            ? err
            : (err as { cause?: unknown }).cause instanceof HttpError
              ? (err as { cause: HttpError }).cause
              : err,
        ),
      );
      req.end();
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      current = new URL(res.headers.location, u).toString();
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw new EnvironmentError(`HTTP ${status}`);
    }
    const tooBig = (n: number) =>
      new HttpError(413, `${url} is ${n} bytes or more; the largest download accepted is ${options.maxBytes}`, true);
    const declared = Number(res.headers["content-length"] ?? 0);
    if (declared > options.maxBytes) {
      res.destroy();
      throw tooBig(declared);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxBytes) {
        res.destroy();
        throw tooBig(size);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }
  throw new HttpError(400, `download refused: more than ${MAX_REDIRECTS} redirects from ${url}`, true);
}
