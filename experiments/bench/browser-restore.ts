/**
 * Restoring a browser state to step R, two ways, side by side on one environment and one task:
 * `browser-snapshot-restore` (read the snapshot from the BlobStore, put the app's server state,
 * cookies and storage back in the episode's context, rebuild the tab's history and load its
 * current URL, refill forms and focus, take the observation; it passes only when every restore
 * gives back the snapshot's state hash and byte-identical screenshot) and `browser-replay-restore` (reset to a fresh
 * context and replay the R plan
 * steps, observing after each, as `restoration: replay` does). Figures are ms per restoration.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { EnvironmentSnapshot } from "@retrace-cua/core/environment";
import { snapshotStore } from "@retrace-cua/graphs/env-step";
import { BROWSER_TASKS, createBrowserEnvironment } from "@retrace-cua/browser";
import type { BenchResult } from "./result.ts";

/** A long shop task: R is the step before placing the order. */
const TASK = "shop-bottle-express-promo";
const ROUNDS = 3;

export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-browser-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const env = await createBrowserEnvironment({ blobs });
  try {
    const task = BROWSER_TASKS.find((t) => t.id === TASK)!;
    const prefix = task.plan.slice(0, task.plan.findIndex((a) => a.type === "DONE") - 1);
    await env.reset(task);
    for (const a of prefix) await env.step(a);
    const target = env.stateHash();
    const shot = env.visibleHash();
    const c0 = performance.now();
    const ref = await snapshotStore(blobs).put(Buffer.from(JSON.stringify(await env.snapshot())));
    const captureMs = performance.now() - c0;
    const bytes = (await snapshotStore(blobs).get(ref)).length;
    const snapMs: number[] = [];
    const replayMs: number[] = [];
    let mismatches = 0;
    let screenMismatches = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // Move away from R first, as an episode would before restoring.
      await env.step(task.plan[prefix.length]);
      let t = performance.now();
      const restored = await env.restore(
        JSON.parse((await snapshotStore(blobs).get(ref)).toString("utf8")) as EnvironmentSnapshot,
      );
      snapMs.push(performance.now() - t);
      if (env.stateHash() !== target) mismatches++;
      if (restored.screenshot !== shot) screenMismatches++;
      await env.step(task.plan[prefix.length]);
      t = performance.now();
      await env.reset(task);
      for (const a of prefix) await env.step(a);
      replayMs.push(performance.now() - t);
      if (env.stateHash() !== target) mismatches++;
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const snap = median(snapMs);
    const replay = median(replayMs);
    const details = {
      task: TASK,
      R: prefix.length,
      rounds: ROUNDS,
      snapshotMs: snap,
      replayMs: replay,
      captureMs,
      snapshotBytes: bytes,
      stateMismatches: mismatches,
      screenMismatches,
    };
    return [
      {
        name: "browser-snapshot-restore",
        ratioOf: "ms per restoration by snapshot, beside replay",
        ratio: snap / replay,
        value: snap,
        unit: "ms",
        target: `< ${replay.toFixed(0)} (replay)`,
        pass: snap < replay && mismatches === 0 && screenMismatches === 0,
        details,
      },
      {
        name: "browser-replay-restore",
        ratioOf: "ms per restoration (replay of R steps in a fresh context); ratio = replay / snapshot",
        ratio: replay / snap,
        value: replay,
        unit: "ms",
        details,
      },
    ];
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
