/**
 * `npm run bench [name]`: speed and memory targets, each measured side by side in one run (these
 * machines are shared and noisy, so absolute times alone mean little). A line with a target
 * prints its figure, the target and PASS or MISS; `npm run bench -- --json` prints every line as
 * JSON `{ id, value, unit, target, pass }` (target and pass null for lines without a target).
 * Each benchmark module exports `run(): Promise<BenchResult[]>` (./result.ts); add yours to BENCHES.
 * A benchmark that fails prints a FAILED line with its error; the rest still run, and the exit
 * code is 1 (./suite.ts).
 */

import { runBenches, type BenchModule } from "./suite.ts";

const BENCHES: Array<[string, () => Promise<BenchModule>]> = [
  ["ssim", () => import("./ssim.ts")],
  ["graph-overhead", () => import("./graph-overhead.ts")],
  ["simdesk-render", () => import("./simdesk-render.ts")],
  ["runtime", () => import("./runtime.ts")],
  ["distributed", () => import("./distributed.ts")],
  ["browser-restore", () => import("./browser-restore.ts")],
  ["recovery-token-overhead", () => import("./token-overhead.ts")],
  ["sdk-overlap", () => import("./sdk-overlap.ts")],
  ["package", () => import("./package.ts")],
  ["import-agents-snippet", () => import("./import-sdk.ts")],
  ["report-long-text", () => import("./report-long-text.ts")],
  ["demo-cpu", () => import("./demo-cpu.ts")],
  ["tune-efficiency", () => import("./tune-efficiency.ts")],
];

const args = process.argv.slice(2);
const json = args.includes("--json");
const only = args.find((a) => !a.startsWith("--"));
if (args.includes("--help")) {
  process.stdout.write(
    `npm run bench [-- [NAME] [--json]]: run every benchmark, or those whose name contains NAME\nbenchmarks: ${BENCHES.map(([n]) => n).join(", ")}\n--json: one { id, value, unit, target, pass, details } object per line (a failed benchmark: { id, pass: false, error })\n`,
  );
  process.exit(0);
}

const summary = await runBenches(BENCHES, { only, json });
if (summary.failed.length) {
  process.stderr.write(
    `bench: ${summary.failed.length} benchmark(s) failed: ${summary.failed.map((f) => f.name).join(", ")}\n`,
  );
  process.exitCode = 1;
}
