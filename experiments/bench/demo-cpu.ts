/**
 * `demo-cpu`: CPU time per episode of the tiny demo (`runDemo`, in this process: its libvips
 * threads count, as process.cpuUsage sees the whole process), against a fixed calibration loop
 * measured in the same run, so the line reads the same on a faster or busier machine. A warm-up
 * demo runs first (module loading and JIT are not the demo's work). Issue 42: the demo's CPU grew
 * 1.25x between c02bc31 and f10d3a2 without any line showing it (docs/runtime.md).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { runDemo } from "../commands/demo.ts";
import type { BenchResult } from "./result.ts";

/** The calibration: hashing and JSON work of a fixed size (no project code), CPU ms. */
function calibrationMs(): number {
  const c0 = process.cpuUsage();
  let acc = "";
  for (let i = 0; i < 20_000; i++) {
    const obj = { i, text: `step ${i} ${acc.slice(0, 16)}`, xs: Array.from({ length: 20 }, (_, j) => (i * 31 + j) % 97) };
    acc = createHash("sha256").update(JSON.stringify(JSON.parse(JSON.stringify(obj)))).digest("hex");
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e3;
}

async function demoCpu(): Promise<{ ms: number; episodes: number }> {
  const out = join(mkdtempSync(join(tmpdir(), "bench-demo-")), "demo");
  try {
    const c0 = process.cpuUsage();
    await runDemo({ out, size: "tiny", workers: 1, seedBase: 0, resume: false, quiet: true, inProcess: true });
    const c = process.cpuUsage(c0);
    const episodes = ["ideal", "e2e", "sweep"].reduce((n, p) => n + readFileSync(join(out, p, "results.jsonl"), "utf8").trim().split("\n").length, 0);
    return { ms: (c.user + c.system) / 1e3, episodes };
  } finally {
    rmSync(join(out, ".."), { recursive: true, force: true });
  }
}

/** Tiny demo CPU ms per episode / calibration CPU ms; the target leaves 25% over the fixed code's figure. */
export const TARGET = 1.0;

export async function run(): Promise<BenchResult[]> {
  await demoCpu();
  const calib = [calibrationMs(), calibrationMs(), calibrationMs()].sort((a, b) => a - b)[1];
  const { ms, episodes } = await demoCpu();
  const perEpisode = ms / episodes;
  const ratio = perEpisode / calib;
  return [{ name: "demo-cpu", ratioOf: "tiny demo CPU ms per episode / calibration loop CPU ms (same run)", ratio, value: ratio, unit: "x", target: `<= ${TARGET}`, pass: ratio <= TARGET, details: { cpuMsPerEpisode: perEpisode, episodes, demoCpuMs: ms, calibrationMs: calib } }];
}
