/**
 * `npm run bench`: speed and memory targets, each printed as a ratio measured side by side in
 * one run (these machines are shared and noisy, so absolute times alone mean little).
 * Each benchmark module exports `run(): Promise<BenchResult[]>`; add yours to BENCHES.
 */

export interface BenchResult {
  name: string;
  /** What the ratio compares, e.g. "graph step / bare loop step". */
  ratioOf: string;
  ratio: number;
  details: Record<string, number | string>;
}

type BenchModule = { run(): Promise<BenchResult[]> };

const BENCHES: Array<[string, () => Promise<BenchModule>]> = [
  ["ssim", () => import("./ssim.ts")],
  ["graph-overhead", () => import("./graph-overhead.ts")],
  ["simdesk-render", () => import("./simdesk-render.ts")],
  ["distributed", () => import("./distributed.ts")],
];

const only = process.argv[2];
for (const [name, load] of BENCHES) {
  if (only && !name.includes(only)) continue;
  const mod = await load();
  for (const r of await mod.run()) {
    const details = Object.entries(r.details)
      .map(([k, v]) => `${k}=${typeof v === "number" ? Number(v.toFixed(3)) : v}`)
      .join(" ");
    process.stdout.write(`${r.name.padEnd(34)} ${r.ratioOf}: ${r.ratio.toFixed(2)}x   ${details}\n`);
  }
}
