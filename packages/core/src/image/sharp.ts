/**
 * sharp (libvips), an optional peer dependency: decoding screenshots for SSIM, resizing images for
 * models, rendering SimDesk's SVG screens and encoding X11 frames. Loaded on first use.
 */
import { importOptional } from "../optional-import.ts";

type Sharp = typeof import("sharp").default;
let loaded: Sharp | undefined;

/** sharp's default export; one ConfigError line naming `npm install sharp` when it is missing. */
export async function loadSharp(): Promise<Sharp> {
  loaded ??= (
    await importOptional(
      "sharp",
      "decoding and encoding screenshots (SSIM, image resizing, SimDesk, X11)",
      () => import("sharp"),
    )
  ).default;
  return loaded;
}
