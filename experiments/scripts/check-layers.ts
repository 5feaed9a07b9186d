/**
 * Fails when an import breaks the layering: experiments -> graphs/adapters -> src.
 * - src/ imports nothing from graphs/, adapters/, prompts/ or experiments/ (prompts/ may import src/);
 * - graphs/, adapters/, prompts/ never import experiments/;
 * - vendor SDKs (openai, @langchain/openai, @anthropic-ai/sdk, dockerode, bullmq, ioredis, pg,
 *   @langchain/langgraph-checkpoint-postgres, playwright-core, @browserbasehq/stagehand) only in adapters/;
 * - each package `exports` entry file lives at the layer it names (`retrace-cua` -> graphs/,
 *   `retrace-cua/evaluation` -> src/, `retrace-cua/adapters`, `/models`, `/simdesk`, `/langchain` and
 *   `/testing` -> adapters/, `retrace-cua/experiments` -> experiments/)
 *   and re-exports only names (no `export *`), and no library file imports an entry file
 *   (entries are for users and tests).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, dirname, sep } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const VENDOR = [
  "openai",
  "@langchain/openai",
  "@anthropic-ai/sdk",
  "dockerode",
  "bullmq",
  "ioredis",
  "pg",
  "@langchain/langgraph-checkpoint-postgres",
  "playwright-core",
  "@browserbasehq/stagehand",
];
/** Where each public entry must live: the folder of the layer it describes. */
const ENTRY_LAYER: Record<string, string> = {
  ".": "graphs",
  "./evaluation": "src",
  "./models": "adapters",
  "./simdesk": "adapters",
  "./langchain": "adapters",
  "./adapters": "adapters",
  "./testing": "adapters/testing",
  "./experiments": "experiments",
  "./openai-agents": "adapters/sdk/openai-agents",
  "./ai-sdk": "adapters/sdk/ai-sdk",
  "./stagehand": "adapters/sdk/stagehand",
};

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|mjs)$/.test(name)) yield p;
  }
}

const problems: string[] = [];
// Each entry's source is its "retrace-dev" condition (the built "import"/"types" files are dist/ copies of it).
const exportsMap = Object.fromEntries(
  Object.entries(
    (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports ?? {}) as Record<
      string,
      string | Record<string, string>
    >,
  )
    .filter(([name]) => name !== "./package.json")
    .map(([name, target]) => [name, typeof target === "string" ? target : (target["retrace-dev"] ?? "")]),
) as Record<string, string>;
const ENTRIES = new Set<string>();
for (const [name, file] of Object.entries(exportsMap)) {
  const rel = file.replace(/^\.\//, "");
  ENTRIES.add(rel);
  const layer = ENTRY_LAYER[name];
  if (!layer)
    problems.push(`package.json exports "${name}": not a layer entry (one of: ${Object.keys(ENTRY_LAYER).join(", ")})`);
  else if (dirname(rel) !== layer)
    problems.push(
      `package.json exports "${name}": ${rel} must be a file directly in ${layer}/ (the layer it describes)`,
    );
  try {
    if (/^\s*export\s*\*/m.test(readFileSync(join(ROOT, rel), "utf8")))
      problems.push(`${rel}: entry uses "export *"; list the names it exports`);
  } catch {
    problems.push(`package.json exports "${name}": ${rel} does not exist`);
  }
}
for (const name of Object.keys(ENTRY_LAYER))
  if (!(name in exportsMap)) problems.push(`package.json exports: missing the "${name}" entry`);
// An SDK entry's published JavaScript may be a guard (adapters/sdk/shared/peer-guard.ts) that loads
// the entry with await import(): the guard is an entry too, and may import the entry it guards.
for (const target of Object.values(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports ?? {}) as Record<
    string,
    string | Record<string, string>
  >,
)) {
  const built = typeof target === "string" ? undefined : target.import;
  if (built && /^\.\/dist\//.test(built)) ENTRIES.add(built.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
}
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
    for (const m of text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
    )) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) {
        const target = relative(ROOT, resolve(dirname(file), spec))
          .split(sep)
          .join("/");
        const layer = target.split("/")[0];
        if (top === "src" && ["graphs", "adapters", "prompts", "experiments"].includes(layer))
          problems.push(
            `${rel}: src/ must not import ${target} (layering: experiments -> graphs/adapters -> prompts -> src)`,
          );
        if (top === "prompts" && ["graphs", "adapters"].includes(layer))
          problems.push(`${rel}: prompts/ must not import ${target} (prompts sit just above src/)`);
        if (["graphs", "adapters", "prompts"].includes(top) && layer === "experiments")
          problems.push(`${rel}: ${top}/ must not import ${target} (experiments sit on top)`);
        if (ENTRIES.has(target) && !ENTRIES.has(rel))
          problems.push(`${rel}: import the module itself, not the public entry ${target}`);
      } else {
        const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
        if (VENDOR.includes(pkg) && top !== "adapters")
          problems.push(`${rel}: vendor SDK "${pkg}" may only be imported in adapters/`);
      }
    }
  }
}
if (problems.length) {
  process.stderr.write(problems.join("\n") + `\n${problems.length} layering problem(s)\n`);
  process.exit(1);
}
process.stdout.write("layers ok\n");
