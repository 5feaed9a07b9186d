/**
 * The images a request to the scripted server carried (scripted-openai-server.ts records them with
 * each request): data URLs and base64 sources, decoded, with their SHA-256.
 */
import { createHash } from "node:crypto";
import type { ReceivedImage } from "./script-types.ts";

/** Find every image in an OpenAI chat, Responses or Anthropic request body. */
export function collectImages(body: unknown): ReceivedImage[] {
  const out: ReceivedImage[] = [];
  const fromDataUrl = (url: unknown, detail?: string) => {
    if (typeof url !== "string") return;
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!m) return;
    const bytes = Buffer.from(m[2], "base64");
    out.push({
      mediaType: m[1],
      bytes,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      ...(detail && { detail }),
    });
  };
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, any>;
    if (o.type === "image_url" && o.image_url)
      fromDataUrl(typeof o.image_url === "string" ? o.image_url : o.image_url.url, o.image_url.detail);
    else if (o.type === "input_image") fromDataUrl(o.image_url, o.detail);
    else if (o.type === "image" && o.source?.type === "base64") {
      const bytes = Buffer.from(String(o.source.data), "base64");
      out.push({ mediaType: o.source.media_type, bytes, sha256: createHash("sha256").update(bytes).digest("hex") });
    } else if (o.type === "computer_call_output" && o.output?.type === "computer_screenshot")
      fromDataUrl(o.output.image_url);
    for (const key of Object.keys(o)) if (key !== "image_url" && key !== "source") walk(o[key]);
  };
  walk(body);
  return out;
}
