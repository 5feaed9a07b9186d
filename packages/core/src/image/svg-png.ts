/**
 * The one SVG -> PNG rasteriser: SimDesk renders its screens with it, and the blob store re-renders
 * screens it keeps as SVG (see BlobStore.putRendered) with it, so both give the same bytes.
 */
import { loadSharp } from "./sharp.ts";
import { runtimeSettings } from "../settings.ts";

let threadsSet = false;
/**
 * RETRACE_SHARP_CONCURRENCY=1 in each of N worker processes: one libvips thread per process instead of N pools of one
 * thread per core contending for the same cores.
 */
async function applySharpConcurrency(): Promise<void> {
  if (threadsSet) return;
  const threads = runtimeSettings().sharpConcurrency;
  const sharp = await loadSharp();
  threadsSet = true;
  if (threads) sharp.concurrency(threads);
}

/**
 * Names this rasteriser and the libvips/librsvg build under it: the same SVG gives the same PNG
 * bytes under one build. Used as the derived-blob function name (BlobStore.derived) and in the
 * error a blob store gives when a screen kept as SVG re-renders differently on another build.
 */
export async function svgPngRenderer(): Promise<string> {
  const sharp = await loadSharp();
  return `simdesk-png-z6-vips${sharp.versions.vips}-rsvg${sharp.versions.rsvg ?? "0"}`.replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * Rasterise SVG to PNG at 72 dpi (one SVG unit = one pixel). zlib level 6 without adaptive
 * filtering: as fast as level 1 on SimDesk's flat screens (~10 ms) and 40% smaller (~50 KB
 * instead of ~83 KB at 1280x800). Adaptive filtering or level 9 would shrink them further at
 * 5-15x the time. Changing these settings changes every stored screen's reference.
 */
export async function svgToPng(svg: string): Promise<Buffer> {
  await applySharpConcurrency();
  return (await loadSharp())(Buffer.from(svg), { density: 72 })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
}
