/**
 * The consumer snippets of the README and of the SDK docs pages (SNIPPET_PAGES): each fenced
 * ```ts block right after an HTML comment `<!-- consumer-snippet NAME
 * -->`. The consumer test compiles them in a fresh project with its
 * own tsc (strict, NodeNext) and runs them against scripted servers (readme-check.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../experiments/bench/consumer-project.ts";

/** One marked snippet: its name (a file name in the consumer project) and its source. */
export interface ReadmeSnippet {
  name: string;
  source: string;
  line: number;
  /** Marked `compile-only`: type-checked, not run (it needs a browser or a service the test does not start). */
  compileOnly: boolean;
}

/** The pages whose marked snippets are compiled and run: the README and the SDK pages its snippets moved to. */
export const SNIPPET_PAGES = ["README.md", "docs/openai-agents.md", "docs/ai-sdk.md", "docs/stagehand.md"];

/** Every marked snippet of SNIPPET_PAGES (or of the one text given), in page order; names are unique across pages. */
export function readmeSnippets(readme?: string): ReadmeSnippet[] {
  if (readme === undefined) {
    const all = SNIPPET_PAGES.flatMap((page) => snippetsOf(readFileSync(join(ROOT, page), "utf8")));
    const names = all.map((s) => s.name);
    if (new Set(names).size !== names.length)
      throw new Error(`consumer snippets: a name is used twice across ${SNIPPET_PAGES.join(", ")}`);
    return all;
  }
  return snippetsOf(readme);
}

function snippetsOf(readme: string): ReadmeSnippet[] {
  const out: ReadmeSnippet[] = [];
  for (const m of readme.matchAll(/<!-- consumer-snippet ([a-z0-9-]+)( compile-only)? -->\n```ts\n([\s\S]*?)\n```/g)) {
    out.push({
      name: m[1],
      source: `${m[3]}\n`,
      line: readme.slice(0, m.index).split("\n").length,
      compileOnly: Boolean(m[2]),
    });
  }
  return out;
}
