/**
 * A global requests-per-second cap per model endpoint, shared by every worker through Redis: one
 * counter per base URL and one-second window (INCR + PEXPIRE); a caller over the cap waits for the
 * next window and tries again. Windows are aligned to Redis's clock (TIME), so workers on machines
 * with skewed clocks still share them.
 */
import type { Redis } from "ioredis";
import { ConfigError } from "@retrace-cua/core/errors";
import type { EndpointLimiter } from "@retrace-cua/core/runtime/endpoint-limit";
import { redisClient } from "./bullmq/episode-queue.ts";

/** Per-endpoint caps: a number for every endpoint, or base URL -> requests per second ("*" = every other). */
export type RpsLimits = Record<string, number>;

/** Parse `--max-rps` values: "N" (every endpoint) or "URL=N" (repeatable). */
export function parseMaxRps(values: readonly string[]): RpsLimits {
  const out: RpsLimits = {};
  for (const v of values) {
    const eq = v.lastIndexOf("=");
    const [url, n] = eq > 0 ? [v.slice(0, eq), v.slice(eq + 1)] : ["*", v];
    const rps = Number(n);
    if (!(rps > 0) || !Number.isFinite(rps))
      throw new ConfigError(`--max-rps: expected N or BASE_URL=N with N > 0 requests per second, got "${v}"`, {
        field: "max-rps",
      });
    out[normalize(url)] = rps;
  }
  return out;
}

const normalize = (url: string) => (url === "*" ? url : url.replace(/\/+$/, ""));

/** A limiter over Redis at `url` (or an existing client), and its closer. */
export function createRedisEndpointLimiter(
  redis: string | Redis,
  limits: RpsLimits,
  prefix = "retrace:rps",
  /** Called with the endpoint and the one-second window (Redis clock, epoch seconds) each request was granted in. */
  onGrant?: (baseURL: string, window: number) => void,
): { limiter: EndpointLimiter; close: () => void } {
  const client = typeof redis === "string" ? redisClient(redis) : redis;
  const limiter: EndpointLimiter = async (baseURL) => {
    const base = normalize(baseURL);
    const cap = limits[base] ?? limits["*"];
    if (!cap) return;
    // Windows of 1/cap s would allow bursts at window edges; one-second windows of `cap` requests are what APIs count.
    for (;;) {
      const [sec, usec] = (await client.time()) as [string | number, string | number];
      const nowMs = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      const window = Math.floor(nowMs / 1000);
      const key = `${prefix}:${base}:${window}`;
      const n = await client.incr(key);
      if (n === 1) await client.pexpire(key, 2_000);
      if (n <= Math.floor(cap)) return void onGrant?.(base, window);
      await new Promise((r) => setTimeout(r, (window + 1) * 1000 - nowMs + 1));
    }
  };
  return { limiter, close: () => void (typeof redis === "string" && client.disconnect()) };
}
