/**
 * Issue 31: "Two concurrent `--resume`s race on fixed pack temp-file names (raw ENOENT). Two `run`s
 * into one fresh `--out` are not refused." Real processes, started together:
 * - two `retrace run`s into one fresh --out: one finishes, the other is refused with one line
 *   (exit 2) and writes nothing; the run is complete and the same as a run alone;
 * - two `retrace run --resume`s of one half-finished run: the same;
 * - three processes packing one blob folder at once (what two `demo --resume`s do at their end):
 *   each waits its turn (packages/core/src/store/file-lock.ts), none fails, no blob is lost;
 * - `retrace demo --resume` into a folder another live process holds is refused with one line.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { PACK_FILE, readPack } from "../../packages/core/src/blob-pack.ts";
import { sha256Hex } from "../../packages/core/src/hash.ts";
import { cli, oneLine, snapshot } from "./helpers/corpus.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "experiments/bin/retrace.mjs");
const dir = mkdtempSync(join(tmpdir(), "retrace-concurrent-"));
const children = new Set<ReturnType<typeof spawn>>();

afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stderr: string;
}

/** Start a process; resolves with its exit code and stderr. */
function start(args: string[], opts: { node?: boolean } = {}): Promise<Exit> {
  const p = spawn(process.execPath, opts.node ? args : [BIN, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(p);
  let stderr = "";
  p.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((res) => p.once("exit", (code) => (children.delete(p), res({ code, stderr }))));
}

const CONFIG = {
  kind: "end-to-end",
  name: "conc",
  env: { kind: "simdesk", limit: 4 },
  seeds: { count: 3 },
  maxRecoveryIterations: [1],
  options: { maxForwardSteps: 12 },
  pairs: [{ name: "a", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } }],
};
const cfg = join(dir, "cfg.json");
writeFileSync(cfg, JSON.stringify(CONFIG));

/** results.jsonl as key -> outcome (what must not differ from a run alone). */
function outcomes(out: string): Map<string, string> {
  const lines = readFileSync(join(out, "results.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const keys = lines.map((l) => l.key);
  expect(new Set(keys).size, "each episode once").toBe(keys.length);
  return new Map(
    lines.map((l) => [
      l.key,
      JSON.stringify([l.status, l.success, l.score, l.forwardSteps, l.recoverySteps, l.recoveryAttempts]),
    ]),
  );
}

/** Every screenshot an episode record names is in the run's blob store. */
function blobsPresent(out: string): void {
  const records = readdirSync(out, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith("trajectory.json"));
  expect(records.length).toBe(24);
  for (const f of records) {
    const rec = JSON.parse(readFileSync(join(out, f), "utf8"));
    for (const s of rec.trajectory.steps)
      for (const ref of [s.before, s.after])
        expect(
          existsSync(join(out, "blobs", ref.slice(0, 2), `${ref}.png`)) ||
            existsSync(join(out, "blobs", ref.slice(0, 2), `${ref}.svgz`)),
          `${f}: ${ref}`,
        ).toBe(true);
  }
}

/** The refused one of two: one `retrace:` line (no raw errno), exit 2. */
function expectRefused(e: Exit): void {
  expect(e.code, e.stderr).toBe(2);
  expect(oneLine(e.stderr)).toMatch(
    /^retrace: (error: )?--out: another retrace process \(pid \d+\) is writing into .*; wait for it to end, or choose another --out$|already holds a run: pass --resume/,
  );
}

describe("two processes on one run folder", () => {
  let alone: Map<string, string>;

  it("a run alone (the reference)", async () => {
    const r = await start(["run", cfg, "-w", "1", "-q", "--out", join(dir, "alone")]);
    expect(r.code, r.stderr).toBe(0);
    alone = outcomes(join(dir, "alone"));
    expect(alone.size).toBe(24);
  }, 180_000);

  it("two runs into one fresh --out: one runs, the other is refused in one line; nothing is lost", async () => {
    const out = join(dir, "fresh");
    const both = await Promise.all([
      start(["run", cfg, "-w", "1", "-q", "--out", out]),
      start(["run", cfg, "-w", "1", "-q", "--out", out]),
    ]);
    for (const e of both) expect(e.stderr).not.toMatch(/ENOENT|EEXIST|\n\s+at /);
    const ok = both.filter((e) => e.code === 0);
    expect(ok.length, both.map((e) => e.stderr).join("\n")).toBe(1);
    expectRefused(both.find((e) => e.code !== 0)!);
    expect(outcomes(out)).toEqual(alone);
    blobsPresent(out);
    expect(readdirSync(out)).not.toContain("run.lock");
  }, 180_000);

  it("two --resumes of one unfinished run, started together: one resumes, the other is refused in one line; nothing is lost", async () => {
    const out = join(dir, "fresh");
    // Most episodes are undone: their result lines and folders gone, as after a kill.
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean);
    for (const l of lines.slice(4))
      rmSync(join(out, ...JSON.parse(l).key.split("/")), { recursive: true, force: true });
    writeFileSync(join(out, "results.jsonl"), lines.slice(0, 4).join("\n") + "\n");
    rmSync(join(out, "summary.json"));
    // Both start at once (two terminals); the run has 20 episodes left, so they overlap.
    const [a, second] = (
      await Promise.all([
        start(["run", cfg, "-w", "1", "-q", "--resume", "--out", out]),
        start(["run", cfg, "-w", "1", "-q", "--resume", "--out", out]),
      ])
    ).sort((x, y) => Number(x.code) - Number(y.code));
    for (const e of [a, second]) expect(e.stderr).not.toMatch(/ENOENT|EEXIST|\n\s+at /);
    expect(a.code, a.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(2);
    expect(oneLine(second.stderr)).toMatch(
      /^retrace: (error: )?--out: another retrace process \(pid \d+\) is writing into .*; wait for it to end, or choose another --out$/,
    );
    expect(outcomes(out)).toEqual(alone);
    blobsPresent(out);
    expect(
      JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).conditions.reduce(
        (n: number, c: { episodes: number }) => n + c.episodes,
        0,
      ),
    ).toBe(24);
    expect(readdirSync(out)).not.toContain("run.lock");
  }, 180_000);

  it("demo --resume into a folder another live process holds is refused in one line, nothing changed", async () => {
    const out = join(dir, "demo");
    mkdirSync(out);
    const holder = spawn("sleep", ["60"], { stdio: "ignore" });
    children.add(holder);
    try {
      writeFileSync(join(out, "run.lock"), `${holder.pid}\n`);
      const before = snapshot(out);
      const r = await cli(["demo", "--size", "tiny", "--resume", "-q", "--out", out]);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toMatch(
        new RegExp(`--out: another retrace process \\(pid ${holder.pid}\\) is writing into .*demo; wait for it to end`),
      );
      expect(snapshot(out)).toEqual(before);
    } finally {
      holder.kill("SIGKILL");
    }
  }, 60_000);
});

describe("three processes packing one blob folder at once", () => {
  it("take turns: every exits 0, no ENOENT, every blob is in the pack, no file, temp file or lock is left", async () => {
    const blobs = join(dir, "pack");
    const refs: string[] = [];
    // a pack already there (merged) and 1,500 loose blobs
    const old = Buffer.from("packed before");
    refs.push(sha256Hex(old));
    mkdirSync(blobs);
    writeFileSync(join(blobs, PACK_FILE), gzipSync(`${refs[0]}\t${old.toString("base64")}\n`));
    for (let i = 0; i < 1500; i++) {
      const bytes = Buffer.from(JSON.stringify({ state: i, pad: "x".repeat(200 + (i % 50)) }));
      const ref = sha256Hex(bytes);
      refs.push(ref);
      mkdirSync(join(blobs, ref.slice(0, 2)), { recursive: true });
      writeFileSync(join(blobs, ref.slice(0, 2), `${ref}.json`), bytes);
    }
    // Each process waits for "go", so all three pack at the same moment.
    const script = join(dir, "pack-one.mts");
    writeFileSync(
      script,
      `import { existsSync } from "node:fs";
import { packBlobFolder } from ${JSON.stringify(join(ROOT, "packages/core/src/blob-pack.ts"))};
const wait = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(${JSON.stringify(join(dir, "go"))})) Atomics.wait(wait, 0, 0, 2);
process.stdout.write(String(packBlobFolder(${JSON.stringify(blobs)}, ".json")));
`,
    );
    const runs = [0, 1, 2].map(() => start(["--conditions=retrace-dev", "--import", "tsx", script], { node: true }));
    await new Promise((r) => setTimeout(r, 4000)); // all three loaded and waiting
    writeFileSync(join(dir, "go"), "");
    const exits = await Promise.all(runs);
    for (const e of exits) {
      expect(e.stderr).not.toMatch(/ENOENT/);
      expect(e.code, e.stderr).toBe(0);
    }
    const packed = readPack(blobs)!;
    for (const ref of refs) expect(packed.has(ref), ref).toBe(true);
    for (const [ref, bytes] of packed) expect(sha256Hex(bytes)).toBe(ref);
    expect(readdirSync(blobs)).toEqual([PACK_FILE]);
  }, 120_000);
});
