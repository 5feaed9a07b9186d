/**
 * The OpenAI Agents SDK snippet of docs/openai-agents.md (the block after `<!-- consumer-snippet -->`) is the file the
 * consumer episode runs (test/fixtures/consumer/openai-agents-snippet.ts),
 * so what the page shows is what was run against the scripted server on both SDK lines.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

describe("the OpenAI Agents SDK page's snippet", () => {
  it("is the consumer snippet file, verbatim", () => {
    const page = readFileSync(new URL("docs/openai-agents.md", root), "utf8");
    const block = /<!-- consumer-snippet readme-openai-agents -->\n```ts\n([\s\S]*?)\n```/.exec(page);
    expect(block).not.toBeNull();
    const file = readFileSync(new URL("test/fixtures/consumer/openai-agents-snippet.ts", root), "utf8");
    expect(block![1]).toBe(file.trimEnd());
  });
});
