/**
 * Screen frames: raw RGB from ImageMagick's `import` (fast to compare while settling),
 * and PNG encoding through sharp for the observation.
 */
import { loadSharp } from "@retrace-cua/core/image/sharp";
import { EnvironmentError } from "@retrace-cua/core/errors";

/** A raw screen frame, 3 bytes per pixel (RGB), rows top to bottom. */
export interface Frame {
  width: number;
  height: number;
  rgb: Buffer;
}

/** The argv that prints the whole screen as raw 8-bit RGB (ImageMagick's `import`). */
export function rawScreenArgv(display: string): string[] {
  // Not `xwd -root`: it leaves GTK dialogs (a different visual) black on Xvfb; import does not.
  return ["/usr/bin/import", "-display", display, "-window", "root", "-depth", "8", "rgb:-"];
}

/** Wrap raw RGB bytes from {@link rawScreenArgv} as a frame, checking the size. */
export function rgbFrame(rgb: Buffer, width: number, height: number): Frame {
  if (rgb.length !== width * height * 3) {
    throw new EnvironmentError(
      `screen capture returned ${rgb.length} bytes, expected ${width}x${height}x3 = ${width * height * 3}`,
    );
  }
  return { width, height, rgb };
}

/** Encode a frame as PNG (deterministic: the same pixels give the same bytes). */
export async function frameToPng(frame: Frame): Promise<Buffer> {
  return (await loadSharp())(frame.rgb, { raw: { width: frame.width, height: frame.height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** Decode a PNG (from `import png:-` or an OSWorld /screenshot) into an RGB frame. */
export async function pngToFrame(png: Buffer): Promise<Frame> {
  const { data, info } = await (await loadSharp())(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgb: data };
}

/** Number of pixels that differ between two frames of the same size (Infinity if sizes differ). */
export function diffPixels(a: Frame, b: Frame): number {
  if (a.width !== b.width || a.height !== b.height) return Infinity;
  if (a.rgb.equals(b.rgb)) return 0;
  let n = 0;
  for (let i = 0; i < a.rgb.length; i += 3) {
    if (a.rgb[i] !== b.rgb[i] || a.rgb[i + 1] !== b.rgb[i + 1] || a.rgb[i + 2] !== b.rgb[i + 2]) n++;
  }
  return n;
}
