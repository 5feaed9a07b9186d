/**
 * Shared setup of the third bad-input battery (test/experiments/bad-input-round3-*.test.ts): the
 * configs, the CLI rows, and the scratch folder (configs, browser task files, a page a browser
 * task can open) the tests run inside.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CWD = process.cwd();

export const TINY = {
  kind: "end-to-end",
  name: "tiny",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  maxRecoveryIterations: [1],
  baseline: false,
  options: { maxForwardSteps: 8 },
  pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } }],
};
const BROWSER = {
  kind: "end-to-end",
  name: "b",
  env: { kind: "browser", tasksFile: "TASKS" },
  seeds: [0],
  maxRecoveryIterations: [1],
  baseline: false,
  options: { restoration: "replay" },
  pairs: [TINY.pairs[0]],
};
const PASSWORD = "pa/ss#w0rd";

export interface Row {
  name: string;
  args: (d: string) => string[];
  error: RegExp;
}
const cfg = (d: string, name: string) => join(d, name);
const out = (d: string) => ["--out", join(d, "fresh", "o")];

export const CLI_ROWS: Row[] = [
  // one numeric parser
  {
    name: "label-sample --seed 9007199254740993 (was read as ...992)",
    args: (d) => ["label-sample", join(d, "nope"), "--seed", "9007199254740993"],
    error: /--seed: .*got "9007199254740993" \(not a safe integer: it would be read as 9007199254740992\)/,
  },
  {
    name: 'label-sample --seed "" (was 0)',
    args: (d) => ["label-sample", join(d, "nope"), "--seed", ""],
    error: /--seed: expected an integer.*got "" \(empty\)/,
  },
  {
    name: "run --workers 0x2 (was accepted)",
    args: (d) => ["run", cfg(d, "ok.json"), "--workers", "0x2", ...out(d)],
    error: /--workers: expected an integer from 1 to 64, got "0x2"/,
  },
  {
    name: "run --seed 0x10 (refused, like --workers 0x2)",
    args: (d) => ["run", cfg(d, "ok.json"), "--seed", "0x10", ...out(d)],
    error: /--seed: expected an integer between/,
  },
  {
    name: "run --workers 1e1",
    args: (d) => ["run", cfg(d, "ok.json"), "--workers", "1e1", ...out(d)],
    error: /--workers: expected an integer from 1 to 64, got "1e1"/,
  },
  {
    name: 'eval-recovery --intent-threshold "" (was 0)',
    args: (d) => ["eval-recovery", "--dataset", join(d, "nope"), "--intent-threshold", "", ...out(d)],
    error: /--intent-threshold: expected a cosine similarity in \[-1, 1\], got "" \(empty\)/,
  },
  {
    name: "chaos --env-faults 0x1",
    args: (d) => ["chaos", cfg(d, "ok.json"), "--env-faults", "0x1", ...out(d)],
    error: /--env-faults: expected a probability from 0 to 1/,
  },
  {
    name: 'dataset build --limit ""',
    args: (d) => ["dataset", "build", "--limit", "", ...out(d)],
    error: /--limit: expected an integer >= 1, got "" \(empty\)/,
  },
  {
    name: "report --episodes 0b11",
    args: (d) => ["report", join(d, "nope"), "--episodes", "0b11"],
    error: /--episodes: expected an integer from 0 to 1000/,
  },
  // empty paths and names
  {
    name: 'export --out "" (wrote into the current folder)',
    args: (d) => ["export", "--osworld", join(d, "nope"), "--out", ""],
    error: /--out: give a folder path \(got an empty string\)/,
  },
  {
    name: 'label-sample --out "" (was EISDIR)',
    args: (d) => ["label-sample", join(d, "nope"), "--out", ""],
    error: /--out: give a file path \(got an empty string\)/,
  },
  {
    name: 'run --queue-name "" (was BullMQ\'s own message)',
    args: (d) => ["run", cfg(d, "ok.json"), "--queue", "redis://127.0.0.1:9", "--queue-name", "", ...out(d)],
    error: /--queue-name: give a queue name such as retrace-episodes \(got an empty string\)/,
  },
  {
    name: "run --queue-name with a colon",
    args: (d) => ["run", cfg(d, "ok.json"), "--queue", "redis://127.0.0.1:9", "--queue-name", "a:b", ...out(d)],
    error: /--queue-name: "a:b" is not a queue name/,
  },
  // URLs in errors never carry their password
  {
    name: "--checkpoint postgres URL whose password holds / (was printed whole)",
    args: (d) => ["run", cfg(d, "ok.json"), "--checkpoint", `postgres://u:${PASSWORD}@127.0.0.1:9/db`, ...out(d)],
    error: /--checkpoint: "postgres:\/\/u:\[redacted\]@127\.0\.0\.1:9\/db" is not a URL/,
  },
  {
    name: "--store postgres URL whose password holds /",
    args: (d) => [
      "run",
      cfg(d, "ok.json"),
      "--queue",
      "redis://127.0.0.1:9",
      "--store",
      `postgres://u:${PASSWORD}@127.0.0.1:9/db`,
      ...out(d),
    ],
    error: /--store: "postgres:\/\/u:\[redacted\]@127\.0\.0\.1:9\/db" is not a URL/,
  },
  {
    name: "--queue redis URL whose password holds /",
    args: (d) => [
      "run",
      cfg(d, "ok.json"),
      "--queue",
      `redis://:${PASSWORD}@127.0.0.1:9`,
      "--store",
      "postgres://u@127.0.0.1:9/db",
      ...out(d),
    ],
    error: /--queue: "redis:\/\/:\[redacted\]@127\.0\.0\.1:9" is not a URL/,
  },
  // browser task URLs are http(s) only
  {
    name: "a browser task at file:///etc/passwd (its text landed in the a11y blob)",
    args: (d) => ["run", cfg(d, "browser-file.json"), ...out(d)],
    error: /browser task file .*tasks-file\.yaml: tasks\.0\.url: expected an http:\/\/ or https:\/\/ URL/,
  },
  {
    name: "a browser task whose state endpoint is file:",
    args: (d) => ["run", cfg(d, "browser-state.json"), ...out(d)],
    error: /tasks\.0\.state\.url: expected an http:\/\/ or https:\/\/ URL/,
  },
  {
    name: "a browser checker module without the task's named export (was an environment error, retried 3 times)",
    args: (d) => ["run", cfg(d, "browser-export.json"), ...out(d)],
    error: /task judged: checker module \S*no-export\.mjs has no function export "check" \(exports: default, verify\)/,
  },
  // usage errors exit 2 like every bad input
  {
    name: "an unknown flag (exited 1)",
    args: (d) => ["run", cfg(d, "ok.json"), "--no-such-flag", ...out(d)],
    error: /unknown option '--no-such-flag'/,
  },
  { name: "an unknown command", args: () => ["no-such-command"], error: /unknown command 'no-such-command'/ },
];

/**
 * Makes the scratch folder and enters it; `page` is a page a browser task can open (the checker
 * row: its episodes would reach the checker).
 */
export async function makeScratch(): Promise<{ dir: string; page: Server }> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-corpus-r3-"));
  const page = createServer(
    (_req, res) =>
      void res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>App</title><p>Nothing to do.</p>"),
  );
  await new Promise<void>((r) => page.listen(0, "127.0.0.1", () => r()));
  writeFileSync(join(dir, "ok.json"), JSON.stringify(TINY));
  writeFileSync(
    join(dir, "tasks-file.yaml"),
    "tasks:\n  - id: leak\n    instruction: Read it.\n    url: file:///etc/passwd\n    checker: ./check.mjs\n",
  );
  writeFileSync(
    join(dir, "tasks-state.yaml"),
    "tasks:\n  - id: leak\n    instruction: Read it.\n    url: http://127.0.0.1:9/\n    checker: ./check.mjs\n    state:\n      url: file:///etc/shadow\n",
  );
  writeFileSync(
    join(dir, "browser-file.json"),
    JSON.stringify({ ...BROWSER, env: { kind: "browser", tasksFile: join(dir, "tasks-file.yaml") } }),
  );
  writeFileSync(
    join(dir, "browser-state.json"),
    JSON.stringify({ ...BROWSER, env: { kind: "browser", tasksFile: join(dir, "tasks-state.yaml") } }),
  );
  writeFileSync(
    join(dir, "no-export.mjs"),
    "export default function () { return true; }\nexport function verify() { return true; }\n",
  );
  writeFileSync(
    join(dir, "tasks-export.yaml"),
    `tasks:\n  - id: judged\n    instruction: Say done.\n    url: http://127.0.0.1:${(page.address() as AddressInfo).port}/\n    checker: ./no-export.mjs\n    export: check\n    plan: [{ type: DONE }]\n`,
  );
  writeFileSync(
    join(dir, "browser-export.json"),
    JSON.stringify({ ...BROWSER, env: { kind: "browser", tasksFile: join(dir, "tasks-export.yaml") } }),
  );
  mkdirSync(join(dir, "fresh"));
  process.chdir(dir);
  return { dir, page };
}

/** Closes the page, leaves the scratch folder and removes it. */
export async function removeScratch(dir: string, page: Server | undefined): Promise<void> {
  await new Promise((r) => (page ? page.close(r) : r(undefined)));
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
}
