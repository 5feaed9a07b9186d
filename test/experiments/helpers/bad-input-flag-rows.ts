/**
 * Bad-input corpus rows about command flags: run flags, run folders, sweep and demo flags, result
 * files and report, model endpoints and model runs, simdesk and recovery evaluation.
 */
import { join } from "node:path";
import { cfg, out, type CliRow } from "./bad-input-scratch.ts";

export const FLAG_ROWS: CliRow[] = [
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
