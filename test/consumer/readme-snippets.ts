/**
 * The README's consumer snippets: each fenced ```ts block right after an HTML comment
 * `<!-- consumer-snippet NAME -->`. The consumer test compiles them in a fresh project with its
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

export function readmeSnippets(readme = readFileSync(join(ROOT, "README.md"), "utf8")): ReadmeSnippet[] {
  const out: ReadmeSnippet[] = [];
  for (const m of readme.matchAll(/<!-- consumer-snippet ([a-z0-9-]+)( compile-only)? -->\n```ts\n([\s\S]*?)\n```/g)) {
    out.push({ name: m[1], source: `${m[3]}\n`, line: readme.slice(0, m.index).split("\n").length, compileOnly: Boolean(m[2]) });
  }
  return out;
}
