import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { createRng } from "../../packages/core/src/rng.ts";
import { definePrompt, renderPrompt, promptRef } from "../../packages/core/src/prompt.ts";
import { ActionSchema, formatAction } from "../../packages/core/src/action.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { stableStringify } from "../../packages/core/src/hash.ts";

describe("BlobStore", () => {
  it("stores bytes once under their sha256 and reads them back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "blobs-"));
    const store = new BlobStore({ dir });
    const a = await store.put(Buffer.from("hello"));
    const b = await store.put(Buffer.from("hello"));
    expect(a).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    expect(b).toBe(a);
    expect((await store.get(a)).toString()).toBe("hello");
    expect(readdirSync(join(dir, "2c"))).toEqual([`${a}.png`]);
  });

  it("names the missing reference when a blob is absent", async () => {
    const store = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "blobs-")) });
    await expect(store.get("0".repeat(64))).rejects.toThrow(/blob 0{64} is not in/);
    expect(() => store.path("../etc/passwd")).toThrow(ConfigError);
  });
});

describe("createRng", () => {
  it("gives the same sequence for the same seed and labels, and a different one otherwise", () => {
    const seq = (r: ReturnType<typeof createRng>) => Array.from({ length: 5 }, () => r.int(0, 1000));
    expect(seq(createRng(7, "a"))).toEqual(seq(createRng(7, "a")));
    expect(seq(createRng(7, "a"))).not.toEqual(seq(createRng(7, "b")));
    expect(seq(createRng(7, "a").fork("x"))).toEqual(seq(createRng(7, "a").fork("x")));
  });

  it("draws integers within the inclusive range", () => {
    const r = createRng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(r.int(2, 4));
    expect([...seen].sort()).toEqual([2, 3, 4]);
  });
});

describe("prompts", () => {
  const p = definePrompt({
    id: "t",
    version: "1",
    usedBy: "test",
    variables: ["a", "b"],
    template: "{{a}} and {{ b }}",
  });
  it("renders every variable and records id@version", () => {
    expect(renderPrompt(p, { a: "x", b: 2 })).toBe("x and 2");
    expect(promptRef(p)).toBe("t@1");
  });
  it("throws on a missing or an unused variable", () => {
    expect(() => renderPrompt(p, { a: "x" } as never)).toThrow(/missing variable "b"/);
    expect(() => renderPrompt(p, { a: "x", b: "y", c: "z" } as never)).toThrow(/unused variable "c"/);
    expect(() => definePrompt({ id: "u", version: "1", usedBy: "t", variables: ["a"], template: "{{b}}" })).toThrow(
      ConfigError,
    );
  });
});

describe("actions", () => {
  it("validates and formats computer_13 actions", () => {
    const click = ActionSchema.parse({ type: "CLICK", x: 10, y: 20 });
    expect(click).toEqual({ type: "CLICK", x: 10, y: 20, button: "left", numClicks: 1 });
    expect(formatAction(click)).toBe("CLICK(10,20)");
    expect(formatAction({ type: "HOTKEY", keys: ["ctrl", "s"] })).toBe("HOTKEY(ctrl+s)");
    expect(() => ActionSchema.parse({ type: "CLICK", x: "a" })).toThrow();
  });
  it("serialises objects canonically", () => {
    expect(stableStringify({ b: 1, a: { d: 2, c: undefined } })).toBe('{"a":{"d":2},"b":1}');
  });
});
