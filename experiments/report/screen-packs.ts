/**
 * Screen packs: the screens the viewer shows that the blob store keeps as gzipped SVG, copied into
 * `<report>-files/screens/<ref[0:2]>.js` as base64, 256 packs at most, each loaded by a script tag
 * when the viewer first shows one of its screens (a page opened from disk may load scripts but not
 * fetch files, and Chromium does not show `.svgz` files from disk). The page unzips a screen with
 * DecompressionStream and shows the SVG: a display copy; the oracles read the PNG the store renders.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Write one pack per reference prefix for `screens` (ref -> its `.svgz` file); nothing when empty. */
export function writeScreenPacks(dir: string, screens: ReadonlyMap<string, string>): number {
  const packs = new Map<string, string[]>();
  for (const ref of [...screens.keys()].sort()) {
    const prefix = ref.slice(0, 2);
    const entry = `${JSON.stringify(ref)}:"${readFileSync(screens.get(ref)!).toString("base64")}"`;
    const list = packs.get(prefix) ?? [];
    list.push(entry);
    packs.set(prefix, list);
  }
  if (packs.size) mkdirSync(dir, { recursive: true });
  for (const [prefix, entries] of packs) writeFileSync(join(dir, `${prefix}.js`), `window.__retraceScreens(${JSON.stringify(prefix)}, {${entries.join(",")}});\n`);
  return packs.size;
}
