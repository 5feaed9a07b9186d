/**
 * The README's OpenAI Agents SDK snippet (the block after `<!-- consumer-snippet -->` in its
 * section) is the file the consumer episode runs (test/fixtures/consumer/openai-agents-snippet.ts),
 * so what the README shows is what was run against the scripted server on both SDK lines.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

describe("the README's OpenAI Agents SDK snippet", () => {
  it("is the consumer snippet file, verbatim", () => {
    const readme = readFileSync(new URL("README.md", root), "utf8");
    const section = readme.slice(readme.indexOf("## Add recovery to your OpenAI Agents SDK agent"));
    const block = /<!-- consumer-snippet readme-openai-agents -->\n```ts\n([\s\S]*?)\n```/.exec(section.slice(0, section.indexOf("\n## ", 5)));
    expect(block).not.toBeNull();
    const file = readFileSync(new URL("test/fixtures/consumer/openai-agents-snippet.ts", root), "utf8");
    expect(block![1]).toBe(file.trimEnd());
  });
});
