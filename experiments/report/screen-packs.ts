/**
 * Screen packs: the screens the viewer shows that the blob store keeps as gzipped SVG, copied into
 * `<report>-files/screens/<id[0:2]>.js` as base64, 256 packs at most, each loaded by a script tag
 * when the viewer first shows one of its screens (a page opened from disk may load scripts but not
 * fetch files, and Chromium does not show `.svgz` files from disk). The page unzips a screen with
 * DecompressionStream and shows the SVG: a display copy; the oracles read the PNG the store renders.
 * In the chunk files a screen is `screen:<id>`, its id the first 16 hex digits of its reference
 * (the whole reference for the rare screens that share those).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREEN_URL_PREFIX } from "./screen-urls.ts";
import type { ViewEpisode } from "./viewer-types.ts";

const SHORT = 16;

/**
 * Shorten the `screen:<ref>` URLs of `chunks` in place; returns id -> reader of the gzipped SVG for {@link
 * writeScreenPacks}.
 */
export function shortenScreenIds<T>(chunks: ViewEpisode[][], screens: ReadonlyMap<string, T>): Map<string, T> {
  const byPrefix = new Map<string, number>();
  for (const ref of screens.keys()) byPrefix.set(ref.slice(0, SHORT), (byPrefix.get(ref.slice(0, SHORT)) ?? 0) + 1);
  const idOf = (ref: string) => (byPrefix.get(ref.slice(0, SHORT)) === 1 ? ref.slice(0, SHORT) : ref);
  const short = (url: string | undefined) =>
    url?.startsWith(SCREEN_URL_PREFIX) ? SCREEN_URL_PREFIX + idOf(url.slice(SCREEN_URL_PREFIX.length)) : url;
  for (const chunk of chunks)
    for (const ep of chunk) {
      for (const s of ep.steps) {
        s.before = short(s.before)!;
        s.after = short(s.after)!;
        for (const c of s.calls ?? [])
          for (const m of c.messages) for (const part of m.parts) if ("img" in part) part.img = short(part.img)!;
      }
      for (const e of ep.events) {
        if (e.target) e.target = short(e.target);
        if (e.restored) e.restored = short(e.restored);
      }
    }
  return new Map([...screens].map(([ref, file]) => [idOf(ref), file]));
}

/** Write one pack per id prefix for `screens` (id -> reader of its gzipped SVG); returns the number of packs. */
export async function writeScreenPacks(
  dir: string,
  screens: ReadonlyMap<string, () => Promise<Buffer>>,
): Promise<number> {
  const packs = new Map<string, string[]>();
  for (const id of [...screens.keys()].sort()) {
    const list = packs.get(id.slice(0, 2)) ?? [];
    list.push(`${JSON.stringify(id)}:"${(await screens.get(id)!()).toString("base64")}"`);
    packs.set(id.slice(0, 2), list);
  }
  if (packs.size) mkdirSync(dir, { recursive: true });
  for (const [prefix, entries] of packs)
    writeFileSync(
      join(dir, `${prefix}.js`),
      `window.__retraceScreens(${JSON.stringify(prefix)}, {${entries.join(",")}});\n`,
    );
  return packs.size;
}

/**
 * An episode as its chunk file holds it: a step's `before` is left out when it is the previous step's `after` (the page
 * fills it back in).
 */
export function chunkEpisode(ep: ViewEpisode): unknown {
  return {
    ...ep,
    steps: ep.steps.map((s, i) => (i > 0 && s.before === ep.steps[i - 1].after ? { ...s, before: undefined } : s)),
  };
}
