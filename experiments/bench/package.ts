/**
 * The installed package as a user meets it, measured in one run: `npm pack --workspaces` of this
 * tree, the umbrella `retrace-cua` installed alone (its tarball and those of the 16 @retrace-cua
 * packages it depends on) into an empty project (the middleware user's install), then with plain
 * node in that project: importing the main entry, `retrace --version` and `retrace --help`.
 *   package-install   packages, MB and install scripts the tarballs add  targets <= 45, <= 90 MB, 0
 *                     (the consumer test's budget: 41 packages, 17 of them retrace's own, 63.3 MB at the split)
 *   import-main       ms and RSS of `import("<name>")`                    targets <= 300 ms, <= 80 MB
 *   cli-version       ms of `retrace --version`                           target <= 500 ms
 *   cli-help          ms of `retrace --help`                              target <= 1000 ms
 * Times are medians of 5 runs of a fresh process (import-main: 7); the project is cached
 * (RETRACE_CONSUMER_CACHE). import-main is judged, like cli-version, on the time the import takes
 * (wall clock around `await import(...)`), with its CPU time beside (user + system of the whole
 * process during the import: larger than the wall time on an idle machine, because V8 compiles
 * and collects garbage on helper threads alongside). On a loaded machine both grow with the
 * neighbours; bare node's process CPU is printed beside to show the load. Its RSS is the whole
 * process's after the import, bare node's beside it.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { CACHE, PACKAGE_NAME, installProject, nodeModulesSize, packTree, tarballsFor } from "./consumer-project.ts";
import type { BenchResult } from "./result.ts";

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall ms of a fresh process running `args`, median of `n`. */
function timed(cmd: string, args: string[], cwd: string, n = 5): number {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    ms.push(performance.now() - t);
  }
  return median(ms);
}

export async function run(): Promise<BenchResult[]> {
  const tarballs = tarballsFor(await packTree(join(CACHE, "pack")), [PACKAGE_NAME]);
  const dir = await installProject({ name: "slim", dependencies: {} }, tarballs);
  const size = nodeModulesSize(dir);
  const mb = size.bytes / 1e6;

  // import-main: the import alone, measured inside a fresh process (CPU and wall), and the RSS after it.
  const probe = (spec: string) =>
    `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(spec)}); const u = process.cpuUsage(c); const all = process.cpuUsage();` +
    ` process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1000, wall: performance.now() - t, proc: (all.user + all.system) / 1000, rss: process.memoryUsage().rss / 1e6 }));`;
  type Sample = { cpu: number; wall: number; proc: number; rss: number };
  const sample = (spec: string): Sample =>
    JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", probe(spec)], { cwd: dir }).toString(),
    ) as Sample;
  const samples: Sample[] = [];
  const bares: Sample[] = [];
  for (let i = 0; i < 7; i++) {
    samples.push(sample(PACKAGE_NAME));
    bares.push(sample("node:os")); // bare node: the same probe on a built-in module
  }
  const importCpu = median(samples.map((s) => s.cpu));
  const importWall = median(samples.map((s) => s.wall));
  const importRss = median(samples.map((s) => s.rss));

  const bin = join(dir, "node_modules/.bin/retrace");
  const versionMs = timed(bin, ["--version"], dir);
  const helpMs = timed(bin, ["--help"], dir);
  const nodeMs = timed(process.execPath, ["-e", "0"], dir);

  return [
    {
      name: "package-install",
      ratioOf: "packages the umbrella's tarballs add to an empty project (npm install, no optional peers)",
      ratio: size.packages,
      value: size.packages,
      unit: "packages",
      target: "<= 45 packages, <= 90 MB, 0 install scripts",
      pass: size.packages <= 45 && mb <= 90 && size.installScripts.length === 0,
      details: {
        mb: Number(mb.toFixed(1)),
        installScripts: size.installScripts.length,
        withScripts: size.installScripts.join(",") || "none",
      },
    },
    {
      name: "import-main",
      ratioOf: `time of import("${PACKAGE_NAME}") in a fresh node process, median of 7`,
      ratio: importWall,
      value: importWall,
      unit: "ms",
      target: "<= 300 ms, <= 80 MB RSS",
      pass: importWall <= 300 && importRss <= 80,
      details: {
        rssMb: Number(importRss.toFixed(1)),
        bareNodeRssMb: Number(median(bares.map((s) => s.rss)).toFixed(1)),
        cpuMs: Number(importCpu.toFixed(0)),
        processCpuMs: Number(median(samples.map((s) => s.proc)).toFixed(0)),
        bareNodeProcessCpuMs: Number(median(bares.map((s) => s.proc)).toFixed(0)),
      },
    },
    {
      name: "cli-version",
      ratioOf: "retrace --version, whole process, median of 5",
      ratio: versionMs,
      value: versionMs,
      unit: "ms",
      target: "<= 500",
      pass: versionMs <= 500,
      details: { bareNodeMs: Number(nodeMs.toFixed(0)) },
    },
    {
      name: "cli-help",
      ratioOf: "retrace --help, whole process, median of 5",
      ratio: helpMs,
      value: helpMs,
      unit: "ms",
      target: "<= 1000",
      pass: helpMs <= 1000,
      details: { bareNodeMs: Number(nodeMs.toFixed(0)) },
    },
  ];
}
