/**
 * Bad-input corpus rows about configs: broken or invalid config files, bounds, prompt-cache prices,
 * config paths that are not regular files and corrupt files the CLI reads.
 */
import { join } from "node:path";
import { cfg, out, type CliRow } from "./bad-input-scratch.ts";

export const CONFIG_ROWS: CliRow[] = [
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
];
