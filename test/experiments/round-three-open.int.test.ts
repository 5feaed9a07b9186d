/**
 * Round three's open items (issue 41, item 8), each a rule with its row: a damaged
 * `trajectories.jsonl.gz` is one line naming it; a tampered states pack is refused on `--resume`;
 * a full disk in `run` and `report` is ONE line on stderr (no JSON log lines) and loses nothing
 * already written (a real 200 KB tmpfs, mounted here and always unmounted); `export` creates no
 * blob folder a manifest names outside the run, and refuses a blob whose bytes do not match its
 * hash. `run`/`report` on the full disk run as child processes (what a user sees on stderr,
 * logger included); the others through the CLI in-process.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { packBlobFolder, PACK_FILE } from "../../packages/core/src/blob-pack.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";

const TINY = {
  kind: "end-to-end",
  name: "tiny",
  env: { kind: "simdesk", limit: 2 },
  seeds: [0, 1],
  maxRecoveryIterations: [1],
  baseline: false,
  options: { maxForwardSteps: 8 },
  pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } }],
};
const BIN = resolve("experiments/bin/retrace.mjs");
let base = "";

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "retrace-r3-open-"));
  writeFileSync(join(base, "tiny.json"), JSON.stringify(TINY));
  const r = await cli(["run", join(base, "tiny.json"), "-w", "1", "-q", "--out", join(base, "finished")]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const variant = (name: string): string => {
  const run = join(base, name);
  cpSync(join(base, "finished"), run, { recursive: true });
  return run;
};

/** `retrace ARGS` in a child process: its exit code and everything it printed on stderr. */
function child(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    p.on("error", fail);
    p.on("close", (code) => done({ code: code ?? -1, stderr }));
  });
}

describe("round three's open items (issue 41)", () => {
  it("(a) a truncated trajectories.jsonl.gz is one line naming the file and what to do", async () => {
    const run = join(base, "packed");
    await runExperiment(parseExperimentConfig(TINY), createSimDeskRuntime(), {
      out: run,
      workers: 1,
      episodeRecords: "pack",
    });
    const gz = join(run, "trajectories.jsonl.gz");
    expect(existsSync(gz)).toBe(true);
    truncateSync(gz, Math.floor(readFileSync(gz).length / 2));
    const r = await cli(["report", run, "-q", "--out", join(base, "a.html")]);
    expect(r.code).not.toBe(0);
    const line = oneLine(r.stderr);
    expect(line).toContain(
      `${gz} is damaged (cut off: unexpected end of the gzip data); restore it from a copy, or re-run the config into a new folder (--out)`,
    );
    expect(line).not.toMatch(/^retrace: (Error: )?unexpected end of file$/);
  }, 60_000);

  it("(b) a tampered states pack is refused on --resume, naming the pack; nothing changes", async () => {
    const run = variant("tampered");
    const states = join(run, "simdesk-states");
    expect(packBlobFolder(states, ".json")).toBeGreaterThan(1);
    const pack = join(states, PACK_FILE);
    const lines = gunzipSync(readFileSync(pack)).toString("latin1").split("\n").filter(Boolean);
    // Entry 2 keeps its name but holds other (valid JSON) state bytes: used as is, it changes the continuation.
    const other = Buffer.from(lines[0].slice(65), "base64")
      .toString("utf8")
      .replace(/"pointer":\[\d+,\d+\]/, '"pointer":[1,1]');
    lines[1] = `${lines[1].slice(0, 64)}\t${Buffer.from(other).toString("base64")}`;
    writeFileSync(pack, gzipSync(Buffer.from(lines.join("\n") + "\n", "latin1")));
    const before = snapshot(run);
    const r = await cli(["run", join(base, "tiny.json"), "-w", "1", "-q", "--resume", "--out", run]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `retrace: --resume: blob pack ${pack} line 2 (entry ${lines[1].slice(0, 64)}) does not match its sha256: the pack was changed or damaged since the run wrote it; restore it from a copy or start a new run (--out)`,
    );
    expect(snapshot(run)).toEqual(before);
    // The untampered pack resumes (nothing left to run): the check itself refuses nothing sound.
    const ok = variant("packed-ok");
    packBlobFolder(join(ok, "simdesk-states"), ".json");
    const again = await cli(["run", join(base, "tiny.json"), "-w", "1", "-q", "--resume", "--out", ok]);
    expect(again.code, again.stderr).toBe(0);
  }, 60_000);

  describe("(c) a full disk", () => {
    const mnt = join(tmpdir(), `retrace-enospc-${process.pid}`);
    let mounted = false;
    beforeAll(() => {
      mkdirSync(mnt, { recursive: true });
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=200k", "tmpfs", mnt]);
      mounted = true;
    });
    afterAll(() => {
      if (mounted) execFileSync("umount", ["-l", mnt]);
      rmSync(mnt, { recursive: true, force: true });
    });

    it("run: ONE line on stderr naming the file, exit 1; after freeing space --resume keeps every line already written", async () => {
      const out = join(mnt, "run");
      const r = await child(["run", join(base, "tiny.json"), "-w", "1", "-q", "--out", out]);
      expect(r.code).toBe(1);
      const line = oneLine(r.stderr);
      expect(line).toMatch(
        /^retrace: EnvironmentError: cannot write \/\S+: the disk is full \(ENOSPC\); free some space, then run the same command with --resume \(nothing already written is lost\)$/,
      );
      expect(r.stderr).not.toContain('"level"');
      const written = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean);
      execFileSync("mount", ["-o", "remount,size=4m", mnt]);
      const again = await child(["run", join(base, "tiny.json"), "-w", "1", "-q", "--resume", "--out", out]);
      expect(again.code, again.stderr).toBe(0);
      const all = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean);
      expect(all).toHaveLength(4);
      const keys = new Set(all.map((l) => JSON.parse(l).key));
      for (const l of written) expect(keys.has(JSON.parse(l).key)).toBe(true);
    }, 120_000);

    it("report: ONE line naming the report; the run folder is unchanged and no half-written files stay", async () => {
      writeFileSync(join(mnt, "fill"), Buffer.alloc(0));
      // fill what is left of the disk
      try {
        writeFileSync(join(mnt, "fill"), Buffer.alloc(8 * 1024 * 1024));
      } catch {
        // ENOSPC: the disk is now full, as intended
      }
      const run = join(base, "finished");
      const before = snapshot(run);
      const file = join(mnt, "r.html");
      const r = await child(["report", run, "-q", "--out", file]);
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toBe(
        `retrace: EnvironmentError: report: cannot write ${file}: the disk is full (ENOSPC); free some space (or pass --out on another disk) and run \`retrace report\` again; the run folder is unchanged`,
      );
      expect(snapshot(run)).toEqual(before);
      expect(readdirSync(mnt).filter((n) => n.startsWith("r"))).toEqual(["run"]);
    }, 120_000);
  });

  it("(d) export creates no blob folder a manifest names outside the run (../../x)", async () => {
    const run = variant("manifest-escape");
    const m = JSON.parse(readFileSync(join(run, "manifest.json"), "utf8"));
    writeFileSync(join(run, "manifest.json"), JSON.stringify({ ...m, blobs: "../../x-blobs-escape" }));
    const target = resolve(run, "../../x-blobs-escape");
    const out = join(base, "export-d");
    const r = await cli(["export", "--osworld", run, "--out", out]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(
      /^retrace: export: \S+manifest\.json names the blob folder "\S*x-blobs-escape", outside \S+; export reads only inside/,
    );
    expect(existsSync(target)).toBe(false);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("(e) export refuses a blob whose bytes do not match its hash (it copied another screenshot's bytes)", async () => {
    const run = variant("swapped-png");
    const blobs = new BlobStore({ dir: join(run, "blobs") });
    const traj = readdirSync(run, { recursive: true })
      .map(String)
      .find((f) => f.endsWith("trajectory.json"))!;
    const steps = (
      JSON.parse(readFileSync(join(run, traj), "utf8")) as {
        trajectory: { steps: Array<{ before: string; after: string }> };
      }
    ).trajectory.steps;
    const a = steps[0].before;
    const b = steps.map((s) => s.after).find((r) => r !== a)!;
    // A .png file named for screen a holding screen b's bytes (what a copy-by-path exported).
    writeFileSync(blobs.path(a), await blobs.get(b));
    const r = await cli(["export", "--osworld", run, "--out", join(base, "export-e")]);
    expect(r.code).not.toBe(0);
    expect(oneLine(r.stderr)).toContain(`blob ${blobs.path(a)} does not match its sha256`);
  }, 60_000);
});
