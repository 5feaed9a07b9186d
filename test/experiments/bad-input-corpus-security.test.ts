/**
 * The bad-input corpus, security and resume rows (issue 20). Same contract as
 * bad-input-cli.test.ts: each CLI row gives one line on stderr naming what is wrong, a non-zero
 * exit, and leaves the scratch folder exactly as it was (every file's size and hash compared).
 * Rows: result files and trajectories whose names would lead the report outside its run folder
 * (`..` conditions, control characters, `..` image references, links), `--resume` into a folder
 * that is not this config's run (no manifest, a manifest copied from another config, foreign
 * result lines), repeated entries in config lists, and OSWorld task files whose id is not a name.
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
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { checkId, idProblem, pathInside } from "../../packages/core/src/store/safe-path.ts";
import { parseOsworldTask } from "../../packages/desktops/src/osworld/tasks.ts";
import { osworldResultDir } from "../../packages/desktops/src/osworld/runner.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { standInRuntime } from "./helpers/stand-in.ts";

const CWD = process.cwd();
let dir = "";
let outside = "";

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
const SWEEP = {
  kind: "sweep",
  name: "s",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  pair: TINY.pairs[0],
  params: { freezeWindow: [0, 1] },
};
const IDEAL = {
  kind: "ideal-recovery",
  name: "i",
  env: { kind: "simdesk", limit: 1 },
  seeds: [0],
  forward: { kind: "sim", profile: "sloppy" },
  detector: { kind: "sim", profile: "decent" },
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

const CONFIGS: Record<string, unknown> = {
  "ok.json": TINY,
  "other.json": { ...TINY, name: "other", seeds: [1] },
  "tasks-dup.json": {
    ...TINY,
    env: { kind: "simdesk", tasks: ["files-trash-menu", "editor-append-notes", "files-trash-menu"] },
  },
  "caps-dup.json": { ...TINY, maxRecoveryIterations: [1, 1] },
  "seeds-dup.json": { ...TINY, seeds: [4, 2, 4] },
  "sweep-caps-dup.json": { ...SWEEP, maxRecoveryIterations: [3, 3] },
  "sweep-value-dup.json": { ...SWEEP, params: { freezeWindow: [0, 2, 2] } },
  "strategies-dup.json": { ...IDEAL, strategies: ["zero", "zero"] },
  "osworld-dotdot.json": {
    ...TINY,
    options: { maxForwardSteps: 8, restoration: "replay" },
    env: { kind: "osworld", url: "http://127.0.0.1:9", tasksDir: "TASKS" },
  },
};

interface Row {
  name: string;
  args: (d: string) => string[];
  error: RegExp;
}
const cfg = (d: string, name: string) => join(d, "configs", name);
const out = (d: string) => ["--out", join(d, "fresh", "o")];
const resume = (d: string, folder: string, config = "ok.json") => [
  "run",
  cfg(d, config),
  "-w",
  "1",
  "-q",
  "--resume",
  "--out",
  join(d, folder),
];

const CLI_ROWS: Row[] = [
  // the report reads only inside its run folder
  {
    name: "report: a condition of ../../../outside in results.jsonl",
    args: (d) => ["report", join(d, "evil-condition")],
    error:
      /report: .*evil-condition\/results\.jsonl line 1: condition "\.\.\/\.\.\/\.\.\/outside" is not an id \(it contains a path separator/,
  },
  {
    name: "report: a task of .. in results.jsonl",
    args: (d) => ["report", join(d, "evil-task")],
    error: /results\.jsonl line 1: task "\.\." is not an id/,
  },
  {
    name: "report: a condition with a control character",
    args: (d) => ["report", join(d, "evil-control")],
    error: /results\.jsonl line 1: condition "a\\u001b\[2Jb" is not an id \(it contains a control character/,
  },
  {
    name: "report: a seed that is a path",
    args: (d) => ["report", join(d, "evil-seed")],
    error: /results\.jsonl line 1: seed "\.\.\/x" is not an integer/,
  },
  {
    name: "report: a step image reference with ..",
    args: (d) => ["report", join(d, "evil-image")],
    error: /trajectory\.json step \d+: image reference "\.\.\/\.\.\/\.\.\/.*" is not a blob reference/,
  },
  {
    name: "report: results.jsonl is a link out of the run folder",
    args: (d) => ["report", join(d, "link-results")],
    error: /report: .*link-results\/results\.jsonl leads outside .*; the report reads only inside the run folder/,
  },
  {
    name: "report: an episode folder is a link out of the run folder",
    args: (d) => ["report", join(d, "link-episode")],
    error: /report: .*trajectory\.json leads outside .*link-episode/,
  },
  // --resume resumes only this config's run
  {
    name: "--resume into a folder without manifest.json",
    args: (d) => resume(d, "no-manifest"),
    error: /--resume: .*no-manifest has no manifest\.json, so nothing shows it holds this config's run/,
  },
  {
    name: "--resume into another config's results under a copied manifest",
    args: (d) => resume(d, "swapped-manifest"),
    error:
      /--resume: .*results\.jsonl holds 1 result line\(s\) that are not episodes of this run \(e\.g\. "a\.max-rec-1\/[a-z-]+\/1"\)/,
  },
  {
    name: "--resume with a foreign line added to results.jsonl",
    args: (d) => resume(d, "foreign-line"),
    error: /--resume: .*foreign-line\/results\.jsonl holds 1 result line\(s\) that are not episodes of this run/,
  },
  {
    name: "--resume with a manifest without configHash",
    args: (d) => resume(d, "hashless-manifest"),
    error: /--resume: .*manifest\.json has no configHash/,
  },
  // repeated entries in config lists
  {
    name: "env.tasks lists a task twice",
    args: (d) => ["run", cfg(d, "tasks-dup.json"), ...out(d)],
    error: /\.env\.tasks: task "files-trash-menu" is listed twice \(positions 0 and 2\); list each task once/,
  },
  {
    name: "maxRecoveryIterations [1, 1]",
    args: (d) => ["run", cfg(d, "caps-dup.json"), ...out(d)],
    error: /\.maxRecoveryIterations: max recovery iterations 1 is listed twice/,
  },
  {
    name: "seeds [4, 2, 4]",
    args: (d) => ["run", cfg(d, "seeds-dup.json"), ...out(d)],
    error: /\.seeds: each seed may appear once .*seed 4 is listed twice \(positions 0 and 2\)/,
  },
  {
    name: "sweep maxRecoveryIterations [3, 3]",
    args: (d) => ["run", cfg(d, "sweep-caps-dup.json"), ...out(d)],
    error: /\.maxRecoveryIterations: max recovery iterations 3 is listed twice/,
  },
  {
    name: "sweep values [0, 2, 2]",
    args: (d) => ["run", cfg(d, "sweep-value-dup.json"), ...out(d)],
    error: /\.params\.freezeWindow: value 2 is listed twice/,
  },
  {
    name: "ideal-recovery strategies [zero, zero]",
    args: (d) => ["run", cfg(d, "strategies-dup.json"), ...out(d)],
    error: /\.strategies: strategy "zero" is listed twice/,
  },
  // OSWorld task ids name folders
  {
    name: "an OSWorld task file named ...json (id ..)",
    args: (d) => ["run", cfg(d, "osworld-dotdot.json"), ...out(d)],
    error: /no task of osworld can run here .*task file rejected: id "\.\." is not usable as a folder name/,
  },
];

/** A copy of the finished run under `name`, then `edit(folder)`. */
function variant(name: string, edit: (folder: string) => void): void {
  cpSync(join(dir, "finished"), join(dir, name), { recursive: true });
  edit(join(dir, name));
}
const resultLines = (folder: string) =>
  readFileSync(join(folder, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const writeLines = (folder: string, lines: unknown[]) =>
  writeFileSync(join(folder, "results.jsonl"), lines.map((l) => JSON.stringify(l) + "\n").join(""));
/** The one episode folder of a finished TINY run. */
function episodeDir(folder: string): string {
  const line = resultLines(folder)[0];
  return join(folder, String(line.condition), String(line.task), String(line.seed));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "retrace-corpus-sec-"));
  outside = mkdtempSync(join(tmpdir(), "retrace-outside-"));
  mkdirSync(join(dir, "configs"));
  mkdirSync(join(dir, "osw"));
  writeFileSync(join(dir, "osw", "...json"), JSON.stringify({ ...OSW, id: ".." }));
  for (const [name, body] of Object.entries(CONFIGS))
    writeFileSync(
      join(dir, "configs", name),
      JSON.stringify(body).replace('"TASKS"', JSON.stringify(join(dir, "osw"))),
    );
  process.chdir(dir);
  for (const [config, folder] of [
    ["ok.json", "finished"],
    ["other.json", "other-run"],
  ]) {
    const r = await cli(["run", join(dir, "configs", config), "-w", "1", "-q", "--out", join(dir, folder)]);
    expect(r.code, r.stderr).toBe(0);
  }
  const first = resultLines(join(dir, "finished"))[0];
  variant("evil-condition", (f) => writeLines(f, [{ ...first, condition: "../../../outside" }]));
  variant("evil-task", (f) => writeLines(f, [{ ...first, task: ".." }]));
  variant("evil-control", (f) => writeLines(f, [{ ...first, condition: "a\u001b[2Jb" }]));
  variant("evil-seed", (f) => writeLines(f, [{ ...first, seed: "../x" }]));
  variant("evil-image", (f) => {
    const file = join(episodeDir(f), "trajectory.json");
    const rec = JSON.parse(readFileSync(file, "utf8"));
    rec.trajectory.steps[0].before = "../../../" + "a".repeat(10);
    writeFileSync(file, JSON.stringify(rec));
  });
  variant("link-results", (f) => {
    copyFileSync(join(f, "results.jsonl"), join(outside, "results.jsonl"));
    rmSync(join(f, "results.jsonl"));
    symlinkSync(join(outside, "results.jsonl"), join(f, "results.jsonl"));
  });
  variant("link-episode", (f) => {
    const ep = episodeDir(f);
    cpSync(ep, join(outside, "episode"), { recursive: true });
    rmSync(ep, { recursive: true });
    symlinkSync(join(outside, "episode"), ep);
  });
  variant("no-manifest", (f) => rmSync(join(f, "manifest.json")));
  cpSync(join(dir, "other-run"), join(dir, "swapped-manifest"), { recursive: true });
  copyFileSync(join(dir, "finished", "manifest.json"), join(dir, "swapped-manifest", "manifest.json"));
  variant("foreign-line", (f) => writeLines(f, [...resultLines(f), ...resultLines(join(dir, "other-run"))]));
  variant("hashless-manifest", (f) => {
    const m = JSON.parse(readFileSync(join(f, "manifest.json"), "utf8"));
    delete m.configHash;
    writeFileSync(join(f, "manifest.json"), JSON.stringify(m));
  });
}, 120_000);

afterAll(() => {
  process.chdir(CWD);
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("the bad-input corpus: paths, resume, repeated entries", () => {
  it.each(CLI_ROWS.map((r) => [r.name, r] as const))(
    "%s: one line naming the input, non-zero exit, nothing written or changed",
    async (_name, row) => {
      const before = snapshot(dir);
      const outsideBefore = snapshot(outside);
      const r = await cli(row.args(dir));
      expect(r.code, r.stderr).not.toBe(0);
      const line = oneLine(r.stderr);
      expect(line).toMatch(/^retrace: /);
      expect(line).toMatch(row.error);
      expect(line).not.toMatch(/\bat .*\.ts:\d+|ERR_|Error: E[A-Z]+:/);
      expect(line).not.toContain("\u001b"); // a control character in a name is printed escaped
      expect(snapshot(dir)).toEqual(before);
      expect(snapshot(outside)).toEqual(outsideBefore);
    },
  );

  it("the finished run still resumes (nothing to do) and its report reads only inside it", async () => {
    const before = readFileSync(join(dir, "finished", "results.jsonl"));
    const r = await cli(resume(dir, "finished"));
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, "finished", "results.jsonl"))).toEqual(before);
    const rep = await cli(["report", join(dir, "finished"), "--out", join(outside, "r.html")]);
    expect(rep.code, rep.stderr).toBe(0);
    // The viewer's episodes load from r-files/ beside the page; SimDesk screens (kept as gzipped SVG in
    // the run's own blob store) are named by id and packed into r-files/screens/ from that store.
    const chunks = readdirSync(join(outside, "r-files"))
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(outside, "r-files", f), "utf8"))
      .join("\n");
    const ids = [...chunks.matchAll(/"screen:([0-9a-f]{16})"/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(0);
    const packs = readdirSync(join(outside, "r-files", "screens"))
      .map((f) => readFileSync(join(outside, "r-files", "screens", f), "utf8"))
      .join("\n");
    for (const id of ids) expect(packs).toContain(`"${id}"`);
    rmSync(join(outside, "r.html"));
    rmSync(join(outside, "r-files"), { recursive: true, force: true });
  }, 60_000);
});

describe("--resume of an ideal-recovery run", () => {
  it("resumes its own forward and continuation lines, and refuses a continuation beyond k", async () => {
    const folder = join(dir, "ideal-run");
    const config = join(dir, "configs", "ideal-small.json");
    writeFileSync(
      config,
      JSON.stringify({ ...IDEAL, seeds: [0, 1, 2, 3], k: 2, strategies: ["zero", "error-minus-1"] }),
    );
    try {
      const r = await cli(["run", config, "-w", "1", "-q", "--out", folder]);
      expect(r.code, r.stderr).toBe(0);
      const lines = resultLines(folder);
      expect(lines.some((l) => /\/k2$/.test(String(l.key)))).toBe(true);
      const before = readFileSync(join(folder, "results.jsonl"));
      const again = await cli(["run", config, "-w", "1", "-q", "--resume", "--out", folder]);
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(join(folder, "results.jsonl"))).toEqual(before);
      const cont = lines.find((l) => /\/k2$/.test(String(l.key)))!;
      writeLines(folder, [...lines, { ...cont, key: String(cont.key).replace(/k2$/, "k3"), index: 999 }]);
      const snap = snapshot(folder);
      const refused = await cli(["run", config, "-w", "1", "-q", "--resume", "--out", folder]);
      expect(refused.code).not.toBe(0);
      expect(oneLine(refused.stderr)).toMatch(
        /holds 1 result line\(s\) that are not episodes of this run \(e\.g\. "R=.*\/k3"\)/,
      );
      expect(snapshot(folder)).toEqual(snap);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      rmSync(config);
    }
  }, 120_000);
});

describe("ids, never paths", () => {
  it.each([
    ["..", /relative/],
    [".", /relative/],
    ["a/b", /separator/],
    ["a\\b", /separator/],
    ["a\u0000b", /control/],
    ["a\nb", /control/],
    ["x".repeat(256), /255 bytes/],
    ["", /empty/],
  ])("refuses %j", (id, why) => {
    expect(idProblem(id)).toMatch(why);
    expect(() => checkId(id, "task id")).toThrow(ConfigError);
  });

  it("accepts the ids retrace makes (conditions, sweep settings, strategy labels, OSWorld UUIDs)", () => {
    for (const id of [
      "skilled.max-rec-3",
      "freezeWindow=5,maxRecoveryIterations=3",
      "R=E-1",
      "R=selector(sim, acc 0.8)",
      "0a0faba3-5580-44df-965d-f562a99b291c",
      "files-trash-menu",
    ])
      expect(idProblem(id)).toBeUndefined();
  });

  it("pathInside joins checked ids and never leaves the root", () => {
    expect(pathInside("/r", ["a", "b", "0"], "episode")).toBe("/r/a/b/0");
    expect(() => pathInside("/r", ["..", "x"], "episode")).toThrow(/episode \(part 1 of 2\): "\.\." is not an id/);
  });

  it("an OSWorld task file named ...json or a\\b.json is rejected with a reason; OSWorld result folders refuse a .. id", () => {
    for (const [file, id] of [
      ["/tasks/chrome/...json", ".."],
      ["/tasks/chrome/a\\b.json", "a\\b"],
    ]) {
      const r = parseOsworldTask(JSON.stringify({ ...OSW, id }), file, "chrome");
      expect("reason" in r && r.reason).toMatch(/is not usable as a folder name/);
    }
    expect(() =>
      osworldResultDir("/r", {
        actionSpace: "pyautogui",
        observationType: "screenshot",
        model: "m",
        domain: "os",
        taskId: "..",
      }),
    ).toThrow(ConfigError);
    expect(
      osworldResultDir("/r", {
        actionSpace: "pyautogui",
        observationType: "screenshot",
        model: "Qwen/Qwen2.5-VL",
        domain: "os",
        taskId: "t1",
      }),
    ).toBe("/r/pyautogui/screenshot/Qwen_Qwen2.5-VL/os/t1");
  });

  it("a runtime whose task id is a path is refused before the run folder is made", async () => {
    const root = mkdtempSync(join(tmpdir(), "retrace-badid-"));
    try {
      const base = standInRuntime(join(root, "blobs"));
      const tasks = base.tasks({ kind: "counter" } as never).map((t, i) => (i === 0 ? { ...t, id: "../escape" } : t));
      const runtime = { ...base, tasks: () => tasks };
      const config = parseExperimentConfig({
        kind: "end-to-end",
        name: "bad-id",
        env: { kind: "counter" },
        seeds: [0],
        pairs: [{ name: "a", forward: { profile: "x" } }],
        maxRecoveryIterations: [1],
      });
      await expect(runExperiment(config, runtime, { out: join(root, "run"), workers: 1 })).rejects.toThrow(
        /config\.env: a task of counter: "\.\.\/escape" is not an id usable as a folder name/,
      );
      expect(existsSync(join(root, "run"))).toBe(false);
      expect(readdirSync(root)).not.toContain("escape");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
