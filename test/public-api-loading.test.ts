/**
 * What importing each public entry loads: no vendor SDK and no optional peer with retrace, /evaluation,
 * /models, /simdesk, /adapters, /testing or /experiments, no LangGraph with the light entries, and each SDK
 * entry its own SDK only. A fresh Node process imports the entry by the package name under a resolve hook.
 * The pinned names themselves: test/public-api.test.ts.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VENDOR_SDKS = [
  "openai",
  "@anthropic-ai/sdk",
  "dockerode",
  "bullmq",
  "ioredis",
  "pg",
  "playwright-core",
  "@openai/agents",
  "ai",
  "@ai-sdk/anthropic",
  "@browserbasehq/stagehand",
];
/**
 * Optional peers that are not vendor SDKs but must not load with an entry either (package.json peerDependenciesMeta).
 */
const OPTIONAL_PEERS = [
  "sharp",
  "langchain",
  "better-sqlite3",
  "@langchain/langgraph-checkpoint-sqlite",
  "@langchain/langgraph-checkpoint-postgres",
  "chart.js",
  "cli-progress",
  "pino",
]; // (tsx: the probe itself runs under it)

/**
 * The npm packages a fresh Node process loads when it imports `entry` by the package name: every
 * URL the ESM resolver hands out (a resolve hook appends it to a file) plus CommonJS' require cache.
 */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import { register, createRequire } from "node:module";
    import { mkdtempSync, readFileSync, rmSync } from "node:fs";
    import { join } from "node:path";
    import { tmpdir } from "node:os";
    const dir = mkdtempSync(join(tmpdir(), "retrace-graph-"));
    const log = join(dir, "urls");
    const hook = 'import { appendFileSync } from "node:fs"; export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(' + JSON.stringify(log) + ', r.url + String.fromCharCode(10)); return r; }';
    register("data:text/javascript," + encodeURIComponent(hook));
    await import(process.argv[1]);
    const urls = [...readFileSync(log, "utf8").split(String.fromCharCode(10)), ...Object.keys(createRequire(import.meta.url).cache)];
    rmSync(dir, { recursive: true, force: true });
    const names = new Set(urls.map((u) => (u.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//) ?? [])[1]).filter(Boolean));
    process.stdout.write(JSON.stringify([...names].sort()));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", script, entry],
    { cwd: ROOT, timeout: 120_000 },
  );
  return JSON.parse(stdout) as string[];
}

describe("the public surface", () => {
  it("loads no vendor SDK and no optional peer when a script imports retrace, /evaluation, /models, /simdesk, /adapters, /testing or /experiments, no LangGraph with the light entries, and each SDK entry its own SDK only", async () => {
    const name = (JSON.parse(readFileSync(join(ROOT, "packages/retrace-cua/package.json"), "utf8")) as { name: string })
      .name;
    const light = [name, ...["evaluation", "models", "simdesk", "adapters"].map((e) => `${name}/${e}`)];
    const entries = [
      ...light,
      ...["testing", "experiments", "langchain", "openai-agents", "ai-sdk"].map((e) => `${name}/${e}`),
    ];
    const loaded = new Map<string, string[]>();
    for (const e of entries) loaded.set(e, await packagesLoadedBy(e));
    for (const e of [...light, `${name}/testing`, `${name}/experiments`])
      expect(
        loaded.get(e)!.filter((p) => VENDOR_SDKS.includes(p) || OPTIONAL_PEERS.includes(p)),
        e,
      ).toEqual([]);
    // The main entry loads LangGraph and LangChain's core on first use (runEpisode, withRecovery(...).run,
    // createRecoveryGraph, a checkpointer's first call), not at import; the probe sees zod, which it does load.
    expect(loaded.get(name)).toContain("zod");
    // The light entries (what the README's snippets import) load no LangChain, LangGraph or langsmith at all.
    for (const e of light)
      expect(
        loaded.get(e)!.filter((p) => p.startsWith("@langchain/") || p === "langsmith"),
        e,
      ).toEqual([]);
    // The same probe on retrace-cua/langchain (the middleware) finds LangGraph, so the empty lists above are not a
    // blind probe.
    expect(loaded.get(`${name}/langchain`)).toContain("@langchain/langgraph");
    // The same probe on an SDK entry finds that SDK (so the empty lists above are not a blind probe), and no other.
    expect(loaded.get(`${name}/openai-agents`)).toEqual(expect.arrayContaining(["@openai/agents", "openai"]));
    expect(
      loaded
        .get(`${name}/openai-agents`)!
        .filter((p) =>
          ["ai", "@ai-sdk/anthropic", "@browserbasehq/stagehand", "sharp", "playwright-core", "dockerode"].includes(p),
        ),
    ).toEqual([]);
    // ai is the AI SDK entry's one SDK: @ai-sdk/anthropic loads only when retraceComputerTool builds
    // Anthropic's tool without a computerTool factory.
    expect(loaded.get(`${name}/ai-sdk`)).toContain("ai");
    expect(
      loaded
        .get(`${name}/ai-sdk`)!
        .filter((p) =>
          [
            "@ai-sdk/anthropic",
            "openai",
            "@openai/agents",
            "@browserbasehq/stagehand",
            "sharp",
            "playwright-core",
            "dockerode",
          ].includes(p),
        ),
    ).toEqual([]);
    // Neither SDK entry loads LangGraph: their wrappers plug into the SDK's own loop.
    for (const e of ["openai-agents", "ai-sdk"])
      expect(
        loaded.get(`${name}/${e}`)!.filter((p) => p.startsWith("@langchain/")),
        e,
      ).toEqual([]);
  }, 600_000);
});
