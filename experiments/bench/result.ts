/** One line of `npm run bench`: what a benchmark module's `run()` returns (see ./index.ts). */
export interface BenchResult {
  name: string;
  /** What the ratio compares, e.g. "graph step / bare loop step". */
  ratioOf: string;
  ratio: number;
  details: Record<string, number | string>;
  /** The figure judged against `target` (defaults to `ratio`). */
  value?: number;
  /** Unit of `value`. @default "x" */
  unit?: string;
  /** The target as text, e.g. "<= 10". */
  target?: string;
  /** Whether `value` meets `target`. */
  pass?: boolean;
}
