/**
 * Fails when an import breaks the layering: experiments -> graphs/adapters -> src.
 * - src/ (except the public barrels src/index.ts and src/testing.ts) imports nothing from
 *   graphs/, adapters/ or experiments/;
 * - graphs/, adapters/, prompts/ never import experiments/;
 * - vendor SDKs (openai, @langchain/openai, @anthropic-ai/sdk, dockerode, bullmq, ioredis, pg,
 *   @langchain/langgraph-checkpoint-postgres) only in adapters/;
 * - no library file imports the barrel src/index.ts (that is for users and tests).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, dirname, sep } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const VENDOR = ["openai", "@langchain/openai", "@anthropic-ai/sdk", "dockerode", "bullmq", "ioredis", "pg", "@langchain/langgraph-checkpoint-postgres"];
const BARRELS = new Set(["src/index.ts", "src/testing.ts"]);

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|mjs)$/.test(name)) yield p;
  }
}

const problems: string[] = [];
for (const top of ["src", "graphs", "adapters", "prompts", "experiments"]) {
  let files: string[] = [];
  try {
    files = [...walk(join(ROOT, top))];
  } catch {
    continue;
  }
  for (const file of files) {
    const rel = relative(ROOT, file).split(sep).join("/");
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) {
        const target = relative(ROOT, resolve(dirname(file), spec)).split(sep).join("/");
        const layer = target.split("/")[0];
        if (top === "src" && !BARRELS.has(rel) && ["graphs", "adapters", "experiments"].includes(layer))
          problems.push(`${rel}: src/ must not import ${target} (layering: experiments -> graphs/adapters -> src)`);
        if (["graphs", "adapters", "prompts"].includes(top) && layer === "experiments")
          problems.push(`${rel}: ${top}/ must not import ${target} (experiments sit on top)`);
        if (target === "src/index.ts" && top !== "experiments")
          problems.push(`${rel}: import the module itself, not the public barrel src/index.ts`);
      } else {
        const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
        if (VENDOR.includes(pkg) && top !== "adapters") problems.push(`${rel}: vendor SDK "${pkg}" may only be imported in adapters/`);
      }
    }
  }
}
if (problems.length) {
  process.stderr.write(problems.join("\n") + `\n${problems.length} layering problem(s)\n`);
  process.exit(1);
}
process.stdout.write("layers ok\n");
