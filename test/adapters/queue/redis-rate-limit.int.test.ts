/**
 * `--max-rps`: a requests-per-second cap per model endpoint shared by workers through a real
 * Redis, applied by the real OpenAI-compatible chat adapter against the scripted server.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { setEndpointLimiter } from "../../../packages/core/src/runtime/endpoint-limit.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createRedisEndpointLimiter, parseMaxRps } from "../../../packages/stores/src/queue/redis-rate-limit.ts";
import { startScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { servicesAvailable, testServices } from "../../helpers/services.ts";

const services = servicesAvailable("the Redis rate-limit tests");
let redisUrl = "";
let stopServices = () => {};

beforeAll(async () => {
  if (!services.run) return;
  services.assert();
  ({ redisUrl, stop: stopServices } = await testServices());
}, 120_000);
afterAll(() => {
  setEndpointLimiter(undefined);
  stopServices();
});

describe("parseMaxRps", () => {
  it("reads N and BASE_URL=N, and names the flag on bad input", () => {
    expect(parseMaxRps(["5", "http://127.0.0.1:8000/v1/=2.5"])).toEqual({ "*": 5, "http://127.0.0.1:8000/v1": 2.5 });
    expect(() => parseMaxRps(["fast"])).toThrow(/--max-rps: expected N or BASE_URL=N/);
    expect(() => parseMaxRps(["http://x=0"])).toThrow(/--max-rps/);
  });
});

describe.skipIf(!services.run)("Redis endpoint limiter", () => {
  it("two workers' chat models together send at most 3 requests per second to one endpoint", async () => {
    const server = await startScriptedOpenAIServer({
      script: Array.from({ length: 9 }, (_, i) => ({ text: `answer ${i}` })),
    });
    const prefix = `test:rps:${process.pid}`;
    // The window each request was granted in (Redis's clock): a stamp taken afterwards on a loaded
    // machine could land in the next second.
    const windows: number[] = [];
    const a = createRedisEndpointLimiter(redisUrl, { [server.url]: 3 }, prefix, (_u, w) => windows.push(w));
    const b = createRedisEndpointLimiter(redisUrl, { [server.url]: 3 }, prefix, (_u, w) => windows.push(w));
    let turn = 0;
    // Two workers' limiters behind the one process-wide hook: alternate between them per request.
    setEndpointLimiter(async (url) => {
      await (turn++ % 2 ? a : b).limiter(url);
    });
    try {
      const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "rps-")) });
      const model = createOpenAIChatModel({ model: "m", baseURL: server.url, apiKey: "k", blobs, maxRetries: 0 });
      const t0 = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 9 }, () =>
          model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }),
        ),
      );
      const elapsed = Date.now() - t0;
      expect(answers.map((x) => x.text).sort()).toEqual(Array.from({ length: 9 }, (_, i) => `answer ${i}`).sort());
      expect(server.calls).toBe(9);
      const perSecond = new Map<number, number>();
      expect(windows).toHaveLength(9);
      for (const w of windows) perSecond.set(w, (perSecond.get(w) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(3);
      expect(perSecond.size).toBeGreaterThanOrEqual(3);
      expect(elapsed).toBeGreaterThan(1000);
      // Another endpoint is not capped.
      expect(
        await Promise.race([
          a.limiter("http://other/v1").then(() => "free"),
          new Promise((r) => setTimeout(() => r("blocked"), 500)),
        ]),
      ).toBe("free");
    } finally {
      setEndpointLimiter(undefined);
      a.close();
      b.close();
      await server.close();
    }
  });
});
