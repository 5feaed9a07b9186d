/**
 * Token counts as each provider reports them, normalised (packages/models/src/models/provider-usage.ts), the
 * billed-equivalent tokens (packages/core/src/usage.ts) and their price (packages/models/src/models/pricing.ts).
 */
import { describe, expect, it } from "vitest";
import {
  agentsUsage,
  aiSdkUsage,
  anthropicUsage,
  chatCompletionsUsage,
  langchainUsage,
  responsesUsage,
  withBilled,
} from "../../../packages/models/src/models/provider-usage.ts";
import { cachePricingFor, callUsage, costUsd } from "../../../packages/models/src/models/pricing.ts";
import { billedOf, billedTokens, CACHE_PRICING, tokenSplit } from "../../../packages/core/src/usage.ts";
import { addUsage, emptyAccounting, tokenSplits } from "../../../packages/core/src/runtime/accounting.ts";

describe("provider usage parsers", () => {
  it("read each provider's cached prompt tokens into one convention: inputTokens counts every prompt token", () => {
    expect(
      chatCompletionsUsage({
        prompt_tokens: 3000,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 2944 },
      }),
    ).toEqual({ inputTokens: 3000, outputTokens: 20, cachedInputTokens: 2944 });
    // vLLM without --enable-prompt-tokens-details: details null
    expect(chatCompletionsUsage({ prompt_tokens: 3000, completion_tokens: 20, prompt_tokens_details: null })).toEqual({
      inputTokens: 3000,
      outputTokens: 20,
    });
    expect(
      responsesUsage({ input_tokens: 1500, output_tokens: 7, input_tokens_details: { cached_tokens: 1280 } }),
    ).toEqual({ inputTokens: 1500, outputTokens: 7, cachedInputTokens: 1280 });
    // Anthropic: input_tokens EXCLUDES cache reads and writes
    expect(
      anthropicUsage({
        input_tokens: 500,
        output_tokens: 9,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 100,
      }),
    ).toEqual({ inputTokens: 2600, outputTokens: 9, cachedInputTokens: 2000, cacheWriteInputTokens: 100 });
    expect(anthropicUsage({ input_tokens: 500, output_tokens: 9, cache_read_input_tokens: 2000 })).toEqual({
      inputTokens: 2500,
      outputTokens: 9,
      cachedInputTokens: 2000,
    });
    expect(
      langchainUsage({
        input_tokens: 2600,
        output_tokens: 9,
        input_token_details: { cache_read: 2000, cache_creation: 100 },
      }),
    ).toEqual({ inputTokens: 2600, outputTokens: 9, cachedInputTokens: 2000, cacheWriteInputTokens: 100 });
    expect(
      aiSdkUsage({
        inputTokens: 2000,
        outputTokens: 5,
        inputTokenDetails: { cacheReadTokens: 1024, cacheWriteTokens: 0 },
      }),
    ).toEqual({ inputTokens: 2000, outputTokens: 5, cachedInputTokens: 1024 });
    expect(aiSdkUsage({ inputTokens: 2000, outputTokens: 5, cachedInputTokens: 1152 })).toEqual({
      inputTokens: 2000,
      outputTokens: 5,
      cachedInputTokens: 1152,
    });
    expect(agentsUsage({ inputTokens: 2000, outputTokens: 5, inputTokensDetails: [{ cached_tokens: 1536 }] })).toEqual({
      inputTokens: 2000,
      outputTokens: 5,
      cachedInputTokens: 1536,
    });
  });

  it("treat provider replies as untrusted: non-numbers count 0, cached never exceeds the prompt", () => {
    expect(
      chatCompletionsUsage({
        prompt_tokens: "9",
        completion_tokens: -4,
        prompt_tokens_details: { cached_tokens: Number.NaN },
      }),
    ).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(
      chatCompletionsUsage({
        prompt_tokens: 100,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 5000 },
      }),
    ).toEqual({ inputTokens: 100, outputTokens: 1, cachedInputTokens: 100 });
    expect(chatCompletionsUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(anthropicUsage("garbage")).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});

describe("billed-equivalent tokens", () => {
  it("bill cached reads and cache writes at the provider's ratio to the input price", () => {
    // the example: Anthropic, cache_read 2,000 + input 500 -> billed 500 + 0.1 x 2,000 (+ output)
    const a = anthropicUsage({ input_tokens: 500, output_tokens: 0, cache_read_input_tokens: 2000 });
    expect(billedTokens(a, CACHE_PRICING.anthropic)).toBe(700);
    expect(withBilled(a, "anthropic")).toEqual({ ...a, cacheProvider: "anthropic", billedTokens: 700 });
    expect(
      billedTokens(
        { inputTokens: 2600, outputTokens: 10, cachedInputTokens: 2000, cacheWriteInputTokens: 100 },
        CACHE_PRICING.anthropic,
      ),
    ).toBe(500 + 200 + 125 + 10);
    expect(billedTokens({ inputTokens: 3000, outputTokens: 20, cachedInputTokens: 2944 }, CACHE_PRICING.openai)).toBe(
      56 + 1472 + 20,
    );
    // nothing reported: billed = input + output
    expect(withBilled({ inputTokens: 3000, outputTokens: 20 })).toEqual({ inputTokens: 3000, outputTokens: 20 });
    expect(billedOf({ inputTokens: 3000, outputTokens: 20 })).toBe(3020);
    expect(
      tokenSplit({
        inputTokens: 2600,
        outputTokens: 10,
        cachedInputTokens: 2000,
        cacheWriteInputTokens: 100,
        billedTokens: 835,
      }),
    ).toEqual({
      inputTokens: 2600,
      uncachedInputTokens: 500,
      cachedInputTokens: 2000,
      cacheWriteInputTokens: 100,
      outputTokens: 10,
      billedTokens: 835,
    });
  });

  it("price cached tokens from the price table when it has cache prices, else at the provider's ratio", () => {
    const table = {
      "gpt-x": { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.2 },
      "claude*": { inputPerMillion: 3, outputPerMillion: 15 },
    };
    expect(cachePricingFor(table, "gpt-x")).toEqual({ read: 0.1, write: 1 });
    expect(cachePricingFor(table, "claude-9", "anthropic")).toEqual({ read: 0.1, write: 1.25 });
    expect(cachePricingFor(undefined, "m")).toEqual(CACHE_PRICING.openai);
    // 1,000 uncached + 2,000 cached at $0.2/M + 10 output at $8/M
    expect(costUsd(table, "gpt-x", { inputTokens: 3000, outputTokens: 10, cachedInputTokens: 2000 })).toBeCloseTo(
      (1000 * 2 + 2000 * 0.2 + 10 * 8) / 1e6,
      12,
    );
    const u = callUsage({
      role: "detector",
      model: "claude-9",
      inputTokens: 2600,
      outputTokens: 10,
      cachedInputTokens: 2000,
      cacheWriteInputTokens: 100,
      provider: "anthropic",
      startedMs: performance.now(),
      prices: table,
    });
    expect(u).toMatchObject({
      cachedInputTokens: 2000,
      cacheWriteInputTokens: 100,
      cacheProvider: "anthropic",
      billedTokens: 835,
    });
    expect(u.costUsd).toBeCloseTo(((500 + 200 + 125) * 3 + 10 * 15) / 1e6, 12);
  });

  it("sum per role in the episode's accounting, and split it for finish()", () => {
    let acc = emptyAccounting();
    acc = addUsage(
      acc,
      [{ role: "detector", model: "m", inputTokens: 500, outputTokens: 5, latencyMs: 1 }],
      "detector",
    );
    acc = addUsage(
      acc,
      [
        {
          role: "detector",
          model: "m",
          inputTokens: 3000,
          outputTokens: 5,
          cachedInputTokens: 2944,
          billedTokens: 56 + 1472 + 5,
          latencyMs: 1,
        },
      ],
      "detector",
    );
    acc = addUsage(
      acc,
      [{ role: "recoverer", model: "m", inputTokens: 100, outputTokens: 1, latencyMs: 1 }],
      "detector",
    );
    // the first detector call, before any cache was reported, counts billed = its tokens
    expect(acc.models.detector).toMatchObject({
      inputTokens: 3500,
      cachedInputTokens: 2944,
      cacheWriteInputTokens: 0,
      billedTokens: 505 + 1533,
    });
    expect(acc.models.recoverer).not.toHaveProperty("billedTokens");
    const t = tokenSplits(acc);
    expect(t.promptCache).toBe(true);
    expect(t.roles.detector).toEqual({
      inputTokens: 3500,
      uncachedInputTokens: 556,
      cachedInputTokens: 2944,
      cacheWriteInputTokens: 0,
      outputTokens: 10,
      billedTokens: 2038,
    });
    expect(t.roles.recoverer).toEqual({
      inputTokens: 100,
      uncachedInputTokens: 100,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 1,
      billedTokens: 101,
    });
    expect(t.total.billedTokens).toBe(2139);
    expect(tokenSplits(emptyAccounting()).promptCache).toBe(false);
  });
});
