/**
 * SimDesk screens are kept in the blob store as gzipped SVG (`<ref>.svgz`, ~1 KB instead of a
 * ~45 KB PNG) and rendered back on read: the reference stays the sha256 of the PNG, and every
 * reader (the SSIM oracles included) gets the exact PNG bytes the desk rendered.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { sha256Hex } from "../../../../packages/core/src/hash.ts";
import { svgToPng } from "../../../../packages/core/src/image/svg-png.ts";
import { screenshotSsim } from "../../../../packages/core/src/image/similarity.ts";
import { getSimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { buildUi, hitNode, uiContext } from "../../../../packages/simdesk/src/ui.ts";
import { renderSvg } from "../../../../packages/simdesk/src/render.ts";
import type { SimDesk } from "../../../../packages/simdesk/src/desk.ts";
import { makeDesk } from "./helpers.ts";

/** The screen of the desk's current state, rendered here without any blob store. */
async function renderDirect(desk: SimDesk): Promise<{ svg: string; png: Buffer }> {
  const state = desk.getState();
  const ui = buildUi(state, desk.width, desk.height);
  const svg = renderSvg(
    ui,
    uiContext(state, desk.width, desk.height),
    hitNode(ui, state.pointer.x, state.pointer.y)?.id,
  );
  return { svg, png: await svgToPng(svg) };
}

describe("SimDesk screens kept as SVG", () => {
  it("stores each screen as .svgz only, and a fresh store renders back the exact PNG bytes the reference names", async () => {
    const { desk, blobs } = makeDesk();
    const task = getSimDeskTask("files-rename-draft");
    const refs: string[] = [(await desk.reset(task)).screenshot];
    for (const a of task.plan.slice(0, 5)) refs.push((await desk.step(a)).observation.screenshot);
    const last = await renderDirect(desk);
    expect(sha256Hex(last.png)).toBe(refs.at(-1));
    const fresh = new BlobStore({ dir: blobs.dir }); // nothing in memory: every read renders
    let svgzBytes = 0,
      pngBytes = 0;
    for (const ref of new Set(refs)) {
      expect(existsSync(blobs.path(ref)), "no PNG file").toBe(false);
      expect(blobs.storedPath(ref)).toBe(blobs.svgzPath(ref));
      const png = await fresh.get(ref);
      expect(sha256Hex(png)).toBe(ref);
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      svgzBytes += statSync(blobs.svgzPath(ref)).size;
      pngBytes += png.length;
    }
    expect(await fresh.get(refs.at(-1)!)).toEqual(last.png);
    expect(await screenshotSsim(await fresh.get(refs.at(-1)!), last.png)).toBe(1);
    expect(svgzBytes * 10).toBeLessThan(pngBytes);
  });

  it("an SVG that no longer renders to its reference is refused with one line naming the renderer", async () => {
    const { desk, blobs } = makeDesk();
    const ref = (await desk.reset(getSimDeskTask("files-rename-draft"))).screenshot;
    const svg = (await renderDirect(desk)).svg;
    writeFileSync(
      blobs.svgzPath(ref),
      gzipSync(svg.replace("</svg>", '<rect x="0" y="0" width="9" height="9" fill="#ff0000"/></svg>')),
    );
    const err = await new BlobStore({ dir: blobs.dir }).get(ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(
      /does not render to the screen it names .*rasteriser \(simdesk-png-z6-vips/,
    );
  });

  it("copyTo keeps the SVG form, and a later put of the same PNG writes no second copy", async () => {
    const { desk, blobs } = makeDesk();
    const ref = (await desk.reset(getSimDeskTask("files-rename-draft"))).screenshot;
    const other = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "svg-copy-")), "blobs") });
    blobs.copyTo(ref, other);
    expect(readFileSync(other.svgzPath(ref))).toEqual(readFileSync(blobs.svgzPath(ref)));
    expect(await other.put(await other.get(ref))).toBe(ref);
    expect(existsSync(other.path(ref))).toBe(false);
    expect(() => blobs.copyTo("0".repeat(64), other)).toThrow(ConfigError);
  });
});
