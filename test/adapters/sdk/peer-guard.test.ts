/**
 * A missing SDK package is one line naming it (issue 41). Each integration package's published
 * JavaScript (package.json `exports` "." `import`) is a guard that loads the package with `await
 * import`; here each guard runs in a child `node` whose project has every package of the repo except
 * the one the integration needs (a temp folder whose node_modules links each entry of the repo's,
 * the workspace packages included, that one left out; `--preserve-symlinks` so resolution stays in
 * the temp folder), and must end with the one line naming the package and its install command, no
 * stack frames.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  SDK_PEERS,
  installedVersion,
  loadSdkEntry,
  missingPackageOf,
  stagehandWithoutAgent,
} from "../../../packages/sdk-shared/src/peer-guard.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The integration packages (packages/<name>): their package.json. */
const INTEGRATIONS = ["ai-sdk", "openai-agents", "stagehand", "langchain"] as const;
type Integration = (typeof INTEGRATIONS)[number];
const PKG = Object.fromEntries(
  INTEGRATIONS.map((name) => [
    name,
    JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8")) as {
      name: string;
      exports: Record<string, { types?: string; import?: string }>;
      peerDependencies: Record<string, string>;
    },
  ]),
) as Record<
  Integration,
  {
    name: string;
    exports: Record<string, { types?: string; import?: string }>;
    peerDependencies: Record<string, string>;
  }
>;

/** A package's source for a built file of its exports map (`./dist/x.js` or `./dist/x.d.ts` -> `src/x.ts`), from its folder. */
const sourceOf = (built: string): string => built.replace(/^\.\/dist\//, "src/").replace(/(\.d)?\.ts$|\.js$/, ".ts");
/** The guard's source of an integration (its exports "." `import`), relative to the repo. */
const guardSource = (name: Integration): string => join("packages", name, sourceOf(PKG[name].exports["."].import!));

const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

/**
 * A project folder whose node_modules holds every package of the repo except `hidden` (the
 * workspace packages too: the repo's node_modules/@retrace-cua links them), and `packages/` linked.
 */
function projectWithout(hidden: string): string {
  const dir = mkdtempSync(join(tmpdir(), "retrace-peer-"));
  tmp.push(dir);
  symlinkSync(join(ROOT, "packages"), join(dir, "packages"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const nm = join(dir, "node_modules");
  mkdirSync(nm, { recursive: true });
  const repoNm = join(ROOT, "node_modules");
  for (const name of readdirSync(repoNm)) {
    if (name === hidden || name.startsWith(".")) continue;
    if (name.startsWith("@")) {
      mkdirSync(join(nm, name), { recursive: true });
      for (const sub of readdirSync(join(repoNm, name)))
        if (`${name}/${sub}` !== hidden) symlinkSync(join(repoNm, name, sub), join(nm, name, sub));
    } else symlinkSync(join(repoNm, name), join(nm, name));
  }
  return dir;
}

/** Import the guard of `name` as the project's node_modules holds it. */
function importIn(dir: string, name: Integration): Promise<{ code: number | null; stderr: string }> {
  const file = join("node_modules", PKG[name].name, sourceOf(PKG[name].exports["."].import!));
  writeFileSync(join(dir, "main.mjs"), `import ${JSON.stringify(`./${file}`)};\nconsole.log("loaded");\n`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--preserve-symlinks", "--preserve-symlinks-main", "--conditions=retrace-dev", "--import", "tsx", "main.mjs"],
      { cwd: dir, timeout: 60_000 },
      (err, _stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr });
      },
    );
  });
}

const CASES: { entry: Integration; hidden: string }[] = [
  { entry: "ai-sdk", hidden: "ai" },
  { entry: "openai-agents", hidden: "@openai/agents" },
  { entry: "stagehand", hidden: "@browserbasehq/stagehand" },
  { entry: "langchain", hidden: "@langchain/core" },
];

describe("a missing SDK package", () => {
  it.each(CASES)(
    "@retrace-cua/$entry without $hidden: one line naming it and the install command",
    async ({ entry, hidden }) => {
      const name = `@retrace-cua/${entry}`;
      const { code, stderr } = await importIn(projectWithout(hidden), entry);
      expect(code).toBe(1);
      const range = SDK_PEERS[hidden];
      const install = range === undefined ? hidden : `"${hidden}@${range}"`;
      const line = `ConfigError: ${name} needs the optional package ${hidden}, which is not installed: npm install ${install}`;
      expect(stderr).toContain(line);
      expect(stderr).not.toContain("ERR_MODULE_NOT_FOUND");
      expect(stderr).not.toMatch(/^\s+at /m);
      // Node's own frame around an uncaught error (its header, `code`, `field`, version) and the line.
      expect(stderr.trim().split("\n").length).toBeLessThanOrEqual(10);
    },
    60_000,
  );

  it("@retrace-cua/ai-sdk without @ai-sdk/anthropic loads: ai is its one SDK (the provider loads on retraceComputerTool's default)", async () => {
    const { code, stderr } = await importIn(projectWithout("@ai-sdk/anthropic"), "ai-sdk");
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 60_000);

  it("with every package present the guard loads the entry (the same child process set-up)", async () => {
    const { code, stderr } = await importIn(projectWithout("no-such-package"), "ai-sdk");
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 60_000);
});

describe("the guards", () => {
  it("each exports exactly the values of the entry whose types it publishes", async () => {
    for (const entry of INTEGRATIONS) {
      const guard = (await import(join(ROOT, guardSource(entry)))) as Record<string, unknown>;
      const typesOf = join("packages", entry, sourceOf(PKG[entry].exports["."].types!));
      const index = (await import(join(ROOT, typesOf))) as Record<string, unknown>;
      expect(Object.keys(guard).sort(), entry).toEqual(Object.keys(index).sort());
      for (const k of Object.keys(index)) expect(guard[k], `${entry} ${k}`).toBe(index[k]);
    }
  }, 60_000);

  it("name the peer ranges of the integration packages' package.json", () => {
    for (const [pkg, range] of Object.entries(SDK_PEERS)) {
      const declaring = INTEGRATIONS.filter((i) => PKG[i].peerDependencies[pkg] !== undefined);
      expect(declaring.length, `${pkg}: an integration package's peer`).toBeGreaterThan(0);
      for (const i of declaring) expect(PKG[i].peerDependencies[pkg], `${i}: ${pkg}`).toBe(range);
    }
  });

  it("rethrow anything that is not a missing package unchanged", async () => {
    const boom = new TypeError("boom");
    await expect(loadSdkEntry("retrace-cua/x", () => Promise.reject(boom))).rejects.toBe(boom);
    const missing = Object.assign(new Error("Cannot find package '@scope/pkg' imported from /a/b.js"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(missingPackageOf(missing)).toBe("@scope/pkg");
    await expect(loadSdkEntry("retrace-cua/x", () => Promise.reject(missing))).rejects.toThrow(ConfigError);
    // a missing relative module is a broken install of retrace, not a missing package: rethrown
    const relative = Object.assign(new Error("Cannot find module '/a/b.js' imported from /a/c.js"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(loadSdkEntry("retrace-cua/x", () => Promise.reject(relative))).rejects.toBe(relative);
  });
});

describe("a Stagehand without agent() (Stagehand 4)", () => {
  it("is refused in one line naming the supported range, the version found and why; Stagehand 3 passes", async () => {
    class Stagehand4 {
      act(): void {}
    }
    const err = stagehandWithoutAgent({ Stagehand: Stagehand4 }, "4.4.0");
    expect(err).toBeInstanceOf(ConfigError);
    expect(`${err!.name}: ${err!.message}`).toBe(
      `ConfigError: @retrace-cua/stagehand needs @browserbasehq/stagehand ^3.7.3, found 4.4.0: Stagehand 4 has no agent(), the computer-use agent this entry wraps: npm install "@browserbasehq/stagehand@^3.7.3"`,
    );
    expect(err!.stack).not.toContain("\n");
    expect(err!.message).toContain(SDK_PEERS["@browserbasehq/stagehand"]);
    expect(stagehandWithoutAgent({}, undefined)!.message).toMatch(
      /^@retrace-cua\/stagehand needs @browserbasehq\/stagehand \^3\.7\.3: Stagehand 4 has no agent\(\)/,
    );
    // the installed Stagehand 3 (the repo's pin) has agent()
    expect(
      stagehandWithoutAgent((await import("@browserbasehq/stagehand")) as { Stagehand?: unknown }, "3.7.3"),
    ).toBeUndefined();
  });

  it("names the installed version from the package.json above the resolved file, or none when it cannot be read", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "node_modules/@browserbasehq/stagehand/package.json"), "utf8")) as {
      version: string;
    };
    const main = pathToFileURL(join(ROOT, "node_modules/@browserbasehq/stagehand/dist/esm/index.js")).href;
    expect(installedVersion("@browserbasehq/stagehand", main)).toBe(pkg.version);
    expect(installedVersion("@browserbasehq/stagehand", undefined)).toBeUndefined();
    expect(installedVersion("no-such-package", main)).toBeUndefined();
  });
});
