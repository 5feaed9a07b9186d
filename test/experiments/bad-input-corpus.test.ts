/**
 * The bad-input corpus (issue 12): inputs a new user gets wrong, across every command (configs,
 * flags, task ids, model endpoints, run folders, result files, OSWorld task files, action strings).
 * Each CLI row runs `retrace` in-process (a few by subprocess) inside a scratch folder and must give
 * one line on stderr that names the field or flag, a non-zero exit, and leave the scratch folder
 * exactly as it was (nothing written, nothing lost). Function rows feed model/task text to the
 * parsers, which must refuse it with one line naming what is wrong, never run it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./helpers/corpus.ts";
import { parsePyautogui } from "../../packages/models/src/actions/pyautogui/convert.ts";
import { uiTarsToActions } from "../../packages/models/src/actions/uitars/convert.ts";
import { openAIComputerActionToActions } from "../../packages/models/src/actions/openai-cua/convert.ts";
import { anthropicComputerInputToActions } from "../../packages/models/src/actions/anthropic/convert.ts";
import { parseOsworldTask } from "../../packages/desktops/src/osworld/tasks.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CWD = process.cwd();
let dir = "";

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

interface CliRow {
  name: string;
  args: (d: string) => string[];
  /** What the one line must contain: the field or flag, and what would be accepted. */
  error: RegExp;
}

const out = (d: string, name = "o") => ["--out", join(d, "fresh", name)];
const cfg = (d: string, name: string) => join(d, "configs", name);

const CLI_ROWS: CliRow[] = [
  // configs
  {
    name: "missing config file",
    args: (d) => ["run", cfg(d, "nope.yaml"), ...out(d)],
    error: /cannot read config .*nope\.yaml/,
  },
  { name: "config path is a folder", args: (d) => ["run", join(d, "configs"), ...out(d)], error: /cannot read config/ },
  {
    name: "broken YAML",
    args: (d) => ["run", cfg(d, "broken.yaml"), ...out(d)],
    error: /broken\.yaml: not valid YAML/,
  },
  {
    name: "broken JSON",
    args: (d) => ["run", cfg(d, "broken.json"), ...out(d)],
    error: /broken\.json: not valid JSON/,
  },
  { name: "empty config", args: (d) => ["run", cfg(d, "empty.yaml"), ...out(d)], error: /empty\.yaml.*(object|kind)/ },
  {
    name: "config is a list",
    args: (d) => ["run", cfg(d, "list.yaml"), ...out(d)],
    error: /list\.yaml.*(object|kind)/,
  },
  {
    name: "unknown kind",
    args: (d) => ["run", cfg(d, "kind.json"), ...out(d)],
    error: /kind must be one of "ideal-recovery", "end-to-end", "sweep"/,
  },
  { name: "missing name", args: (d) => ["run", cfg(d, "noname.json"), ...out(d)], error: /\.name: .*string/ },
  {
    name: "no pairs",
    args: (d) => ["run", cfg(d, "nopairs.json"), ...out(d)],
    error: /\.pairs: .*(>=1|at least|too small)/i,
  },
  {
    name: "pair name with a space",
    args: (d) => ["run", cfg(d, "pairname.json"), ...out(d)],
    error: /pairs\.0\.name: use letters, digits, - and _ only/,
  },
  {
    name: "profile is a number",
    args: (d) => ["run", cfg(d, "profile-type.json"), ...out(d)],
    error: /pairs\.0\.forward\.profile: .*string/,
  },
  {
    name: "profile typo",
    args: (d) => ["run", cfg(d, "profile-typo.json"), ...out(d)],
    error: /pairs\.0\.forward\.profile: unknown simulated forward profile "carefull"/,
  },
  {
    name: "unknown field",
    args: (d) => ["run", cfg(d, "extra-field.json"), ...out(d)],
    error: /unknown field\(s\) "colour"/,
  },
  {
    name: "repeated seeds",
    args: (d) => ["run", cfg(d, "seeds-dup.json"), ...out(d)],
    error: /\.seeds: each seed may appear once/,
  },
  {
    name: "seeds.count is a word",
    args: (d) => ["run", cfg(d, "seeds-three.json"), ...out(d)],
    error: /\.seeds\.count: .*expected number/,
  },
  {
    name: "seeds.count 10^8",
    args: (d) => ["run", cfg(d, "seeds-huge.json"), ...out(d)],
    error: /\.seeds\.count: at most 10000 seeds/,
  },
  {
    name: "no seeds",
    args: (d) => ["run", cfg(d, "seeds-empty.json"), ...out(d)],
    error: /\.seeds: .*(>=1|at least|too small)/i,
  },
  { name: "fractional seed", args: (d) => ["run", cfg(d, "seeds-float.json"), ...out(d)], error: /\.seeds\.0: .*int/i },
  {
    name: "unknown task id",
    args: (d) => ["run", cfg(d, "task.json"), ...out(d)],
    error: /config\.env\.tasks\.0: unknown task "no-such-task" for simdesk \(known: /,
  },
  {
    name: "env.limit 0",
    args: (d) => ["run", cfg(d, "limit.json"), ...out(d)],
    error: /\.env\.limit: .*(>=1|too small)/i,
  },
  {
    name: "unknown env kind",
    args: (d) => ["run", cfg(d, "envkind.json"), ...out(d)],
    error: /env\.kind: "mars" is not an environment .*use simdesk, x11/,
  },
  {
    name: "negative freezeWindow",
    args: (d) => ["run", cfg(d, "freeze.json"), ...out(d)],
    error: /options\.freezeWindow: .*(>=0|too small)/i,
  },
  {
    name: "recoveryBudget is a word",
    args: (d) => ["run", cfg(d, "budget.json"), ...out(d)],
    error: /options\.recoveryBudget: .*expected number/,
  },
  {
    name: "retry cap 0",
    args: (d) => ["run", cfg(d, "cap.json"), ...out(d)],
    error: /maxRecoveryIterations\.0: .*(>=1|too small)/i,
  },
  {
    name: "negative envRetries",
    args: (d) => ["run", cfg(d, "retries.json"), ...out(d)],
    error: /\.envRetries: .*(>=0|too small)/i,
  },
  {
    name: "ideal-recovery k 50",
    args: (d) => ["run", cfg(d, "ideal-k.json"), ...out(d)],
    error: /\.k: .*(<=20|too big)/i,
  },
  {
    name: "ideal-recovery unknown strategy",
    args: (d) => ["run", cfg(d, "ideal-strategy.json"), ...out(d)],
    error: /strategies\.0: .*(expected one of|Invalid option)/i,
  },
  {
    name: "sweep over a non-option",
    args: (d) => ["run", cfg(d, "sweep-param.json"), ...out(d)],
    error: /params\.notAnOption: not a recovery option \(one of: /,
  },
  {
    name: "sweep with nothing to sweep",
    args: (d) => ["run", cfg(d, "sweep-none.json"), ...out(d)],
    error: /\.params: a sweep needs at least one parameter/,
  },
  {
    name: "sweep mode typo",
    args: (d) => ["run", cfg(d, "sweep-mode.json"), ...out(d)],
    error: /\.mode: .*(grid|each)/,
  },
  {
    name: "sweep value out of range",
    args: (d) => ["run", cfg(d, "sweep-value.json"), ...out(d)],
    error: /params\.freezeWindow\.0: .*value -3/,
  },
  {
    name: "detector recall 7",
    args: (d) => ["run", cfg(d, "recall.json"), ...out(d)],
    error: /pairs\.0\.detector\.recall: .*<=1/,
  },
  // issue 20: bounds, seeds, duplicates, names
  {
    name: "settleMs 1e9 (each episode waited 30 min)",
    args: (d) => ["run", cfg(d, "settle-huge.json"), ...out(d)],
    error: /options\.settleMs: at most 60000 ms/,
  },
  {
    name: "maxForwardSteps 10^7",
    args: (d) => ["run", cfg(d, "steps-huge.json"), ...out(d)],
    error: /options\.maxForwardSteps: at most 1000 forward steps/,
  },
  {
    name: "recoveryBudget 10^6",
    args: (d) => ["run", cfg(d, "budget-huge.json"), ...out(d)],
    error: /options\.recoveryBudget: at most 1000 recovery steps/,
  },
  {
    name: "retry cap 10^6",
    args: (d) => ["run", cfg(d, "caps-huge.json"), ...out(d)],
    error: /maxRecoveryIterations\.0: at most 100 recovery attempts/,
  },
  {
    name: "caps [1, 1] (said: give every pair its own name)",
    args: (d) => ["run", cfg(d, "caps-dup.json"), "-w", "1", ...out(d)],
    error: /caps-dup\.json\.maxRecoveryIterations: max recovery iterations 1 is listed twice \(positions 0 and 1\)/,
  },
  {
    name: "env.sample 10^8",
    args: (d) => ["run", cfg(d, "sample-huge.json"), ...out(d)],
    error: /env\.sample: at most 10000 tasks/,
  },
  {
    name: "envRetries 10^6",
    args: (d) => ["run", cfg(d, "retries-huge.json"), ...out(d)],
    error: /\.envRetries: at most 20/,
  },
  {
    name: "seed 2^53-1 (failed after one result)",
    args: (d) => ["run", cfg(d, "seed-max.json"), ...out(d)],
    error: /\.seeds\.0: seeds are integers from -1000000000000000 to 1000000000000000/,
  },
  {
    name: "seeds.start 2^53-2",
    args: (d) => ["run", cfg(d, "seed-start-max.json"), ...out(d)],
    error: /\.seeds\.start: seeds are integers from/,
  },
  {
    name: "--seed beyond the seed bound",
    args: (d) => ["run", cfg(d, "ok.json"), "--seed", String(Number.MAX_SAFE_INTEGER), ...out(d)],
    error: /--seed: expected an integer between -1000000000000000 and 1000000000000000/,
  },
  {
    name: "a grid sweep of 3000 conditions",
    args: (d) => ["run", cfg(d, "sweep-grid-huge.json"), ...out(d)],
    error: /config\.params: the sweep makes 3000 conditions, more than 1000/,
  },
  {
    name: "a 100,000-character task id is shortened in the error",
    args: (d) => ["run", cfg(d, "long-name.json"), ...out(d)],
    error: /^.{0,400}unknown task "t{99}\.\.\.\(99802 characters left out\)\.\.\.t{99}" for simdesk.{0,600}$/,
  },
  {
    name: "ANSI escapes in a task id are printed escaped",
    args: (d) => ["run", cfg(d, "ansi-task.json"), ...out(d)],
    error: /unknown task "\\x1b\]0;pwned\\x07\\x1b\[2Jx"/,
  },
  {
    name: "--max-cost-usd without prices",
    args: (d) => ["run", cfg(d, "nocost.json"), "--max-cost-usd", "5", ...out(d)],
    error: /--max-cost-usd: config\.pairs\.0\.forward \(model "m"\) has no price.*add prices: \{ "m": /,
  },
  // issue 40: prompt-cache prices
  {
    name: "a cached-input price above the input price",
    args: (d) => ["run", cfg(d, "cached-price-high.json"), ...out(d)],
    error: /pairs\.0\.forward\.prices\.m\.cachedInputPerMillion: cachedInputPerMillion is above inputPerMillion/,
  },
  {
    name: "a negative cache-write price",
    args: (d) => ["run", cfg(d, "cache-write-negative.json"), ...out(d)],
    error: /pairs\.0\.forward\.prices\.m\.cacheWritePerMillion: .*(>=0|too small)/i,
  },
  {
    name: "--max-cost-usd on a simulated run",
    args: (d) => ["run", cfg(d, "ok.json"), "--max-cost-usd", "5", ...out(d)],
    error: /--max-cost-usd: no agent of this run calls a model/,
  },
  // issue 20: config paths that are not regular files, --cache-dir and --checkpoint paths
  {
    name: "config path /dev/zero (used to hang)",
    args: (d) => ["run", "/dev/zero", ...out(d)],
    error: /cannot read config \/dev\/zero: it is a character device, not a regular file/,
  },
  {
    name: "config path is a FIFO (used to hang)",
    args: (d) => ["run", join(d, "fifo.yaml"), ...out(d)],
    error: /cannot read config .*fifo\.yaml: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: "config with a BOM",
    args: (d) => ["run", cfg(d, "bom-bad.json"), ...out(d)],
    error: /bom-bad\.json\.seeds: .*too small|bom-bad\.json\.seeds: .*>=1/i,
  },
  {
    name: "--cache-dir /proc/x (used to hang)",
    args: (d) => [
      "run",
      cfg(d, "ok.json"),
      "-w",
      "1",
      "--cache",
      "readwrite",
      "--cache-dir",
      "/proc/retrace-x",
      ...out(d),
    ],
    error: /--cache-dir: \/proc\/retrace-x is inside \/proc, a kernel file system/,
  },
  {
    name: "--cache-dir is a file (was ENOTDIR)",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--cache-dir", join(d, "a-file"), ...out(d)],
    error: /--cache-dir: .*a-file is a file, not a folder/,
  },
  {
    name: "--checkpoint sqlite:/proc/x (was SqliteError)",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--checkpoint", "sqlite:/proc/retrace-x.sqlite", ...out(d)],
    error: /--checkpoint: \/proc is inside \/proc, a kernel file system/,
  },
  {
    name: "--checkpoint sqlite under a file (was EEXIST)",
    args: (d) => [
      "run",
      cfg(d, "ok.json"),
      "-w",
      "1",
      "--checkpoint",
      `sqlite:${join(d, "a-file", "c.sqlite")}`,
      ...out(d),
    ],
    error: /--checkpoint: .*a-file is a file, not a folder/,
  },
  {
    name: "--checkpoint sqlite is a folder",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--checkpoint", `sqlite:${join(d, "configs")}`, ...out(d)],
    error: /--checkpoint: .*configs is a folder, not a SQLite file/,
  },
  // issue 20: corrupt files the CLI reads name the file
  {
    name: "report on a corrupt summary.json",
    args: (d) => ["report", join(d, "corrupt-summary")],
    error:
      /report: .*corrupt-summary\/summary\.json is not valid JSON \(.*\); it should be the summary\.json written by `retrace run`/,
  },
  {
    name: "report on a corrupt manifest.json",
    args: (d) => ["report", join(d, "corrupt-manifest")],
    error: /report: .*corrupt-manifest\/manifest\.json is not valid JSON/,
  },
  {
    name: "report on a corrupt trajectory.json",
    args: (d) => ["report", join(d, "corrupt-traj"), "--out", join(d, "fresh-report.html")],
    error: /report: .*trajectory\.json is not valid JSON \(it ends early; was it cut off\?\)/,
  },
  {
    name: "--resume with a corrupt manifest.json",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "-q", "--resume", "--out", join(d, "corrupt-manifest")],
    error: /corrupt-manifest\/manifest\.json is not valid JSON/,
  },
  {
    name: "status with a corrupt queue.json",
    args: (d) => [
      "status",
      join(d, "corrupt-queue"),
      "--queue",
      "redis://127.0.0.1:1",
      "--store",
      "postgres://u@127.0.0.1:1/db",
    ],
    error: /corrupt-queue\/queue\.json is not valid JSON/,
  },
  {
    name: "slipRate lots",
    args: (d) => ["run", cfg(d, "sliprate.json"), ...out(d)],
    error: /pairs\.0\.forward\.slipRate: .*expected number/,
  },
  // run flags
  {
    name: "--seed beyond 2^53",
    args: (d) => ["run", cfg(d, "ok.json"), "--seed", "99999999999999999999", ...out(d)],
    error: /--seed: expected an integer between/,
  },
  {
    name: "--workers 0",
    args: (d) => ["run", cfg(d, "ok.json"), "--workers", "0", ...out(d)],
    error: /--workers: expected an integer from 1 to 64, got "0"/,
  },
  {
    name: "--workers two",
    args: (d) => ["run", cfg(d, "ok.json"), "--workers", "two", ...out(d)],
    error: /--workers: expected an integer from 1 to 64/,
  },
  {
    name: "--workers 65",
    args: (d) => ["run", cfg(d, "ok.json"), "--workers", "65", ...out(d)],
    error: /--workers: expected an integer from 1 to 64/,
  },
  {
    name: "--seed 1.5",
    args: (d) => ["run", cfg(d, "ok.json"), "--seed", "1.5", ...out(d)],
    error: /--seed: expected an integer/,
  },
  {
    name: "--seed abc",
    args: (d) => ["run", cfg(d, "ok.json"), "--seed", "abc", ...out(d)],
    error: /--seed: expected an integer/,
  },
  {
    name: "--env mars",
    args: (d) => ["run", cfg(d, "ok.json"), "--env", "mars", ...out(d)],
    error: /'--env <kind>' argument 'mars' is invalid\. Allowed choices are simdesk, x11, docker/,
  },
  {
    name: "--out /proc/x (used to hang)",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--out", "/proc/retrace-x"],
    error: /--out: \/proc\/retrace-x is inside \/proc, a kernel file system; choose a folder on disk/,
  },
  {
    name: "--out /sys/x",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--out", "/sys/retrace-x"],
    error: /--out: .* kernel file system/,
  },
  {
    name: "--out is a file (was EEXIST)",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--out", join(d, "a-file")],
    error: /--out: .*a-file is a file, not a folder/,
  },
  {
    name: "--out under a file (was ENOTDIR)",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--out", join(d, "a-file", "sub")],
    error: /--out: cannot create .*a-file is a file, not a folder/,
  },
  {
    name: "--out empty",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "--out", ""],
    error: /--out: give a folder path/,
  },
  { name: "run without a config", args: (d) => ["run", ...out(d)], error: /give an experiment config file/ },
  {
    name: "config and --policy together",
    args: (d) => ["run", cfg(d, "ok.json"), "--policy", "openai", ...out(d)],
    error: /either a config file or --policy/,
  },
  {
    name: "unknown flag",
    args: (d) => ["run", cfg(d, "ok.json"), "--colour", "red"],
    error: /unknown option '--colour'/,
  },
  { name: "unknown command", args: () => ["runn"], error: /unknown command 'runn'/ },
  // run folders
  {
    name: "re-run into a finished run",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "-q", "--out", join(d, "finished")],
    error: /already holds a run: pass --resume to continue it, or choose another --out/,
  },
  {
    name: "--resume with another config",
    args: (d) => ["run", cfg(d, "other.json"), "-w", "1", "-q", "--resume", "--out", join(d, "finished")],
    error: /--resume: the config \(or --seed\) differs/,
  },
  {
    name: "--resume with another --seed",
    args: (d) => ["run", cfg(d, "ok.json"), "-w", "1", "-q", "--seed", "5", "--resume", "--out", join(d, "finished")],
    error: /--resume: the config \(or --seed\) differs/,
  },
  // sweep and demo flags
  {
    name: "sweep --param without values",
    args: (d) => ["sweep", cfg(d, "ok.json"), "--param", "freezeWindow", ...out(d)],
    error: /--param: expected name=v1,v2/,
  },
  {
    name: "sweep --param unknown option",
    args: (d) => ["sweep", cfg(d, "ok.json"), "--param", "nope=1,2", ...out(d)],
    error: /params\.nope: not a recovery option/,
  },
  {
    name: "sweep --mode diagonal",
    args: (d) => ["sweep", cfg(d, "ok.json"), "--param", "freezeWindow=0,1", "--mode", "diagonal", ...out(d)],
    error: /mode/,
  },
  {
    name: "sweep --max-recovery-iterations letters",
    args: (d) => [
      "sweep",
      cfg(d, "ok.json"),
      "--param",
      "freezeWindow=0,1",
      "--max-recovery-iterations",
      "a,b",
      ...out(d),
    ],
    error: /--max-recovery-iterations|maxRecoveryIterations/,
  },
  {
    name: "sweep --preset unknown",
    args: (d) => ["sweep", cfg(d, "ok.json"), "--preset", "nope", ...out(d)],
    error: /preset/,
  },
  { name: "demo --size huge", args: (d) => ["demo", "--size", "huge", ...out(d)], error: /--size/ },
  {
    name: "demo --workers 0",
    args: (d) => ["demo", "--workers", "0", ...out(d)],
    error: /--workers: expected an integer from 1 to 64/,
  },
  // result files and report
  {
    name: "report on a missing folder",
    args: (d) => ["report", join(d, "nope")],
    error: /report: .*nope is not a folder/,
  },
  {
    name: "report on a folder without runs",
    args: (d) => ["report", join(d, "configs")],
    error: /report: no results\.jsonl/,
  },
  {
    name: "report on an empty results.jsonl",
    args: (d) => ["report", join(d, "empty-run")],
    error: /results\.jsonl holds no episodes/,
  },
  {
    name: "report on a garbage results.jsonl",
    args: (d) => ["report", join(d, "garbage-run")],
    error: /results\.jsonl line 1 is not a result line \(not JSON\)/,
  },
  {
    name: "report on JSON that is not result lines",
    args: (d) => ["report", join(d, "wrong-run")],
    error: /results\.jsonl line 1 is not a result line \(field "key" is missing or not a string\)/,
  },
  {
    name: "report on a broken run.json",
    args: (d) => ["report", join(d, "bad-policy-run")],
    error: /run\.json is not valid JSON/,
  },
  {
    name: "report --episodes -5",
    args: (d) => ["report", join(d, "finished"), "--episodes", "-5"],
    error: /--episodes: expected an integer from 0 to 1000/,
  },
  {
    name: "report --episodes lots",
    args: (d) => ["report", join(d, "finished"), "--episodes", "lots"],
    error: /--episodes: expected an integer from 0 to 1000/,
  },
  {
    name: "report --out into a missing folder",
    args: (d) => ["report", join(d, "finished"), "--out", join(d, "no-dir", "r.html")],
    error: /--out: the folder .*no-dir does not exist/,
  },
  {
    name: "report --out is a folder",
    args: (d) => ["report", join(d, "finished"), "--out", join(d, "configs")],
    error: /--out: .*configs is a folder; give a file path/,
  },
  { name: "report without a folder", args: () => ["report"], error: /missing required argument 'dir'/ },
  // model endpoints and model runs
  {
    name: "run-model unknown --policy",
    args: (d) => ["run-model", "--policy", "gpt", "--model", "m", "--task", "files-trash-menu", ...out(d)],
    error: /--policy/,
  },
  {
    name: "run-model without --model",
    args: (d) => ["run-model", "--task", "files-trash-menu", ...out(d)],
    error: /--model: give the model name/,
  },
  {
    name: "run-model without --task",
    args: (d) => ["run-model", "--model", "m", ...out(d)],
    error: /--task: give a SimDesk task id/,
  },
  {
    name: "run-model unknown task",
    args: (d) => ["run-model", "--model", "m", "--task", "no-such-task", ...out(d)],
    error: /no-such-task/,
  },
  {
    name: "run-model --cache sometimes",
    args: (d) => ["run-model", "--model", "m", "--task", "files-trash-menu", "--cache", "sometimes", ...out(d)],
    error: /--cache|cache/,
  },
  {
    name: "run-model --max-steps 0",
    args: (d) => ["run-model", "--model", "m", "--task", "files-trash-menu", "--max-steps", "0", ...out(d)],
    error: /--max-steps/,
  },
  {
    name: "run-model --max-retries -1",
    args: (d) => ["run-model", "--model", "m", "--task", "files-trash-menu", "--max-retries", "-1", ...out(d)],
    error: /--max-retries: expected a whole number/,
  },
  {
    name: "run-model --timeout-ms abc",
    args: (d) => ["run-model", "--model", "m", "--task", "files-trash-menu", "--timeout-ms", "abc", ...out(d)],
    error: /--timeout-ms: expected a whole number/,
  },
  {
    name: "run-model --api-key-env unset",
    args: (d) => [
      "run-model",
      "--model",
      "m",
      "--task",
      "files-trash-menu",
      "--api-key-env",
      "RETRACE_CORPUS_UNSET_VAR",
      ...out(d),
    ],
    error: /--api-key-env: the variable RETRACE_CORPUS_UNSET_VAR is not set/,
  },
  {
    name: "run-model --base-url not-a-url",
    args: (d) => ["run-model", "--model", "m", "--task", "files-trash-menu", "--base-url", "not-a-url", ...out(d)],
    error: /--base-url/,
  },
  {
    name: "run-model --base-url ftp://",
    args: (d) => [
      "run-model",
      "--model",
      "m",
      "--task",
      "files-trash-menu",
      "--base-url",
      "ftp://example.org/v1",
      ...out(d),
    ],
    error: /--base-url/,
  },
  {
    name: "run --policy with a dead endpoint",
    args: (d) => [
      "run",
      "--policy",
      "openai",
      "--model",
      "m",
      "--task",
      "files-trash-menu",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--max-retries",
      "0",
      ...out(d),
    ],
    error: /cannot reach http:\/\/127\.0\.0\.1:9\/v1 .*check --base-url/,
  },
  {
    name: "chaos --env-faults 2",
    args: (d) => ["chaos", cfg(d, "ok.json"), "--env-faults", "2", ...out(d)],
    error: /--env-faults: expected a probability from 0 to 1/,
  },
  {
    name: "chaos --model-kinds unknown",
    args: (d) => ["chaos", cfg(d, "ok.json"), "--model-kinds", "429,teapot", ...out(d)],
    error: /--model-kinds: "teapot" is not a fault; use .*429, 500/,
  },
  {
    name: "chaos --base-url ftp",
    args: (d) => ["chaos", cfg(d, "ok.json"), "--base-url", "ftp://x", ...out(d)],
    error: /--base-url: expected an http\(s\) URL/,
  },
  {
    name: "chaos on an ideal-recovery config",
    args: (d) => ["chaos", cfg(d, "ideal-k.json").replace("ideal-k", "ideal-ok"), ...out(d)],
    error: /kind: chaos runs an end-to-end or sweep config/,
  },
  {
    name: "run-model --out /proc/x",
    args: () => ["run-model", "--model", "m", "--task", "files-trash-menu", "--out", "/proc/retrace-x"],
    error: /--out: .* kernel file system/,
  },
  // simdesk and recovery evaluation
  {
    name: "simdesk unknown task",
    args: (d) => ["simdesk", "--task", "no-such-task", ...out(d)],
    error: /no-such-task/,
  },
  {
    name: "simdesk --size 10x",
    args: (d) => ["simdesk", "--task", "files-trash-menu", "--size", "10x", ...out(d)],
    error: /--size/,
  },
  {
    name: "simdesk --policy magic",
    args: (d) => ["simdesk", "--task", "files-trash-menu", "--policy", "magic", ...out(d)],
    error: /--policy/,
  },
  { name: "eval-recovery without a dataset", args: (d) => ["eval-recovery", ...out(d)], error: /--dataset/ },
  {
    name: "eval-recovery missing dataset",
    args: (d) => ["eval-recovery", "--dataset", join(d, "nope"), ...out(d)],
    error: /nope/,
  },
  {
    name: "eval-recovery --recovery-budget letters",
    args: (d) => ["eval-recovery", "--dataset", join(d, "nope"), "--recovery-budget", "a,b", ...out(d)],
    error: /--recovery-budget/,
  },
  {
    name: "dataset build --distances letters",
    args: (d) => ["dataset", "build", "--distances", "x", ...out(d)],
    error: /--distances/,
  },
  { name: "dataset build --flaky 2", args: (d) => ["dataset", "build", "--flaky", "2", ...out(d)], error: /--flaky/ },
];

/** Every file and folder under `root` with its size (what "nothing left behind" compares). */
function snapshot(root: string): string[] {
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "retrace-corpus-"));
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
}, 120_000);

afterAll(() => {
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
});

describe("the bad-input corpus", () => {
  it("has at least 60 rows", () => {
    expect(CLI_ROWS.length + FUNCTION_ROWS.length + SUBPROCESS_ROWS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CLI_ROWS.map((r) => [r.name, r] as const))(
    "%s: one line naming the input, non-zero exit, nothing written",
    async (_name, row) => {
      const before = snapshot(dir);
      const r = await cli(row.args(dir));
      expect(r.code, r.stderr).not.toBe(0);
      const lines = r.stderr.trim().split("\n");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^retrace: /);
      expect(lines[0]).toMatch(row.error);
      expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+|ERR_|Error: E[A-Z]+:/); // no stack frames, no raw errno
      expect(snapshot(dir)).toEqual(before);
    },
  );
});

// --- model and task text: refused with one line, never run ---------------------------------------

interface FunctionRow {
  name: string;
  /** Returns the one-line refusal (a thrown error's message or a rejection reason). */
  run: () => string;
  error: RegExp;
}

const thrown = (f: () => unknown): string => {
  try {
    const v = f();
    return `no error: ${JSON.stringify(v)}`;
  } catch (err) {
    return (err as Error).message;
  }
};
const osworld = (text: string, file = "/tasks/chrome/t1.json") => {
  const r = parseOsworldTask(text, file, "chrome");
  return "reason" in r ? r.reason : `accepted ${r.id}`;
};
const OSW = {
  id: "t1",
  snapshot: "chrome",
  instruction: "Open the settings.",
  source: "",
  config: [],
  trajectory: "trajectories/",
  related_apps: ["chrome"],
  evaluator: {
    func: "exact_match",
    result: { type: "vm_command_line", command: "true" },
    expected: { type: "rule", rules: { expected: "" } },
  },
};

const FUNCTION_ROWS: FunctionRow[] = [
  {
    name: "pyautogui: os.system",
    run: () => thrown(() => parsePyautogui("import os\nos.system('touch /tmp/pwned')")),
    error: /import|os/,
  },
  {
    name: "pyautogui: __import__",
    run: () => thrown(() => parsePyautogui("__import__('os').system('id')")),
    error: /__import__|not (allowed|supported)/,
  },
  { name: "pyautogui: eval", run: () => thrown(() => parsePyautogui("eval('1+1')")), error: /eval/ },
  { name: "pyautogui: unclosed call", run: () => thrown(() => parsePyautogui("pyautogui.click(")), error: /.+/ },
  {
    name: "pyautogui: unknown function",
    run: () => thrown(() => parsePyautogui("pyautogui.format_disk()")),
    error: /format_disk/,
  },
  {
    name: "pyautogui: subprocess",
    run: () => thrown(() => parsePyautogui("import subprocess; subprocess.run(['id'])")),
    error: /subprocess|import/,
  },
  {
    name: "UI-TARS: unknown action",
    run: () =>
      thrown(() => uiTarsToActions("Thought: x\nAction: rm(path='/')", { screen: { width: 1280, height: 800 } })),
    error: /rm/,
  },
  {
    name: "UI-TARS: coordinates not numbers",
    run: () =>
      thrown(() => uiTarsToActions("Action: click(start_box='(abc,def)')", { screen: { width: 1280, height: 800 } })),
    error: /start_box|coordinate|abc/i,
  },
  {
    name: "OpenAI computer use: unknown action",
    run: () => thrown(() => openAIComputerActionToActions({ type: "teleport" } as never)),
    error: /teleport/,
  },
  {
    name: "Anthropic computer use: unknown action",
    run: () => thrown(() => anthropicComputerInputToActions({ action: "format_disk" } as never)),
    error: /format_disk/,
  },
  { name: "OSWorld task: not JSON", run: () => osworld("{ nope"), error: /not valid JSON/ },
  {
    name: "OSWorld task: no instruction",
    run: () => osworld(JSON.stringify({ ...OSW, instruction: undefined })),
    error: /^instruction: /,
  },
  {
    name: "OSWorld task: id does not match the file",
    run: () => osworld(JSON.stringify({ ...OSW, id: "t2" })),
    error: /id "t2" does not match the file name/,
  },
  {
    name: "OSWorld task: no evaluator",
    run: () => osworld(JSON.stringify({ ...OSW, evaluator: undefined })),
    error: /^evaluator: /,
  },
  {
    name: "OSWorld task: config is not a list",
    run: () => osworld(JSON.stringify({ ...OSW, config: "setup" })),
    error: /^config: /,
  },
];

describe("model and task text in the corpus", () => {
  it.each(FUNCTION_ROWS.map((r) => [r.name, r] as const))("%s: refused with one line", (_name, row) => {
    const message = row.run();
    expect(message).not.toMatch(/^no error|^accepted/);
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(row.error);
  });
});

// --- a few through the real launcher (bin/retrace.mjs), from a folder outside the repository ------

const SUBPROCESS_ROWS: Array<{ name: string; args: (d: string) => string[]; error: RegExp }> = [
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

describe("bad input through the launcher", () => {
  it.each(SUBPROCESS_ROWS.map((r) => [r.name, r] as const))("%s", (_name, row) => {
    const before = snapshot(dir);
    const r = spawnSync(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), ...row.args(dir)], {
      cwd: tmpdir(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.signal, "the command hung").toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(row.error);
    expect(snapshot(dir)).toEqual(before);
  });
});
