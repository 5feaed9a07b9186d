/**
 * The bad-input corpus, third hostile battery (issue 31): report and export read every blob checked
 * against its hash and every file inside the run folder; a garbage, swapped or linked-out blob or
 * pack is one line naming the file, a missing record is a warning, records are byte-identical
 * across runs, and a folder another live process writes is refused.
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
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { PACK_FILE, packBlobFolder, SVGZ_PACK_FILE } from "../../packages/core/src/blob-pack.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { makeScratch, removeScratch, TINY } from "./helpers/bad-input-round3.ts";

// the scratch folder the whole battery ran inside (its working folder during these tests)
let dir = "";
/** A page a browser task can open (the checker row: its episodes would reach the checker). */
let page: Server | undefined;

beforeAll(async () => {
  ({ dir, page } = await makeScratch());
});

afterAll(() => removeScratch(dir, page));

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
