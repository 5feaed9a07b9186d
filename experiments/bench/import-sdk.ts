/**
 * What adding retrace costs an OpenAI Agents SDK user at start-up, on the built package:
 *   import-agents-snippet   ms (and RSS) of the imports of the README's Agents SDK snippet
 *                           (docs/openai-agents.md) over those of `@openai/agents` alone,
 *                           on Node 24                                   target <= 1.3x (both)
 * The snippet imports `@openai/agents`, `retrace-cua` (BlobStore), `retrace-cua/models`,
 * `retrace-cua/simdesk` and `retrace-cua/openai-agents`. Each figure is the median of 7 fresh
 * processes (wall clock around the `await import(...)`s, RSS after them), in a consumer project
 * (cached under RETRACE_CONSUMER_CACHE) with the tarball and `@openai/agents` 0.20 installed.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { CACHE, PACKAGE_NAME, installProject, nodeBinary, packTree, tarballsFor } from "./consumer-project.ts";
import type { BenchResult } from "./result.ts";

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The README Agents SDK snippet's imports, in its order. */
export const AGENTS_SNIPPET_IMPORTS = [
  "@openai/agents",
  PACKAGE_NAME,
  `${PACKAGE_NAME}/models`,
  `${PACKAGE_NAME}/simdesk`,
  `${PACKAGE_NAME}/openai-agents`,
];

/** A script that imports `specs` in order and prints the wall ms and the RSS after. */
export function importProbe(specs: string[]): string {
  return (
    `const t = performance.now(); for (const s of ${JSON.stringify(specs)}) await import(s);` +
    ` process.stdout.write(JSON.stringify({ wall: performance.now() - t, rss: process.memoryUsage().rss / 1e6 }));`
  );
}

/** Median wall ms and RSS MB of `n` fresh `node` processes importing `specs` in `cwd`. */
export function measureImports(node: string, cwd: string, specs: string[], n = 7): { ms: number; mb: number } {
  const samples = Array.from(
    { length: n },
    () =>
      JSON.parse(execFileSync(node, ["--input-type=module", "-e", importProbe(specs)], { cwd }).toString()) as {
        wall: number;
        rss: number;
      },
  );
  return { ms: median(samples.map((s) => s.wall)), mb: median(samples.map((s) => s.rss)) };
}

export async function run(): Promise<BenchResult[]> {
  const node = await nodeBinary(24);
  const tarballs = tarballsFor(await packTree(join(CACHE, "pack")), [PACKAGE_NAME]);
  const dir = await installProject(
    { name: "import-agents", dependencies: { "@openai/agents": "0.20.0", openai: "7.60.0" } },
    tarballs,
  );
  // Alternate the two so that a neighbour's load falls on both alike.
  const sdk: Array<{ ms: number; mb: number }> = [];
  const snippet: Array<{ ms: number; mb: number }> = [];
  for (let i = 0; i < 7; i++) {
    sdk.push(measureImports(node, dir, ["@openai/agents"], 1));
    snippet.push(measureImports(node, dir, AGENTS_SNIPPET_IMPORTS, 1));
  }
  const sdkMs = median(sdk.map((s) => s.ms));
  const snipMs = median(snippet.map((s) => s.ms));
  const sdkMb = median(sdk.map((s) => s.mb));
  const snipMb = median(snippet.map((s) => s.mb));
  const ratio = snipMs / sdkMs;
  return [
    {
      name: "import-agents-snippet",
      ratioOf:
        "import time of the README Agents SDK snippet's imports over @openai/agents' own, Node 24, built package, median of 7",
      ratio,
      target: "<= 1.3x time and RSS",
      pass: ratio <= 1.3 && snipMb / sdkMb <= 1.3,
      details: {
        snippetMs: Math.round(snipMs),
        agentsMs: Math.round(sdkMs),
        snippetMb: Number(snipMb.toFixed(1)),
        agentsMb: Number(sdkMb.toFixed(1)),
        rssRatio: Number((snipMb / sdkMb).toFixed(2)),
      },
    },
  ];
}
