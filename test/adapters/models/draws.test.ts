/**
 * Draw identities (packages/models/src/models/draws.ts) and how the record/replay store keys on them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalRequest, createRecordReplay } from "../../../packages/models/src/models/cache.ts";
import { DrawScope, drawScopeFor, requestSeedOf, withDraws } from "../../../packages/models/src/models/draws.ts";
import type { ChatRequest } from "../../../packages/core/src/model.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-draws-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("draw identities", () => {
  it("count ordinals per role and request, and derive a 31-bit seed from identity and content", () => {
    const scope = new DrawScope({ seed: 3, task: "t", k: 2 });
    const a0 = scope.next("policy", "req-a");
    const b0 = scope.next("policy", "req-b");
    const a1 = scope.next("policy", "req-a");
    const d0 = scope.next("detector", "req-a");
    expect([a0.ordinal, b0.ordinal, a1.ordinal, d0.ordinal]).toEqual([0, 0, 1, 0]);
    expect(a0).toMatchObject({ seed: 3, task: "t", k: 2, role: "policy" });
    expect(new Set([a0, b0, a1, d0].map((x) => x.requestSeed)).size).toBe(4);
    for (const x of [a0, b0, a1, d0])
      expect(Number.isInteger(x.requestSeed) && x.requestSeed >= 0 && x.requestSeed < 2 ** 31).toBe(true);
    // the same identity and content give the same seed in another process (a pure function)
    const { requestSeed, ...identity } = a0;
    expect(requestSeedOf(identity, "req-a")).toBe(requestSeed);
  });

  it("keep the condition only under draws: independent", () => {
    const ep = { seed: 0, task: "t", condition: "m.max-rec-1" };
    expect(drawScopeFor("paired", ep).next("policy", "x")).not.toHaveProperty("condition");
    expect(drawScopeFor(undefined, ep).next("policy", "x")).toEqual(
      drawScopeFor("paired", { ...ep, condition: "m.no-recovery" }).next("policy", "x"),
    );
    expect(drawScopeFor("independent", ep).next("policy", "x")).toMatchObject({ condition: "m.max-rec-1" });
    expect(drawScopeFor("independent", ep).next("policy", "x").requestSeed).not.toBe(
      drawScopeFor("independent", { ...ep, condition: "m.no-recovery" }).next("policy", "x").requestSeed,
    );
  });
});

describe("the conversation key (prompt_cache_key)", () => {
  it("is derived from the episode identity: the same in another scope of the same episode, another for another seed, task, k or condition", async () => {
    const ep = { seed: 4, task: "t", condition: "m.paper" };
    const key = drawScopeFor("paired", ep).conversation;
    expect(key).toMatch(/^retrace-[0-9a-f]{16}$/);
    expect(drawScopeFor("paired", ep).conversation).toBe(key);
    expect(new DrawScope({ seed: 4, task: "t", condition: "m.paper" }).conversation).toBe(key);
    // paired conditions share draws, not conversations
    expect(drawScopeFor("paired", { ...ep, condition: "m.production" }).conversation).not.toBe(key);
    for (const other of [
      { ...ep, seed: 5 },
      { ...ep, task: "u" },
      { ...ep, k: 1 },
    ])
      expect(drawScopeFor("paired", other).conversation).not.toBe(key);
    // withDraws sends one key per role, and the record/replay key does not depend on it
    const seen: ChatRequest[] = [];
    const model = withDraws(
      {
        model: "m",
        complete: async (r: ChatRequest) => (
          seen.push(r),
          { text: "", usage: { role: r.role, model: "m", inputTokens: 0, outputTokens: 0, latencyMs: 0 } }
        ),
      },
      drawScopeFor("paired", ep),
    );
    await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] });
    await model.complete({ role: "detector", messages: [{ role: "user", content: "hi" }] });
    expect(seen.map((r) => r.cacheKey)).toEqual([`${key}/policy`, `${key}/detector`]);
    const base = {
      model: "m",
      complete: async () => ({
        text: "",
        usage: { role: "policy" as const, model: "m", inputTokens: 0, outputTokens: 0, latencyMs: 0 },
      }),
    };
    expect(canonicalRequest(base, seen[0])).toEqual(canonicalRequest(base, { ...seen[0], cacheKey: "another" }));
    expect(JSON.stringify(canonicalRequest(base, seen[0]))).not.toContain(key);
  });
});

describe("the record/replay store under draws", () => {
  it("keeps two draws of one request apart, serves each from its own entry, and keeps the first answer recorded under a key", async () => {
    const store = createRecordReplay({ dir: join(dir, "c1"), mode: "readwrite" });
    const scope = new DrawScope({ seed: 0, task: "t" });
    const d0 = scope.next("policy", "q"),
      d1 = scope.next("policy", "q");
    expect(store.keyOf({ q: 1 }, d0)).not.toBe(store.keyOf({ q: 1 }, d1));
    expect(store.keyOf({ q: 1 })).not.toBe(store.keyOf({ q: 1 }, d0));
    let calls = 0;
    const answer = (text: string) => async () => (calls++, text);
    expect(await store.run({ q: 1 }, answer("first"), d0)).toEqual({ value: "first", cached: false });
    expect(await store.run({ q: 1 }, answer("second"), d1)).toEqual({ value: "second", cached: false });
    expect(await store.run({ q: 1 }, answer("never"), d0)).toEqual({ value: "first", cached: true });
    expect(await store.run({ q: 1 }, answer("never"), d1)).toEqual({ value: "second", cached: true });
    expect(calls).toBe(2);
    // two callers racing to one key (two workers, paired conditions): both use the first answer recorded
    const racing = createRecordReplay({ dir: join(dir, "c2"), mode: "readwrite" });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = racing.run({ q: 2 }, async () => (await gate, "slow"), d0);
    const fast = await racing.run({ q: 2 }, async () => "fast", d0);
    release();
    expect(fast.value).toBe("fast");
    expect((await slow).value).toBe("fast");
    expect((await racing.run({ q: 2 }, async () => "never", d0)).value).toBe("fast");
  });
});
