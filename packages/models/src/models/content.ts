/**
 * Turning our provider-neutral chat messages into what the wire wants: screenshots are stored as
 * blob references and become base64 data URLs only at the moment of sending.
 */
import { loadSharp } from "@retrace-cua/core/image/sharp";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { ChatMessage } from "@retrace-cua/core/model";
import { AdapterError } from "@retrace-cua/core/errors";

/**
 * A screenshot's bytes for sending; a 0-byte one is refused (issue 41: it was sent to models as an
 * image and the run reported ok). The environment's screenshot/observe produced it.
 */
export async function screenshotBytes(blobs: BlobReader, ref: string): Promise<Uint8Array> {
  const bytes = await blobs.get(ref);
  if (!bytes || bytes.length === 0)
    throw new AdapterError(
      `screenshot ${ref.slice(0, 12)} is 0 bytes: the environment's screenshot/observe returned an empty image, not sent to the model`,
      { retryable: false },
    );
  return bytes;
}

/** MIME type of image bytes from their magic number (PNG is what our blob stores hold). */
export function imageMediaType(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "image/jpeg";
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46) return "image/webp";
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return "image/gif";
  return "image/png";
}

/** `data:<mime>;base64,...` for image bytes. */
export function imageDataUrl(bytes: Uint8Array): string {
  return `data:${imageMediaType(bytes)};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** PNG bytes scaled down (never up, aspect kept) so that neither side exceeds `maxSide` pixels. */
export async function downscale(bytes: Uint8Array, maxSide: number): Promise<Uint8Array> {
  return (await loadSharp())(bytes)
    .resize(maxSide, maxSide, { fit: "inside", withoutEnlargement: true })
    .png()
    .toBuffer();
}

/** An OpenAI chat-completions message (the subset we send). */
export type OpenAIWireMessage =
  | { role: "system" | "assistant"; content: string }
  | {
      role: "user";
      content:
        | string
        | (
            | { type: "text"; text: string }
            | { type: "image_url"; image_url: { url: string; detail?: "low" | "high" | "auto" } }
          )[];
    };

/**
 * Resolve image references and build chat-completions messages. Images in system/assistant turns are sent in a user
 * turn (APIs reject them elsewhere).
 */
export async function toOpenAIMessages(
  messages: readonly ChatMessage[],
  blobs: BlobReader,
): Promise<OpenAIWireMessage[]> {
  const cache = new Map<string, string>();
  const url = async (ref: string, maxSide?: number) => {
    const key = maxSide ? `${ref}@${maxSide}` : ref;
    let u = cache.get(key);
    if (!u)
      cache.set(
        key,
        (u = imageDataUrl(
          maxSide ? await downscale(await screenshotBytes(blobs, ref), maxSide) : await screenshotBytes(blobs, ref),
        )),
      );
    return u;
  };
  const out: OpenAIWireMessage[] = [];
  for (const m of messages) {
    if (typeof m.content === "string") {
      out.push({ role: m.role, content: m.content } as OpenAIWireMessage);
      continue;
    }
    const hasImage = m.content.some((p) => p.type === "image");
    if (m.role !== "user" && !hasImage) {
      out.push({ role: m.role, content: m.content.map((p) => (p.type === "text" ? p.text : "")).join("") });
      continue;
    }
    const parts = [];
    for (const p of m.content) {
      if (p.type === "text") parts.push({ type: "text" as const, text: p.text });
      else
        parts.push({
          type: "image_url" as const,
          image_url: { url: await url(p.blob, p.maxSide), ...(p.detail && { detail: p.detail }) },
        });
    }
    out.push({ role: "user", content: parts });
  }
  return out;
}

/**
 * Placeholder for a screenshot inside a vendor request body before it is sent (keeps cache keys small and symbolic).
 */
export const BLOB_URL_PREFIX = "retrace-blob:";

/** The placeholder URL of a blob; with `size`, the image is resized to exactly that many pixels when sent. */
export function blobUrl(ref: string, size?: { width: number; height: number }): string {
  return BLOB_URL_PREFIX + ref + (size ? `@${size.width}x${size.height}` : "");
}

/**
 * A deep copy of a request body with every `retrace-blob:<ref>` string replaced: by a data URL
 * (`as: "data-url"`) or by bare base64 (`as: "base64"`, Anthropic's image source).
 */
export async function materializeBlobUrls<T>(
  value: T,
  blobs: BlobReader,
  as: "data-url" | "base64" = "data-url",
): Promise<T> {
  const cache = new Map<string, string>();
  const walk = async (v: unknown): Promise<unknown> => {
    if (typeof v === "string" && v.startsWith(BLOB_URL_PREFIX)) {
      const key = v.slice(BLOB_URL_PREFIX.length);
      let out = cache.get(key);
      if (out === undefined) {
        const [ref, size] = key.split("@");
        let bytes: Uint8Array = await screenshotBytes(blobs, ref);
        if (size) {
          const [width, height] = size.split("x").map(Number);
          bytes = await (await loadSharp())(bytes).resize(width, height, { fit: "fill" }).png().toBuffer();
        }
        out = as === "data-url" ? imageDataUrl(bytes) : Buffer.from(bytes).toString("base64");
        cache.set(key, out);
      }
      return out;
    }
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v && typeof v === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = await walk(x);
      return o;
    }
    return v;
  };
  return (await walk(value)) as T;
}
