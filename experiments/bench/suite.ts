/**
 * Running the benchmark modules one after another and printing their lines (`npm run bench`,
 * ./index.ts). A module that throws does not stop the run: its line is printed as FAILED with
 * the error, the other modules still run, and the exit code says that one failed.
 */
import type { BenchResult } from "./result.ts";

/** A benchmark module: `run()` measures and returns its lines. */
export type BenchModule = { run(): Promise<BenchResult[]> };

/** Options of {@link runBenches}. */
export interface RunBenchesOptions {
  /** Run only the benchmarks (or runtime lines) whose name contains this. */
  only?: string;
  /** One JSON object per line instead of text. @default false */
  json?: boolean;
  /** Where lines go. @default process.stdout.write */
  write?: (line: string) => void;
}

/** What {@link runBenches} did: lines printed and benchmarks that failed (with their errors). */
export interface BenchSummary {
  lines: number;
  failed: Array<{ name: string; error: string }>;
}

async function results(
  name: string,
  load: () => Promise<BenchModule>,
  only: string | undefined,
): Promise<BenchResult[]> {
  if (only && !name.includes(only) && name !== "runtime") return [];
  const mod = await load();
  if (only && !name.includes(only) && name === "runtime") {
    // `npm run bench overlap` runs one runtime line
    const lines = (mod as unknown as { LINES: Record<string, () => Promise<BenchResult[]>> }).LINES;
    const key = Object.keys(lines).find((k) => k.includes(only));
    return key ? (await lines[key]()).filter((r) => r.name.includes(only) || key === only) : [];
  }
  return mod.run();
}

/** One line of text for a result. */
function format(r: BenchResult): string {
  const value = r.value ?? r.ratio;
  const details = Object.entries(r.details)
    .map(([k, v]) => `${k}=${typeof v === "number" ? Number(v.toFixed(3)) : v}`)
    .join(" ");
  if (r.target !== undefined)
    return `${r.name.padEnd(34)} ${value.toFixed(2)} ${r.unit ?? "x"} (target ${r.target}) ${r.pass ? "PASS" : "MISS"}   ${r.ratioOf}; ${details}`;
  return `${r.name.padEnd(34)} ${r.ratioOf}: ${r.ratio.toFixed(2)}x   ${details}`;
}

/** Run the benchmarks in order; a failing one is reported as a FAILED line and the rest still run. */
export async function runBenches(
  benches: ReadonlyArray<readonly [string, () => Promise<BenchModule>]>,
  options: RunBenchesOptions = {},
): Promise<BenchSummary> {
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const summary: BenchSummary = { lines: 0, failed: [] };
  for (const [name, load] of benches) {
    let lines: BenchResult[];
    try {
      lines = await results(name, load, options.only);
    } catch (err) {
      const error = err instanceof Error ? err.message.split("\n")[0] : String(err);
      summary.failed.push({ name, error });
      write(
        options.json
          ? JSON.stringify({ id: name, value: null, unit: null, target: null, pass: false, error }) + "\n"
          : `${name.padEnd(34)} FAILED: ${error}\n`,
      );
      continue;
    }
    for (const r of lines) {
      summary.lines++;
      if (options.json)
        write(
          JSON.stringify({
            id: r.name,
            value: Number((r.value ?? r.ratio).toFixed(4)),
            unit: r.unit ?? "x",
            target: r.target ?? null,
            pass: r.pass ?? null,
            details: r.details,
          }) + "\n",
        );
      else write(format(r) + "\n");
    }
  }
  return summary;
}
