/**
 * A screenshot as the SDK computers hand it to the SDK's model (base64), checked first: a blob of
 * 0 bytes or one holding no image is a ConfigError naming the environment function that produced
 * it (`checkScreenshotBytes`, packages/core/src/runtime/user-results.ts), never an image sent to the model.
 */
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Observation } from "@retrace-cua/core/observation";
import { checkScreenshotBytes } from "@retrace-cua/core/runtime/user-results";

/**
 * The observation's screenshot as base64, after checking its bytes; `fn` names where it came from (e.g.
 * "environment.observe()").
 */
export async function screenshotBase64(blobs: BlobReader, observation: Observation, fn: string): Promise<string> {
  return Buffer.from(
    checkScreenshotBytes(await blobs.get(observation.screenshot), observation.screenshot, fn),
  ).toString("base64");
}
