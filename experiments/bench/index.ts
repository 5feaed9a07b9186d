/**
 * `npm run bench [name]`: speed and memory targets, each measured side by side in one run (these
 * machines are shared and noisy, so absolute times alone mean little). A line with a target
 * prints its figure, the target and PASS or MISS; `npm run bench -- --json` prints every line as
 * JSON `{ id, value, unit, target, pass }` (target and pass null for lines without a target).
 * Each benchmark module exports `run(): Promise<BenchResult[]>` (./result.ts); add yours to BENCHES.
 */

import type { BenchResult } from "./result.ts";

type BenchModule = { run(): Promise<BenchResult[]> };

const BENCHES: Array<[string, () => Promise<BenchModule>]> = [
  ["ssim", () => import("./ssim.ts")],
  ["graph-overhead", () => import("./graph-overhead.ts")],
  ["simdesk-render", () => import("./simdesk-render.ts")],
  ["runtime", () => import("./runtime.ts")],
  ["distributed", () => import("./distributed.ts")],
  ["browser-restore", () => import("./browser-restore.ts")],
  ["recovery-token-overhead", () => import("./token-overhead.ts")],
  ["package", () => import("./package.ts")],
];

const args = process.argv.slice(2);
const json = args.includes("--json");
const only = args.find((a) => !a.startsWith("--"));
if (args.includes("--help")) {
  process.stdout.write(`npm run bench [-- [NAME] [--json]]: run every benchmark, or those whose name contains NAME\nbenchmarks: ${BENCHES.map(([n]) => n).join(", ")}\n--json: one { id, value, unit, target, pass, details } object per line\n`);
  process.exit(0);
}

async function results(name: string, load: () => Promise<BenchModule>): Promise<BenchResult[]> {
  const mod = await load();
  if (only && !name.includes(only) && name === "runtime") {
    // `npm run bench overlap` runs one runtime line
    const lines = (mod as unknown as { LINES: Record<string, () => Promise<BenchResult[]>> }).LINES;
    const key = Object.keys(lines).find((k) => k.includes(only));
    return key ? (await lines[key]()).filter((r) => r.name.includes(only) || key === only) : [];
  }
  if (only && !name.includes(only)) return [];
  return mod.run();
}

for (const [name, load] of BENCHES) {
  for (const r of await results(name, load)) {
    const value = r.value ?? r.ratio;
    if (json) {
      process.stdout.write(JSON.stringify({ id: r.name, value: Number(value.toFixed(4)), unit: r.unit ?? "x", target: r.target ?? null, pass: r.pass ?? null, details: r.details }) + "\n");
      continue;
    }
    const details = Object.entries(r.details)
      .map(([k, v]) => `${k}=${typeof v === "number" ? Number(v.toFixed(3)) : v}`)
      .join(" ");
    if (r.target !== undefined) {
      const verdict = r.pass ? "PASS" : "MISS";
      process.stdout.write(`${r.name.padEnd(34)} ${value.toFixed(2)} ${r.unit ?? "x"} (target ${r.target}) ${verdict}   ${r.ratioOf}; ${details}\n`);
    } else {
      process.stdout.write(`${r.name.padEnd(34)} ${r.ratioOf}: ${r.ratio.toFixed(2)}x   ${details}\n`);
    }
  }
}
