/**
 * Token usage as a model server reports it, for the stand-in's answers.
 *
 * - Text: counted with a real BPE tokenizer, OpenAI's `o200k_base` (GPT-4o's encoding) from
 *   `js-tiktoken`, loaded on first use (so nothing that merely imports retrace/testing loads it).
 *   Chat framing is counted the way OpenAI's cookbook counts it: 3 tokens per message, 1 for a
 *   name, 3 to prime the reply.
 * - Images: OpenAI's published rule for GPT-4o-class vision input. `detail: "low"`: 85 tokens.
 *   Otherwise the image is scaled to fit 2048x2048, then so its shorter side is at most 768;
 *   it costs 85 + 170 per 512x512 tile of the result (a 1280x800 screenshot: 6 tiles, 1105
 *   tokens). The size is read from the PNG or JPEG header of the data URL; an image whose size
 *   cannot be read is counted as 1024x1024 (765 tokens).
 */
import { createHash } from "node:crypto";
import { InternalError } from "@retrace-cua/core/errors";

type Encoder = { encode(text: string): number[] };
let encoder: Encoder | undefined;

/** Load the tokenizer (once). */
export async function loadTokenizer(): Promise<void> {
  if (encoder) return;
  const [{ Tiktoken }, ranks] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
  encoder = new Tiktoken(ranks.default);
}

/** Tokens of a text (o200k_base). Call {@link loadTokenizer} first. */
export function textTokens(text: string): number {
  if (!encoder) throw new InternalError("stand-in: the tokenizer is not loaded (call loadTokenizer first)");
  return text ? encoder.encode(text).length : 0;
}

/** Width and height of a PNG or JPEG given as bytes, if its header says. */
export function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47)
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1];
      const len = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      i += 2 + len;
    }
  }
  return undefined;
}

/** OpenAI's vision token count for an image of this size at this detail. */
export function imageTokens(size: { width: number; height: number } | undefined, detail?: string): number {
  if (detail === "low") return 85;
  let { width: w, height: h } = size ?? { width: 1024, height: 1024 };
  if (w <= 0 || h <= 0) return 85;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** The bytes of a data URL (undefined for a remote URL). */
function dataUrlBytes(url: string): Buffer | undefined {
  const m = /^data:[^;,]*;base64,/.exec(url);
  return m ? Buffer.from(url.slice(m[0].length, m[0].length + 4096), "base64") : undefined;
}

/** Prompt tokens of a chat-completions body: text, images and chat framing. */
export function promptTokens(body: any): number {
  return promptTokenIds(body).length;
}

// Framing and image tokens have no o200k id: they get negative ones, so they never equal a text token.
const MESSAGE_START = -1;
const MESSAGE_SEP = -2;
const MESSAGE_END = -3;
const NAME = -4;
const REPLY_PRIMER = -5;

/**
 * The prompt of a chat-completions body as a token sequence, counted as {@link promptTokens}
 * counts it (its length is the prompt's token count): per message a start, the role, a separator,
 * the content, an end (3 framing tokens per message, 1 more before a name), and 3 to prime the
 * reply. Text tokens are their o200k ids; an image is as many copies of an id derived from its
 * URL as it costs tokens, so two prompts share a prefix exactly as far as their messages agree.
 * What the stand-in's prefix cache compares (./prefix-cache.ts).
 */
export function promptTokenIds(body: any): number[] {
  if (!encoder) throw new InternalError("stand-in: the tokenizer is not loaded (call loadTokenizer first)");
  const enc = encoder;
  const out: number[] = [];
  const text = (t: string) => {
    if (t) for (const id of enc.encode(t)) out.push(id);
  };
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    out.push(MESSAGE_START);
    text(String(m?.role ?? ""));
    if (typeof m?.name === "string") {
      out.push(NAME);
      text(m.name);
    }
    out.push(MESSAGE_SEP);
    const content = m?.content;
    if (typeof content === "string") text(content);
    else if (Array.isArray(content))
      for (const p of content) {
        if (p?.type === "text" && typeof p.text === "string") text(p.text);
        else if (p?.type === "image_url") {
          const url = typeof p.image_url === "string" ? p.image_url : String(p.image_url?.url ?? "");
          const bytes = dataUrlBytes(url);
          const n = imageTokens(bytes ? imageSize(bytes) : undefined, p.image_url?.detail);
          const id = imageId(url, p.image_url?.detail);
          for (let i = 0; i < n; i++) out.push(id);
        }
      }
    out.push(MESSAGE_END);
  }
  out.push(REPLY_PRIMER, REPLY_PRIMER, REPLY_PRIMER);
  return out;
}

/** A negative id naming an image (its URL and detail), below the framing ids. */
function imageId(url: string, detail: unknown): number {
  const h = createHash("sha256")
    .update(url)
    .update("\u0000")
    .update(String(detail ?? ""))
    .digest();
  return -16 - (h.readUInt32BE(0) & 0x3fffffff);
}
