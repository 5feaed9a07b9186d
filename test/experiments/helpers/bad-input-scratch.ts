/**
 * Shared setup of the bad-input corpus (test/experiments/bad-input-*.test.ts): the config files
 * written into a scratch folder, the row shape, the scratch folder itself (configs, run folders,
 * finished and corrupted runs) and the size snapshot that "nothing written" compares.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { cli } from "./corpus.ts";

const CWD = process.cwd();

const TINY = {
  kind: "end-to-end",
  name: "tiny",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  maxRecoveryIterations: [1],
  baseline: false,
  options: { maxForwardSteps: 8 },
  pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } }],
};
const pair = TINY.pairs[0];
const withPair = (patch: Record<string, unknown>) => ({ ...TINY, pairs: [{ ...pair, ...patch }] });
const IDEAL = {
  kind: "ideal-recovery",
  name: "i",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  forward: { kind: "sim", profile: "sloppy" },
  detector: { kind: "sim", profile: "decent" },
};
const SWEEP = {
  kind: "sweep",
  name: "s",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  pair,
  params: { freezeWindow: [0, 1] },
};

/** Config files written into the scratch folder: name -> text (objects become JSON). */
const CONFIGS: Record<string, unknown> = {
  "ok.json": TINY,
  "other.json": { ...TINY, seeds: [1] },
  "broken.yaml": "kind: end-to-end\nname: [unclosed\n",
  "broken.json": '{ "kind": ',
  "empty.yaml": "",
  "list.yaml": "- 1\n- 2\n",
  "kind.json": { ...TINY, kind: "bogus" },
  "noname.json": { ...TINY, name: undefined },
  "nopairs.json": { ...TINY, pairs: [] },
  "pairname.json": withPair({ name: "a b" }),
  "profile-type.json": withPair({ forward: { kind: "sim", profile: 7 } }),
  "profile-typo.json": withPair({ forward: { kind: "sim", profile: "carefull" } }),
  "extra-field.json": { ...TINY, colour: "red" },
  "seeds-dup.json": { ...TINY, seeds: [1, 1, 1] },
  "seeds-three.json": { ...TINY, seeds: { count: "three" } },
  "seeds-huge.json": { ...TINY, seeds: { count: 100000000 } },
  "seeds-empty.json": { ...TINY, seeds: [] },
  "seeds-float.json": { ...TINY, seeds: [1.5] },
  "task.json": { ...TINY, env: { kind: "simdesk", tasks: ["no-such-task"] } },
  "limit.json": { ...TINY, env: { kind: "simdesk", limit: 0 } },
  "envkind.json": { ...TINY, env: { kind: "mars" } },
  "freeze.json": { ...TINY, options: { freezeWindow: -1 } },
  "budget.json": { ...TINY, options: { recoveryBudget: "ten" } },
  "cap.json": { ...TINY, maxRecoveryIterations: [0] },
  "retries.json": { ...TINY, envRetries: -1 },
  "ideal-k.json": { ...IDEAL, k: 50 },
  "ideal-ok.json": IDEAL,
  "ideal-strategy.json": { ...IDEAL, strategies: ["bogus"] },
  "sweep-param.json": { ...SWEEP, params: { notAnOption: [1] } },
  "sweep-none.json": { ...SWEEP, params: {} },
  "sweep-mode.json": { ...SWEEP, mode: "diagonal" },
  "sweep-value.json": { ...SWEEP, params: { freezeWindow: [-3] } },
  // agent-spec overrides (validated up front by the agents registry, issue 10)
  "recall.json": withPair({ detector: { kind: "sim", profile: "decent", recall: 7 } }),
  "sliprate.json": withPair({ forward: { kind: "sim", profile: "sloppy", slipRate: "lots" } }),
  // issue 20: bounds on every count and duration, seeds that stay safe integers, duplicate caps
  "settle-huge.json": { ...TINY, options: { settleMs: 1e9 } },
  "steps-huge.json": { ...TINY, options: { maxForwardSteps: 1e7 } },
  "budget-huge.json": { ...TINY, options: { recoveryBudget: 1e6 } },
  "caps-huge.json": { ...TINY, maxRecoveryIterations: [1e6] },
  "caps-dup.json": { ...TINY, maxRecoveryIterations: [1, 1] },
  "sample-huge.json": { ...TINY, env: { kind: "simdesk", sample: 1e8 } },
  "retries-huge.json": { ...TINY, envRetries: 1e6 },
  "seed-max.json": { ...TINY, seeds: [Number.MAX_SAFE_INTEGER] },
  "seed-start-max.json": { ...TINY, seeds: { count: 2, start: Number.MAX_SAFE_INTEGER - 1 } },
  "long-name.json": { ...TINY, env: { kind: "simdesk", tasks: ["t".repeat(100_000)] } },
  "ansi-task.json": { ...TINY, env: { kind: "simdesk", tasks: ["\u001b]0;pwned\u0007\u001b[2Jx"] } },
  "sweep-grid-huge.json": {
    ...SWEEP,
    params: {
      freezeWindow: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      recoveryBudget: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      replayRetries: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    },
  },
  "nocost.json": withPair({ forward: { kind: "model", model: "m", baseUrl: "http://127.0.0.1:9/v1" } }),
  "cached-price-high.json": withPair({
    forward: {
      kind: "model",
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      prices: { m: { inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 5 } },
    },
  }),
  "cache-write-negative.json": withPair({
    forward: {
      kind: "model",
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      prices: { m: { inputPerMillion: 3, outputPerMillion: 15, cacheWritePerMillion: -1 } },
    },
  }),
};

export interface CliRow {
  name: string;
  args: (d: string) => string[];
  /** What the one line must contain: the field or flag, and what would be accepted. */
  error: RegExp;
}

export const out = (d: string, name = "o") => ["--out", join(d, "fresh", name)];
export const cfg = (d: string, name: string) => join(d, "configs", name);

/** Every file and folder under `root` with its size (what "nothing left behind" compares). */
export function snapshot(root: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d)
      .sort()
      .flatMap((n) => {
        const p = join(d, n);
        const s = statSync(p);
        return s.isDirectory() ? [`${p}/`, ...walk(p)] : [`${p} ${s.size}`];
      });
  return walk(root);
}

/** Makes the scratch folder (configs, run folders, a finished run and corrupted copies) and enters it. */
export async function makeScratch(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-corpus-"));
  mkdirSync(join(dir, "configs"));
  for (const [name, body] of Object.entries(CONFIGS))
    writeFileSync(join(dir, "configs", name), typeof body === "string" ? body : JSON.stringify(body));
  writeFileSync(join(dir, "a-file"), "x");
  for (const [name, text] of [
    ["empty-run", ""],
    ["garbage-run", "\u0000\u0001 not json\n{\n"],
    ["wrong-run", '{"hello":"world"}\n{"a":1}\n'],
  ]) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "results.jsonl"), text);
  }
  execFileSync("mkfifo", [join(dir, "fifo.yaml")]);
  writeFileSync(join(dir, "configs", "bom-bad.json"), "\ufeff" + JSON.stringify({ ...TINY, seeds: [] }));
  mkdirSync(join(dir, "corrupt-queue"));
  writeFileSync(join(dir, "corrupt-queue", "queue.json"), '{ "runId": ');
  mkdirSync(join(dir, "bad-policy-run"));
  writeFileSync(join(dir, "bad-policy-run", "run.json"), "{ truncated");
  // default output folders (runs/...) would land in the scratch folder, where the snapshot sees them
  process.chdir(dir);
  const r = await cli(["run", join(dir, "configs", "ok.json"), "-w", "1", "-q", "--out", join(dir, "finished")]);
  expect(r.code, r.stderr).toBe(0);
  // finished runs with one file cut off or garbled (what a disk-full or a bad copy leaves)
  for (const [name, file, text] of [
    ["corrupt-summary", "summary.json", '{ "experiment": "tiny", '],
    ["corrupt-manifest", "manifest.json", "\u0000garbage"],
    ["corrupt-traj", "", ""],
  ] as const) {
    cpSync(join(dir, "finished"), join(dir, name), { recursive: true });
    if (file) writeFileSync(join(dir, name, file), text);
  }
  const traj = readdirSync(join(dir, "corrupt-traj", "a.max-rec-1"), { recursive: true })
    .map(String)
    .find((f) => f.endsWith("trajectory.json"))!;
  writeFileSync(join(dir, "corrupt-traj", "a.max-rec-1", traj), '{ "trajectory": { "steps": [');
  return dir;
}

/** Leaves the scratch folder and removes it. */
export function removeScratch(dir: string): void {
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
}

/** The rows run through the real launcher (bin/retrace.mjs), from a folder outside the repository. */
export const SUBPROCESS_ROWS: Array<{ name: string; args: (d: string) => string[]; error: RegExp }> = [
  {
    name: "--out /proc/x through the launcher ends at once",
    args: (d) => ["run", cfg(d, "ok.json"), "-q", "--out", "/proc/retrace-x"],
    error: /--out: .* kernel file system/,
  },
  {
    name: "bad config through the launcher",
    args: (d) => ["run", cfg(d, "seeds-three.json"), "-q", ...out(d)],
    error: /seeds\.count: .*expected number/,
  },
];
