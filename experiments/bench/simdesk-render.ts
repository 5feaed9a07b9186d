/**
 * SimDesk step cost at 1280x800: applying an action, building the UI, rendering SVG and
 * rasterising it to PNG (plus storing it), against one plain sharp SVG->PNG render of a
 * same-size SVG. Absolute ms (and the engine-only and 1920x1080 costs) are in the details.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { createSimDesk, getSimDeskTask } from "@retrace-cua/simdesk/simdesk";
import type { BenchResult } from "./result.ts";

const TASK = "cross-tidy-downloads";

async function plainRenderMs(width: number, height: number, n: number): Promise<number> {
  const svg = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#2d3e50"/>` +
      `<text x="40" y="60" font-family="DejaVu Sans" font-size="20" fill="#fff">plain render</text></svg>`,
  );
  await sharp(svg).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await sharp(svg).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  return (performance.now() - t0) / n;
}

async function deskStepMs(width: number, height: number, render: boolean): Promise<{ ms: number; steps: number }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-simdesk-"));
  try {
    const desk = createSimDesk({ blobs: new BlobStore({ dir: join(dir, "blobs") }), width, height });
    const task = getSimDeskTask(TASK);
    await desk.reset(task);
    const t0 = performance.now();
    for (const a of task.plan) {
      if (render) await desk.step(a);
      else desk.apply(a);
    }
    return { ms: (performance.now() - t0) / task.plan.length, steps: task.plan.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult[]> {
  await deskStepMs(1280, 800, true); // warm-up (fonts, caches)
  const plain = await plainRenderMs(1280, 800, 20);
  const step = await deskStepMs(1280, 800, true);
  const engine = await deskStepMs(1280, 800, false);
  const big = await deskStepMs(1920, 1080, true);
  const plainBig = await plainRenderMs(1920, 1080, 10);
  return [
    {
      name: "simdesk step+render 1280x800",
      ratioOf: "SimDesk step (apply+render+store) / plain sharp SVG->PNG",
      ratio: step.ms / plain,
      details: { stepMs: step.ms, plainRenderMs: plain, engineOnlyMs: engine.ms, steps: step.steps, task: TASK },
    },
    {
      name: "simdesk step+render 1920x1080",
      ratioOf: "SimDesk step / plain sharp SVG->PNG (1920x1080)",
      ratio: big.ms / plainBig,
      details: { stepMs: big.ms, plainRenderMs: plainBig },
    },
  ];
}
