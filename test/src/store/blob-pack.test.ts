/**
 * Packing a finished blob folder into `pack.tsv.gz` (packages/core/src/blob-pack.ts): the store still reads every
 * blob by the same reference, the files and their sub-folders are gone, and nothing is lost.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { PACK_FILE, packBlobFolder, readPack, SVGZ_PACK_FILE } from "../../../packages/core/src/blob-pack.ts";
import { svgToPng } from "../../../packages/core/src/image/svg-png.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { svgPngRenderer } from "../../../packages/core/src/image/svg-png.ts";
import { sha256Hex } from "../../../packages/core/src/hash.ts";
import { gunzipSync, gzipSync } from "node:zlib";

const fresh = () => join(mkdtempSync(join(tmpdir(), "blob-pack-")), "states");

describe("packBlobFolder", () => {
  it("moves every blob file into one pack that the store reads (get, getSync, has), and a later put writes no file", async () => {
    const dir = fresh();
    const store = new BlobStore({ dir, extension: ".json" });
    const texts = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ v: 1, n: i, fs: { "/home/user": { text: "x".repeat(i * 50) } } }),
    );
    const refs = texts.map((t) => store.putSync(Buffer.from(t)));
    // a file whose bytes do not match its name stays a file
    const bad = "f".repeat(64);
    mkdirSync(join(dir, "ff"), { recursive: true });
    writeFileSync(join(dir, "ff", `${bad}.json`), "{}");
    expect(packBlobFolder(dir, ".json")).toBe(40);
    expect(readdirSync(dir).sort()).toEqual(["ff", PACK_FILE]);
    expect(readdirSync(join(dir, "ff"))).toEqual([`${bad}.json`]);
    expect(readPack(dir)!.size).toBe(40);
    const reader = new BlobStore({ dir, extension: ".json" });
    for (let i = 0; i < texts.length; i++) {
      expect(reader.getSync(refs[i]).toString()).toBe(texts[i]);
      expect((await reader.get(refs[i])).toString()).toBe(texts[i]);
      expect(await reader.has(refs[i])).toBe(true);
    }
    expect(reader.putSync(Buffer.from(texts[3]))).toBe(refs[3]);
    expect(existsSync(reader.path(refs[3]))).toBe(false);
    expect(() => reader.getSync("0".repeat(64))).toThrow(ConfigError);
    // packing again merges new files into the pack
    const extra = reader.putSync(Buffer.from('{"v":2}'));
    expect(packBlobFolder(dir, ".json")).toBe(1);
    expect(readPack(dir)!.size).toBe(41);
    expect(new BlobStore({ dir, extension: ".json" }).getSync(extra).toString()).toBe('{"v":2}');
    // copying a packed blob into another store writes it as a file there
    const other = new BlobStore({ dir: fresh(), extension: ".json" });
    reader.copyTo(refs[0], other);
    expect(other.getSync(refs[0]).toString()).toBe(texts[0]);
  });

  it("packs a screen folder's .svgz files apart; the store still renders each screen back to its exact PNG", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "blob-pack-")), "blobs");
    const store = new BlobStore({ dir });
    const svg = (c: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="40" viewBox="0 0 64 40"><rect x="0" y="0" width="64" height="40" fill="${c}"/><rect x="8" y="8" width="20" height="10" fill="#ffffff"/></svg>`;
    const pngs = await Promise.all(["#123456", "#abcdef"].map((c) => svgToPng(svg(c))));
    const refs = await Promise.all(pngs.map((p, i) => store.putRendered(p, svg(["#123456", "#abcdef"][i]))));
    expect(packBlobFolder(dir, ".svgz")).toBe(2);
    expect(readdirSync(dir)).toEqual([SVGZ_PACK_FILE]);
    const reader = new BlobStore({ dir });
    for (let i = 0; i < 2; i++) {
      expect(await reader.get(refs[i])).toEqual(pngs[i]);
      expect(reader.svgzSync(refs[i])).toBeDefined();
    }
    expect(await reader.putRendered(pngs[0], svg("#123456"))).toBe(refs[0]);
    expect(existsSync(reader.svgzPath(refs[0]))).toBe(false);
  });

  it("checkedSvgz: a render memo of the same SVG text stands for the render; a replaced .svgz is still rendered and refused", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "blob-pack-")), "blobs");
    const store = new BlobStore({ dir });
    const svg = (c: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="40" viewBox="0 0 64 40"><rect x="0" y="0" width="64" height="40" fill="${c}"/></svg>`;
    const png = await svgToPng(svg("#123456"));
    const ref = await store.putRendered(png, svg("#123456"));
    await store.remember(await svgPngRenderer(), sha256Hex(svg("#123456")), ref);
    const reader = new BlobStore({ dir });
    expect(gunzipSync((await reader.checkedSvgz(ref))!).toString()).toBe(svg("#123456"));
    // another screen's SVG under this reference: its text has no memo, so it is rendered and refused
    writeFileSync(reader.svgzPath(ref), gzipSync(svg("#654321")));
    await expect(new BlobStore({ dir }).checkedSvgz(ref)).rejects.toThrow(/does not render to the screen it names/);
  });

  it("does nothing on a missing or empty folder", () => {
    expect(packBlobFolder(join(tmpdir(), "no-such-blob-folder-xyz"), ".json")).toBe(0);
    const dir = fresh();
    new BlobStore({ dir, extension: ".json" });
    expect(packBlobFolder(dir, ".json")).toBe(0);
    expect(existsSync(join(dir, PACK_FILE))).toBe(false);
  });
});
