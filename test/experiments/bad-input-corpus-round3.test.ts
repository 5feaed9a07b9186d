/**
 * The bad-input corpus, third hostile battery (issue 31). Same contract as bad-input-cli.test.ts:
 * each CLI row gives one `retrace:` line on stderr naming the flag or file, exits 2 (bad input, as
 * docs/cli.md says), prints no password, and leaves the scratch folder exactly as it was. The rows
 * are the battery's findings, one rule each: every numeric flag through one parser
 * (experiments/commands/numeric-flags.ts), no empty path or name flags, URLs in errors redacted,
 * browser task URLs http(s) only, usage errors exit 2. Function rows check the same rules where
 * they are not CLI flags (the SDK wrappers' bounds, a checker's BigInt).
 */
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { resolveSdkOptions } from "../../packages/sdk-shared/src/options.ts";
import { toEvaluation } from "../../packages/browser/src/checker.ts";
import { loadBrowserTaskFile } from "../../packages/browser/src/tasks/file.ts";
import { parseIntFlag, parseNumberFlag } from "../../experiments/commands/numeric-flags.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { PACK_FILE, packBlobFolder, SVGZ_PACK_FILE } from "../../packages/core/src/blob-pack.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";

const CWD = process.cwd();
let dir = "";
/** A page a browser task can open (the checker row: its episodes would reach the checker). */
let page: Server | undefined;

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

interface Row {
  name: string;
  args: (d: string) => string[];
  error: RegExp;
}
const cfg = (d: string, name: string) => join(d, name);
const out = (d: string) => ["--out", join(d, "fresh", "o")];

const CLI_ROWS: Row[] = [
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "retrace-corpus-r3-"));
  page = createServer(
    (_req, res) =>
      void res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>App</title><p>Nothing to do.</p>"),
  );
  await new Promise<void>((r) => page!.listen(0, "127.0.0.1", () => r()));
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
});

afterAll(async () => {
  await new Promise((r) => (page ? page.close(r) : r(undefined)));
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
});

describe("the bad-input corpus, third battery (issue 31)", () => {
  it.each(CLI_ROWS.map((r) => [r.name, r] as const))(
    "%s: one line, exit 2, no password, nothing written",
    async (_name, row) => {
      const before = snapshot(dir);
      const r = await cli(row.args(dir));
      expect(r.code, r.stderr).toBe(2);
      const line = oneLine(r.stderr);
      expect(line).toMatch(/^retrace: /);
      expect(line).toMatch(row.error);
      expect(line).not.toMatch(/\bat .*\.ts:\d+|ERR_|Error: E[A-Z]+:/);
      expect(line).not.toContain("pa/ss");
      expect(r.stdout).toBe("");
      expect(snapshot(dir)).toEqual(before);
    },
  );
});

describe("one numeric parser", () => {
  it.each([
    ["0x10"],
    [""],
    ["  "],
    ["1e3"],
    ["0b1"],
    ["0o7"],
    ["9007199254740993"],
    ["Infinity"],
    ["1.5"],
    ["--1"],
    ["1_000"],
  ])("refuses %j as an integer", (text) => {
    expect(() => parseIntFlag("--n", text)).toThrow(/^--n: /);
  });

  it("accepts plain decimal integers and numbers within bounds", () => {
    expect(parseIntFlag("--n", " 42 ")).toBe(42);
    expect(parseIntFlag("--n", "-7", { min: -10 })).toBe(-7);
    expect(parseIntFlag("--n", "9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseNumberFlag("--x", "0.25", { min: 0, max: 1 })).toBe(0.25);
    expect(parseNumberFlag("--x", "-1", { min: -1, max: 1 })).toBe(-1);
    expect(() => parseNumberFlag("--x", "0x1", { min: 0, max: 1 })).toThrow(/^--x: /);
    expect(() => parseNumberFlag("--x", "", { min: 0, max: 1 })).toThrow(/\(empty\)/);
    expect(() => parseNumberFlag("--x", "0", { min: 0, exclusiveMin: true })).toThrow(/^--x: /);
  });
});

describe("the SDK wrappers take the runtime's bounds", () => {
  const base = {
    env: { step: () => undefined },
    blobs: { get: () => undefined },
    detector: { detect: () => undefined },
    restore: async () => ({ restored: false, steps: 0 }),
  } as never as Parameters<typeof resolveSdkOptions>[1];
  it.each([
    [{ freezeWindow: 1e9 }, /option "freezeWindow" at most 1000 steps/],
    [{ maxRecoveryIterations: 1e6 }, /option "maxRecoveryIterations" at most 100 recovery attempts/],
    [{ recoveryBudget: 1e9 }, /option "recoveryBudget" at most 1000 recovery steps/],
    [{ seed: 2 ** 52 }, /option "seed" at most 1000000000000000/],
    [{ detectorTimeoutMs: 1e12 }, /option "detectorTimeoutMs" at most 3600000 ms/],
  ])("refuses %j (was accepted)", (patch, why) => {
    expect(() => resolveSdkOptions("generateTextWithRecovery", { ...base, ...(patch as object) })).toThrow(why);
  });

  it("accepts the paper's settings", () => {
    expect(
      resolveSdkOptions("generateTextWithRecovery", { ...base, freezeWindow: 5, maxRecoveryIterations: 3 })
        .freezeWindow,
    ).toBe(5);
  });
});

describe("a checker's return value", () => {
  it("a BigInt is a clear checker error, not a serialization TypeError", () => {
    expect(() => toEvaluation(10n, "checker /t/c.mjs#check")).toThrow(
      /^checker \/t\/c\.mjs#check returned the BigInt 10n; a checker returns a boolean, a score in \[0, 1\] or \{ score, detail \}$/,
    );
    expect(() => toEvaluation({ score: 1n }, "checker c")).toThrow(
      /^checker c returned a value of type object \(Object\); a checker returns/,
    );
  });
});

describe("browser task files", () => {
  it("refuse file:, data: and javascript: start pages with one line naming the field", () => {
    for (const url of ["file:///etc/passwd", "data:text/html,hi", "javascript:alert(1)"]) {
      const file = join(dir, "t.yaml");
      writeFileSync(file, `tasks:\n  - id: t\n    instruction: x\n    url: "${url}"\n    checker: ./c.mjs\n`);
      expect(() => loadBrowserTaskFile(file)).toThrow(/tasks\.0\.url: expected an http:\/\/ or https:\/\/ URL/);
    }
    writeFileSync(
      join(dir, "t.yaml"),
      "tasks:\n  - id: t\n    instruction: x\n    url: https://example.org/\n    checker: ./c.mjs\n",
    );
    expect(loadBrowserTaskFile(join(dir, "t.yaml"))[0].setup).toEqual({ url: "https://example.org/" });
    rmSync(join(dir, "t.yaml"));
  });
});

// --- report and export: every blob checked against its hash, every file read inside the folder -----

/** The `.svgz` screens of a finished run's blob store. */
function svgzFiles(run: string): string[] {
  return readdirSync(join(run, "blobs"), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".svgz"))
    .map((f) => join(run, "blobs", f));
}

describe("report and export read only checked blobs inside the run (issue 31)", () => {
  let base = "";
  let outside = "";
  const variant = (name: string, edit: (run: string) => void): string => {
    const run = join(base, name);
    cpSync(join(base, "finished"), run, { recursive: true });
    edit(run);
    return run;
  };
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), "retrace-r3-blobs-"));
    outside = mkdtempSync(join(tmpdir(), "retrace-r3-outside-"));
    writeFileSync(join(base, "ok.json"), JSON.stringify(TINY));
    const r = await cli(["run", join(base, "ok.json"), "-w", "1", "-q", "--out", join(base, "finished")]);
    expect(r.code, r.stderr).toBe(0);
    expect(svgzFiles(join(base, "finished")).length).toBeGreaterThan(1);
  }, 120_000);
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const refused = async (args: string[], error: RegExp) => {
    const before = snapshot(outside);
    const r = await cli(args);
    expect(r.code, r.stderr).not.toBe(0);
    const line = oneLine(r.stderr);
    expect(line).toMatch(error);
    expect(line).not.toMatch(/incorrect header check|unexpected end of file|\bat .*\.ts:\d+/);
    expect(snapshot(outside)).toEqual(before);
  };

  it("report: a garbage .svgz is one line naming the file (was 'incorrect header check' or shipped)", async () => {
    const run = variant("garbage-svgz", (d) => writeFileSync(svgzFiles(d)[0], "not gzip at all"));
    await refused(
      ["report", run, "--out", join(base, "r1.html")],
      /report|blob .*\.svgz is not a gzipped SVG \(not gzip data\)/,
    );
  }, 60_000);

  it("report: a valid .svgz of another SVG is refused (was shipped)", async () => {
    const run = variant("swapped-svgz", (d) => {
      const [a, b] = svgzFiles(d);
      writeFileSync(a, readFileSync(b));
    });
    await refused(
      ["report", run, "--out", join(base, "r2.html")],
      /blob .*\.svgz does not render to the screen it names/,
    );
  }, 60_000);

  it("report: a .svgz that is a link out of the run is refused (was shipped)", async () => {
    const run = variant("linked-svgz", (d) => {
      const f = svgzFiles(d)[0];
      copyFileSync(f, join(outside, "screen.svgz"));
      rmSync(f);
      symlinkSync(join(outside, "screen.svgz"), f);
    });
    await refused(["report", run, "--out", join(base, "r3.html")], /\.svgz leads outside .*blobs \(a link\)/);
  }, 60_000);

  it("export: a garbage .svgz is one line naming the file", async () => {
    const run = variant("export-garbage", (d) => writeFileSync(svgzFiles(d)[0], "garbage"));
    await refused(["export", "--osworld", run, "--out", join(base, "x1")], /blob .*\.svgz is not a gzipped SVG/);
  }, 60_000);

  it("export: an episode folder that is a link out of the run is refused (was copied from)", async () => {
    const run = variant("export-link-episode", (d) => {
      const line = JSON.parse(readFileSync(join(d, "results.jsonl"), "utf8").split("\n")[0]);
      const ep = join(d, line.condition, line.task, String(line.seed));
      cpSync(ep, join(outside, "episode"), { recursive: true });
      rmSync(ep, { recursive: true });
      symlinkSync(join(outside, "episode"), ep);
    });
    await refused(["export", "--osworld", run, "--out", join(base, "x2")], /export: .*trajectory\.json leads outside/);
  }, 60_000);

  it("export: a manifest whose blobs path leads outside is refused (was read from there)", async () => {
    const run = variant("export-manifest-blobs", (d) => {
      const m = JSON.parse(readFileSync(join(d, "manifest.json"), "utf8"));
      cpSync(join(d, "blobs"), join(outside, "blobs"), { recursive: true });
      writeFileSync(join(d, "manifest.json"), JSON.stringify({ ...m, blobs: join(outside, "blobs") }));
    });
    await refused(
      ["export", "--osworld", run, "--out", join(base, "x3")],
      /export: .*manifest\.json names the blob folder .*outside/,
    );
  }, 60_000);

  it("report: a missing trajectory.json is named in a warning (was dropped without a word)", async () => {
    const run = variant("missing-traj", (d) => {
      const line = JSON.parse(readFileSync(join(d, "results.jsonl"), "utf8").split("\n")[0]);
      rmSync(join(d, line.condition, line.task, String(line.seed), "trajectory.json"));
    });
    const r = await cli(["report", run, "-q", "--out", join(base, "r4.html")]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r.stderr)).toMatch(
      /^retrace: warning: 1 finished episode\(s\) are not in the viewer because their record is missing, e\.g\. \.: a\.max-rec-1\/.* \(no .*trajectory\.json\)/,
    );
  }, 60_000);

  it("report: an svgz-pack.tsv.gz that is a link out of the run is refused (was shipped)", async () => {
    const run = variant("linked-svgz-pack", (d) => {
      expect(packBlobFolder(join(d, "blobs"), ".svgz")).toBeGreaterThan(1);
      const pack = join(d, "blobs", SVGZ_PACK_FILE);
      copyFileSync(pack, join(outside, SVGZ_PACK_FILE));
      rmSync(pack);
      symlinkSync(join(outside, SVGZ_PACK_FILE), pack);
    });
    await refused(
      ["report", run, "--out", join(base, "r5.html")],
      /svgz-pack\.tsv\.gz leads outside .*blobs \(a link\)/,
    );
  }, 60_000);

  it("report: a replaced entry of svgz-pack.tsv.gz is refused (was shipped)", async () => {
    const run = variant("swapped-svgz-pack", (d) => {
      expect(packBlobFolder(join(d, "blobs"), ".svgz")).toBeGreaterThan(1);
      const pack = join(d, "blobs", SVGZ_PACK_FILE);
      const lines = gunzipSync(readFileSync(pack)).toString("latin1").split("\n").filter(Boolean);
      // the first entry now holds the second one's bytes (a valid gzipped SVG of another screen)
      lines[0] = `${lines[0].slice(0, 64)}\t${lines[1].slice(65)}`;
      writeFileSync(pack, gzipSync(Buffer.from(lines.join("\n") + "\n", "latin1")));
    });
    await refused(["report", run, "--out", join(base, "r6.html")], /does not render to the screen it names/);
  }, 60_000);

  it("report: a missing trajectories.jsonl.gz is named in a warning (was dropped without a word)", async () => {
    // A run whose episode records are packed into one file (what the demo writes), then the pack is lost.
    const run = join(base, "packed");
    await runExperiment(parseExperimentConfig(TINY), createSimDeskRuntime(), {
      out: run,
      workers: 1,
      episodeRecords: "pack",
    });
    rmSync(join(run, "trajectories.jsonl.gz"));
    const r = await cli(["report", run, "-q", "--out", join(base, "r7.html")]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r.stderr)).toMatch(
      /^retrace: warning: 1 finished episode\(s\) are not in the viewer because their record is missing, e\.g\. \.: a\.max-rec-1\/.* \(no trajectories\.jsonl\.gz, no .*trajectory\.json\)/,
    );
  }, 60_000);

  it("same config and seed: the episode records are byte-identical (no envMs in them)", async () => {
    const r = await cli(["run", join(base, "ok.json"), "-w", "1", "-q", "--out", join(base, "again")]);
    expect(r.code, r.stderr).toBe(0);
    const records = (d: string) =>
      readdirSync(d, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith("trajectory.json"))
        .sort()
        .map((f) => readFileSync(join(d, f), "utf8"));
    const a = records(join(base, "finished"));
    expect(a.length).toBeGreaterThan(0);
    expect(a.join("")).not.toContain("envMs");
    expect(records(join(base, "again"))).toEqual(a);
  }, 120_000);

  it("a second run into a folder another live process writes is refused; a dead process's lock is taken over", async () => {
    const out = join(base, "locked");
    mkdirSync(out);
    const holder = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      writeFileSync(join(out, "run.lock"), `${holder.pid}\n`);
      const before = snapshot(out);
      const r = await cli(["run", join(base, "ok.json"), "-w", "1", "-q", "--out", out]);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toMatch(
        new RegExp(
          `--out: another retrace process \\(pid ${holder.pid}\\) is writing into .*locked; wait for it to end, or choose another --out`,
        ),
      );
      expect(snapshot(out)).toEqual(before);
    } finally {
      holder.kill("SIGKILL");
      await new Promise((res) => holder.once("exit", res));
    }
    const again = await cli(["run", join(base, "ok.json"), "-w", "1", "-q", "--out", out]);
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(out)).not.toContain("run.lock");
  }, 120_000);

  it("a truncated pack and a replaced pack entry are one line naming the pack", async () => {
    const d = join(base, "pack");
    const store = new BlobStore({ dir: d });
    const a = await store.put(Buffer.from("blob a"));
    const b = await store.put(Buffer.from("blob b"));
    expect(packBlobFolder(d, ".png")).toBe(2);
    const packed = readFileSync(join(d, PACK_FILE));
    writeFileSync(join(d, PACK_FILE), packed.subarray(0, packed.length - 10));
    await expect(new BlobStore({ dir: d }).get(a)).rejects.toThrow(
      /blob pack .*blobs\.pack\.tsv\.gz|blob pack .* is damaged \(cut off/,
    );
    // an entry replaced by other bytes (a valid pack whose line for `a` holds b's bytes)
    writeFileSync(
      join(d, PACK_FILE),
      gzipSync(
        `${a}\t${Buffer.from("blob b").toString("base64")}\n${b}\t${Buffer.from("blob b").toString("base64")}\n`,
      ),
    );
    await expect(new BlobStore({ dir: d }).get(a)).rejects.toThrow(/\(entry [0-9a-f]{64}\) does not match its sha256/);
    expect((await new BlobStore({ dir: d }).get(b)).toString()).toBe("blob b");
  });

  it("a replaced PNG blob is refused on read (export copies only checked bytes)", async () => {
    const d = join(base, "png");
    const store = new BlobStore({ dir: d });
    const ref = await store.put(Buffer.from("png bytes"));
    writeFileSync(store.path(ref), "other bytes");
    await expect(new BlobStore({ dir: d }).get(ref)).rejects.toThrow(/does not match its sha256/);
    expect(() => new BlobStore({ dir: d }).getSync(ref)).toThrow(/does not match its sha256/);
  });
});
