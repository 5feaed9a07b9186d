/**
 * npm run lint:layers: the layering is the workspace's package boundaries, and this reads them.
 * For every workspace package (packages/*, experiments/):
 * - a relative import never leaves the package's folder;
 * - a bare import names the package itself, a package in its `dependencies`, or one in its
 *   `peerDependencies` (the dev-only folders experiments/bench, scripts and probes may also use the
 *   root's devDependencies), and `@retrace-cua/x/sub` names a module that exists in x's sources;
 * - the packages' dependencies on each other follow the layers (RANK: a package depends only on
 *   packages of a lower rank), so they cannot form a cycle;
 * - vendor SDKs (VENDOR) are imported only by the adapter-layer packages;
 * - a package's entry (src/index.ts) re-exports names, never `export *`.
 * The umbrella `retrace-cua` (packages/retrace-cua) re-exports one package per subpath with `export *`:
 * its names are the package's, pinned by test/public-api.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

// RETRACE_LAYERS_ROOT: check another workspace (test/experiments/check-layers.test.ts)
const ROOT = process.env.RETRACE_LAYERS_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Layer of each package: a package may depend only on packages of a lower rank. */
export const RANK: Record<string, number> = {
  core: 0,
  evaluation: 1,
  stores: 1,
  models: 2,
  graphs: 3,
  simdesk: 3,
  browser: 3,
  desktops: 3,
  testing: 3,
  "sdk-shared": 3,
  environments: 4,
  "openai-agents": 4,
  "ai-sdk": 4,
  stagehand: 4,
  langchain: 4,
  experiments: 5,
  "retrace-cua": 6,
};
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
  "@openai/agents",
  "ai",
  "langchain",
];
const ADAPTERS = new Set([
  "models",
  "browser",
  "desktops",
  "stores",
  "openai-agents",
  "ai-sdk",
  "stagehand",
  "langchain",
]);
// dev-only folders; the CLI launcher loads tsx only in a checkout, where the sources are
const DEV_ONLY = /^experiments\/(bench|scripts|probes)\/|^experiments\/bin\/retrace\.mjs$/;

interface Pkg {
  short: string;
  dir: string;
  src: string;
  json: {
    name: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith(".d.ts")) yield p;
  }
}
const read = (p: string) => JSON.parse(readFileSync(p, "utf8"));
const rootJson = read(join(ROOT, "package.json")) as { devDependencies?: Record<string, string> };

const packages: Pkg[] = [];
for (const name of readdirSync(join(ROOT, "packages"))) {
  const dir = join(ROOT, "packages", name);
  if (!existsSync(join(dir, "package.json"))) continue;
  packages.push({ short: name, dir, src: join(dir, "src"), json: read(join(dir, "package.json")) });
}
packages.push({
  short: "experiments",
  dir: join(ROOT, "experiments"),
  src: join(ROOT, "experiments"),
  json: read(join(ROOT, "experiments", "package.json")),
});
const byName = new Map(packages.map((p) => [p.json.name, p]));

const problems: string[] = [];
const rel = (p: string) => relative(ROOT, p).split(sep).join("/");
for (const pkg of packages) {
  const rank = RANK[pkg.short];
  if (rank === undefined)
    problems.push(`${rel(pkg.dir)}: a package with no layer; add it to RANK in ${rel(fileURLToPath(import.meta.url))}`);
  const deps = pkg.json.dependencies ?? {};
  const peers = pkg.json.peerDependencies ?? {};
  for (const dep of Object.keys(deps)) {
    const other = byName.get(dep);
    if (other && rank !== undefined && !((RANK[other.short] ?? Infinity) < rank))
      problems.push(`${pkg.json.name} depends on ${dep}: a package may depend only on lower layers (RANK)`);
  }
  if (!existsSync(pkg.dir)) continue;
  if (pkg.short === "retrace-cua") continue; // the umbrella: checked by test/public-api.test.ts
  for (const file of walk(pkg.dir)) {
    const at = rel(file);
    const devOnly = DEV_ONLY.test(at);
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    if (file === join(pkg.src, "index.ts") && /^\s*export\s*\*/m.test(text))
      problems.push(`${at}: entry uses "export *"; list the names it exports`);
    for (const m of text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm,
    )) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(pkg.dir + sep))
          problems.push(`${at}: ${spec} leaves ${pkg.json.name}; import it from its package`);
        continue;
      }
      if (spec.startsWith("node:") || spec.includes("${")) continue;
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      const sub = spec.slice(name.length + 1);
      // the umbrella's name appears in code a command prints for the user (retrace tune's winner)
      if (name === pkg.json.name || name === "retrace-cua") continue;
      const other = byName.get(name);
      if (other) {
        if (!(name in deps) && !devOnly)
          problems.push(`${at}: imports ${name}, which is not in ${pkg.json.name}'s dependencies`);
        if (sub && !existsSync(join(other.src, `${sub}.ts`)))
          problems.push(`${at}: ${spec}: no module ${sub}.ts in ${rel(other.src)}`);
        continue;
      }
      if (VENDOR.includes(name) && !ADAPTERS.has(pkg.short) && pkg.short !== "experiments" && pkg.short !== "testing")
        problems.push(
          `${at}: vendor SDK "${name}" may only be imported by an adapter package (${[...ADAPTERS].join(", ")})`,
        );
      if (!(name in deps) && !(name in peers) && !(devOnly && rootJson.devDependencies?.[name]))
        problems.push(
          `${at}: imports ${name}, which is in neither dependencies nor peerDependencies of ${pkg.json.name}`,
        );
    }
  }
}
if (problems.length) {
  process.stderr.write(problems.join("\n") + `\n${problems.length} layering problem(s)\n`);
  process.exit(1);
}
process.stdout.write(`layers ok: ${packages.length} packages\n`);
