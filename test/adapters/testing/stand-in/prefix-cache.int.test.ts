/**
 * The stand-in's simulated automatic prefix cache (packages/testing/src/stand-in/prefix-cache.ts):
 * `usage.prompt_tokens_details.cached_tokens` is the longest prefix shared with the recent prompts
 * of the same `prompt_cache_key`, from 1,024 tokens, in 128-token steps; retrace's OpenAI client
 * reads it as `cachedInputTokens` and bills it at OpenAI's cached price.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cachedTokensOf, PrefixCache } from "../../../../packages/testing/src/stand-in/prefix-cache.ts";
import { startStandInServer, type StandInServer } from "../../../../packages/testing/src/stand-in/server.ts";
import { loadTokenizer, promptTokenIds, promptTokens } from "../../../../packages/testing/src/stand-in/tokens.ts";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import type { ChatMessage } from "../../../../packages/core/src/model.ts";
import { tempBlobs } from "../fixtures.ts";
import { startFromFlags } from "../../../../experiments/commands/stand-in.ts";

const servers: StandInServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
beforeAll(async () => loadTokenizer());

/** Tokens two bodies share from the start (counted independently of the cache). */
function shared(a: unknown, b: unknown): number {
  const x = promptTokenIds(a),
    y = promptTokenIds(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

/** A system prompt such that two conversations that differ from the first user word share exactly `target` tokens. */
function conversationSharing(target: number): { first: ChatMessage[]; second: ChatMessage[] } {
  const make = (words: number, tail: string): ChatMessage[] => [
    { role: "system", content: `You review a computer-use agent.${" step".repeat(words)}` },
    { role: "user", content: `${tail} is what the screen shows now.` },
  ];
  const at = (words: number) => shared({ messages: make(words, "Alpha") }, { messages: make(words, "Omega") });
  // " step" is one token each: start from the estimate, then step to the exact count
  let words = target - at(0);
  for (let tries = 0; tries < 50 && at(words) !== target; tries++) words += at(words) < target ? 1 : -1;
  if (at(words) === target) return { first: make(words, "Alpha"), second: make(words, "Omega") };
  throw new Error(`no system prompt gives exactly ${target} shared tokens`);
}

describe("the stand-in's prefix cache", () => {
  it("reports nothing below 1,024 shared tokens, then floors to 128-token steps", () => {
    expect([0, 1023, 1024, 1151, 1152, 3000, 4096].map(cachedTokensOf)).toEqual([0, 0, 1024, 1024, 1152, 2944, 4096]);
  });

  it("counts its token sequence the way prompt_tokens counts (framing, names, images)", () => {
    const body = {
      messages: [
        { role: "system", content: "hi" },
        {
          role: "user",
          name: "ann",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } },
          ],
        },
      ],
    };
    // 3 (reply) + system: 3 + "system" + "hi" + user: 3 + "user" + name 1 + "ann" + "look" + 85 (low-detail image)
    expect(promptTokenIds(body).length).toBe(promptTokens(body));
    expect(promptTokens(body)).toBeGreaterThan(85 + 3 + 3 + 3 + 1);
  });

  it("groups prompts by cache key, keeps a bounded LRU, and refuses a bad size", () => {
    const long = Array.from({ length: 3000 }, (_, i) => i);
    const cache = new PrefixCache({ groups: 2, perGroup: 2 });
    expect(cache.lookup(long, "a")).toBe(0); // first sight
    expect(cache.lookup([...long, 1], "a")).toBe(2944);
    expect(cache.lookup(long, "b")).toBe(0); // another key, another group
    expect(cache.lookup(long)).toBe(0); // no key: the global group
    expect(cache.lookup(long, "a")).toBe(0); // 3 groups > 2: "a", the least recent, was evicted
    const small = new PrefixCache({ perGroup: 1 });
    small.lookup(long, "k");
    small.lookup([9, ...long], "k"); // pushes the first prompt out of the group
    expect(small.lookup(long, "k")).toBe(0);
    expect(() => new PrefixCache({ perGroup: 0 })).toThrow(/prefixCache.perGroup must be a positive integer, got 0/);
  });

  it("reports 0 then 2,944 cached tokens for a conversation sharing 3,000 tokens, per prompt_cache_key, through retrace's client, the same on a restart", async () => {
    const { first, second } = conversationSharing(3000);
    const run = async () => {
      const server = await startStandInServer();
      servers.push(server);
      const models = await (await fetch(`${server.url}/models`)).json();
      expect(models).toMatchObject({ stand_in: { prompt_cache: expect.stringContaining("prefix cache") } });
      const model = createOpenAIChatModel({
        model: server.model,
        baseURL: server.url,
        apiKey: "none",
        maxRetries: 0,
        blobs: tempBlobs(),
      });
      const a = await model.complete({ role: "detector", messages: first, cacheKey: "ep-1/detector" });
      const b = await model.complete({ role: "detector", messages: second, cacheKey: "ep-1/detector" });
      const other = await model.complete({ role: "detector", messages: second, cacheKey: "ep-2/detector" });
      const again = await model.complete({ role: "detector", messages: second, cacheKey: "ep-1/detector" });
      expect(server.log.map((l) => l.cacheKey)).toEqual([
        "ep-1/detector",
        "ep-1/detector",
        "ep-2/detector",
        "ep-1/detector",
      ]);
      return { server, usages: [a.usage, b.usage, other.usage, again.usage] };
    };
    const { server, usages } = await run();
    const [a, b, other, again] = usages;
    expect(a.cachedInputTokens).toBeUndefined(); // 0 cached: the field stays out, billed = tokens
    expect(a.billedTokens).toBeUndefined();
    expect(b.cachedInputTokens).toBe(2944);
    expect(b.inputTokens).toBe(server.log[1].promptTokens);
    // billed at OpenAI's cached price (half): uncached + 0.5 x cached + output
    expect(b.billedTokens).toBe(b.inputTokens - 2944 + 1472 + b.outputTokens);
    expect(other.cachedInputTokens).toBeUndefined(); // another conversation's key
    // the same prompt again: its whole length, floored to 128s
    expect(again.cachedInputTokens).toBe(Math.floor(again.inputTokens / 128) * 128);
    expect(server.log.map((l) => l.cachedTokens)).toEqual([0, 2944, 0, again.cachedInputTokens]);
    const restarted = await run();
    expect(restarted.server.log.map((l) => [l.promptTokens, l.cachedTokens])).toEqual(
      server.log.map((l) => [l.promptTokens, l.cachedTokens]),
    );
  });

  it("reports 0 with prefixCache: false (retrace stand-in --no-prefix-cache)", async () => {
    const { first } = conversationSharing(3000);
    const server = await startFromFlags({ prefixCache: false });
    servers.push(server);
    expect(await (await fetch(`${server.url}/models`)).json()).toMatchObject({ stand_in: { prompt_cache: "none" } });
    const model = createOpenAIChatModel({
      model: server.model,
      baseURL: server.url,
      apiKey: "none",
      maxRetries: 0,
      blobs: tempBlobs(),
    });
    await model.complete({ role: "detector", messages: first });
    const b = await model.complete({ role: "detector", messages: first });
    expect(b.usage.cachedInputTokens).toBeUndefined();
    expect(server.log.map((l) => l.cachedTokens)).toEqual([0, 0]);
  });
});
