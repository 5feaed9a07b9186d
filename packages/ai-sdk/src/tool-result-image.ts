/**
 * A PNG screenshot as one part of a tool result's `content` output, in the shape the installed `ai`
 * reads without a deprecation. ai 7 reads `{ type: "file", data: { type: "data", data }, mediaType }`
 * and warns AISDK_DEP_TOOL_RESULT_IMAGE_DATA on the older `{ type: "image-data", data, mediaType }`;
 * ai 6 has only the older shape (its tool results carry no tagged file data). The major is read
 * once from the `ai` package this module resolves (the one the caller's generateText runs).
 */
import { createRequire } from "node:module";

/** The part ai 6 reads (deprecated in ai 7). */
export interface ImageDataPart {
  type: "image-data";
  data: string;
  mediaType: string;
}

/** The part ai 7 reads. */
export interface FileDataPart {
  type: "file";
  data: { type: "data"; data: string };
  mediaType: string;
}

let aiMajor: number | undefined;

/** The major version of the resolvable `ai` package (6 when it cannot be read: the older shape works there). */
export function installedAiMajor(): number {
  if (aiMajor === undefined) {
    try {
      const { version } = createRequire(import.meta.url)("ai/package.json") as { version?: unknown };
      const major = Number.parseInt(String(version), 10);
      aiMajor = Number.isInteger(major) ? major : 6;
    } catch {
      aiMajor = 6;
    }
  }
  return aiMajor;
}

/**
 * The tool-result content part of a base64 PNG for `major` (@default the installed ai's). Typed as
 * ai 6's part: the repo compiles against ai 6, whose types do not name ai 7's file part.
 */
export function toolResultImage(base64Png: string, major = installedAiMajor()): ImageDataPart {
  if (major >= 7)
    return {
      type: "file",
      data: { type: "data", data: base64Png },
      mediaType: "image/png",
    } satisfies FileDataPart as unknown as ImageDataPart;
  return { type: "image-data", data: base64Png, mediaType: "image/png" };
}
