/**
 * A missing SDK package is one line naming it (issue 41). Each SDK entry's published JavaScript
 * (package.json `exports` `import`) is a guard that loads the entry with `await import`; here each
 * guard runs in a child `node` whose project has every package of the repo except the one the
 * entry needs (a temp folder: the source folders and each node_modules entry linked, that one left
 * out, `--preserve-symlinks` so resolution stays in the temp folder), and must end with the one
 * line naming the package and its install command, no stack frames.
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
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, { types?: string; import?: string }>;
  peerDependencies: Record<string, string>;
};

/** The guard's source for an entry of the exports map (`./dist/x/entry.js` -> `x/entry.ts`). */
const guardSource = (entry: string): string =>
  PKG.exports[entry].import!.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");

const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

/** A project folder whose node_modules holds every package of the repo except `hidden`. */
function projectWithout(hidden: string): string {
  const dir = mkdtempSync(join(tmpdir(), "retrace-peer-"));
  tmp.push(dir);
  for (const d of ["src", "graphs", "adapters", "prompts", "experiments"]) symlinkSync(join(ROOT, d), join(dir, d));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const nm = join(dir, "node_modules");
  mkdirSync(nm);
  const repoNm = join(ROOT, "node_modules");
  for (const name of readdirSync(repoNm)) {
    if (name === hidden) continue;
    if (name.startsWith("@")) {
      mkdirSync(join(nm, name));
      for (const sub of readdirSync(join(repoNm, name)))
        if (`${name}/${sub}` !== hidden) symlinkSync(join(repoNm, name, sub), join(nm, name, sub));
    } else symlinkSync(join(repoNm, name), join(nm, name));
  }
  return dir;
}

function importIn(dir: string, file: string): Promise<{ code: number | null; stderr: string }> {
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

const CASES: { entry: string; hidden: string }[] = [
  { entry: "./ai-sdk", hidden: "ai" },
  { entry: "./ai-sdk", hidden: "@ai-sdk/anthropic" },
  { entry: "./openai-agents", hidden: "@openai/agents" },
  { entry: "./stagehand", hidden: "@browserbasehq/stagehand" },
  { entry: "./langchain", hidden: "@langchain/core" },
];

describe("a missing SDK package", () => {
  it.each(CASES)(
    "retrace-cua/$entry without $hidden: one line naming it and the install command",
    async ({ entry, hidden }) => {
      const name = `retrace-cua/${entry.slice(2)}`;
      const { code, stderr } = await importIn(projectWithout(hidden), guardSource(entry));
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

  it("with every package present the guard loads the entry (the same child process set-up)", async () => {
    const { code, stderr } = await importIn(projectWithout("no-such-package"), guardSource("./ai-sdk"));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 60_000);
});

describe("the guards", () => {
  it("each exports exactly the values of the entry whose types it publishes", async () => {
    for (const entry of ["./ai-sdk", "./openai-agents", "./stagehand", "./langchain"]) {
      const guard = (await import(join(ROOT, guardSource(entry)))) as Record<string, unknown>;
      const typesOf = PKG.exports[entry].types!.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts");
      const index = (await import(join(ROOT, typesOf))) as Record<string, unknown>;
      expect(Object.keys(guard).sort(), entry).toEqual(Object.keys(index).sort());
      for (const k of Object.keys(index)) expect(guard[k], `${entry} ${k}`).toBe(index[k]);
    }
  }, 60_000);

  it("name the peer ranges of package.json", () => {
    for (const [pkg, range] of Object.entries(SDK_PEERS)) expect(PKG.peerDependencies[pkg], pkg).toBe(range);
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
      `ConfigError: retrace-cua/stagehand needs @browserbasehq/stagehand ^3.7.3, found 4.4.0: Stagehand 4 has no agent(), the computer-use agent this entry wraps: npm install "@browserbasehq/stagehand@^3.7.3"`,
    );
    expect(err!.stack).not.toContain("\n");
    expect(err!.message).toContain(SDK_PEERS["@browserbasehq/stagehand"]);
    expect(stagehandWithoutAgent({}, undefined)!.message).toMatch(
      /^retrace-cua\/stagehand needs @browserbasehq\/stagehand \^3\.7\.3: Stagehand 4 has no agent\(\)/,
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
