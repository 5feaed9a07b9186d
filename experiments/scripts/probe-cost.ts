/**
 * What a state probe costs on the real apps: median of 5 `env.probe()` calls after a task's reset,
 * with and without AT-SPI digests (`probeAccessibility`), per app.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/probe-cost.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { desktopTask } from "@retrace-cua/desktops/desktop-tasks/tasks";
import { createX11Desktop } from "@retrace-cua/desktops/x11/create";

const dir = mkdtempSync(join(tmpdir(), "retrace-probe-cost-"));
try {
  for (const task of ["mousepad-append-line", "galculator-add", "gnumeric-edit-csv"]) {
    for (const accessibility of [true, false]) {
      const env = createX11Desktop({
        blobs: new BlobStore({ dir: join(dir, `${task}-${accessibility}`) }),
        probeAccessibility: accessibility,
      });
      try {
        await env.reset(desktopTask(task)!);
        await env.probe();
        const ms: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          await env.probe();
          ms.push(performance.now() - t);
        }
        ms.sort((a, b) => a - b);
        process.stdout.write(
          `${task.padEnd(22)} ${accessibility ? "with AT-SPI   " : "without AT-SPI"} median ${ms[2].toFixed(0)} ms (${ms.map((x) => x.toFixed(0)).join(" ")})\n`,
        );
      } finally {
        await env.close();
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
