/**
 * Screenshot URLs in the viewer: a screenshot stays in the run's blob store and is referenced by a URL relative to the
 * report file, at full resolution; a screen the store keeps as gzipped SVG (SimDesk's, as `.svgz` files or in the
 * folder's pack) is named `screen:<ref>` instead, and the report copies it into its screen packs (screen-packs.ts).
 */
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { BLOB_REF_RE, BlobStore } from "@retrace-cua/core/blob-store";

const REF = BLOB_REF_RE;

/**
 * The screens a report shows that are kept as gzipped SVG: `seen` maps a ref to a reader of its
 * gzipped SVG (the report writes them into its screen packs), or null for a PNG file, to look once;
 * `blobs` is the store of the run being read.
 */
export interface ScreenFiles {
  blobs?: BlobStore;
  seen: Map<string, (() => Promise<Buffer>) | null>;
}

/** The prefix of a screenshot URL that names a screen kept as SVG (`screen:<ref>`). */
export const SCREEN_URL_PREFIX = "screen:";

/**
 * A screenshot's URL relative to the report folder ("" when unknown); `screen:<ref>` when the
 * blob store keeps it as gzipped SVG and `screens` is given (it then collects that file).
 */
export function blobUrl(blobsDir: string, reportDir: string, ref: unknown, screens?: ScreenFiles): string {
  if (typeof ref !== "string" || !REF.test(ref)) return "";
  const blobs = screens?.blobs;
  if (screens && blobs) {
    let svgz = screens.seen.get(ref);
    if (svgz === undefined) {
      // Shipped only after it is checked: it unzips and renders to the screen its reference names.
      svgz = !existsSync(blobs.path(ref)) && blobs.svgzSync(ref) ? async () => (await blobs.checkedSvgz(ref))! : null;
      screens.seen.set(ref, svgz);
    }
    if (svgz) return SCREEN_URL_PREFIX + ref;
  }
  return relative(reportDir, join(blobsDir, ref.slice(0, 2), `${ref}.png`))
    .split(sep)
    .map(encodeURIComponent)
    .join("/");
}
