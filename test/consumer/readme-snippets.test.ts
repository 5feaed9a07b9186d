/** The snippet extraction the consumer test relies on: the README and the SDK pages, every snippet once. */
import { describe, expect, it } from "vitest";
import { readmeSnippets } from "./readme-snippets.ts";

describe("the consumer snippets", () => {
  it("come from the README and the SDK docs pages, each name once", () => {
    const names = readmeSnippets().map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "readme-wrap",
        "readme-openai-agents",
        "readme-ai-sdk",
        "readme-ai-sdk-agent",
        "readme-stagehand",
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it("import only light entries (never retrace-cua/adapters' LangChain neighbour retrace-cua/langchain)", () => {
    for (const s of readmeSnippets()) expect(s.source, s.name).not.toMatch(/from "retrace-cua\/langchain"/);
  });
});
