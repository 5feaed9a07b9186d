/**
 * What the stand-in reads from a chat-completions request: the messages' text (images only as
 * opaque ids), which role the prompt asks it to play, the task, the screen size and the
 * linearized accessibility trees it was shown. Nothing else: no side channel to the environment.
 */
import { createHash } from "node:crypto";
import { unescapeCell } from "@retrace-cua/models/policies/observation";

/** The roles retrace's prompts ask a model to play. */
export type StandInRole =
  "forward" | "recovery" | "perturber" | "detector" | "selector" | "summarizer" | "verifier" | "unknown";

/** One message, flattened. */
export interface ReadMessage {
  role: string;
  /** Text parts joined with newlines. */
  text: string;
  /** sha256 of each image's data URL, in order. */
  images: string[];
  /** Text and image parts in order (images as `{ image: sha }`). */
  parts: Array<{ text: string } | { image: string }>;
}

/** A parsed request. */
export interface ReadRequest {
  messages: ReadMessage[];
  /** Every message's text, joined: what the draw is keyed on. */
  text: string;
  role: StandInRole;
  temperature: number;
  seed?: number;
  model?: string;
}

/** One line of a linearized accessibility tree. */
export interface TreeLine {
  role: string;
  name: string;
  value: string;
  states: string[];
  x: number;
  y: number;
  w: number;
  h: number;
  /** The raw line. */
  raw: string;
}

/** Flatten an OpenAI chat request body. */
export function readRequest(body: any): ReadRequest {
  const messages: ReadMessage[] = (Array.isArray(body?.messages) ? body.messages : []).map((m: any) => {
    const parts: ReadMessage["parts"] = [];
    const content = m?.content;
    if (typeof content === "string") parts.push({ text: content });
    else if (Array.isArray(content))
      for (const p of content) {
        if (p?.type === "text" && typeof p.text === "string") parts.push({ text: p.text });
        else if (p?.type === "image_url") {
          const url = typeof p.image_url === "string" ? p.image_url : String(p.image_url?.url ?? "");
          parts.push({ image: createHash("sha256").update(url).digest("hex") });
        }
      }
    const text = parts.flatMap((p) => ("text" in p ? [p.text] : [])).join("\n");
    const images = parts.flatMap((p) => ("image" in p ? [p.image] : []));
    return { role: String(m?.role ?? "user"), text, images, parts };
  });
  const text = messages.map((m) => `[${m.role}]\n${m.text}`).join("\n");
  return {
    messages,
    text,
    role: roleOf(text),
    temperature: typeof body?.temperature === "number" ? body.temperature : 1,
    ...(Number.isInteger(body?.seed) && { seed: body.seed as number }),
    ...(typeof body?.model === "string" && { model: body.model }),
  };
}

/** Which role a prompt asks for, from the markers of retrace's prompts (packages/core/src/prompts/*.ts). */
export function roleOf(text: string): StandInRole {
  if (text.includes("RECOVERY MODE")) return "recovery";
  if (/must NOT be completed|opposite of finishing the task/.test(text)) return "perturber";
  if (text.includes('"off_track"')) return "detector";
  if (text.includes('"recovery_step"')) return "selector";
  if (text.includes("TARGET STATE") && /briefing/i.test(text)) return "summarizer";
  if (text.includes('"verdict"')) return "verifier";
  if (/pyautogui/.test(text)) return "forward";
  return "unknown";
}

/** The screen size a forward-style prompt states ("The screen is WxH pixels"), else from a tree, else 1280x800. */
export function screenOf(text: string, tree?: TreeLine[]): { width: number; height: number } {
  const m = /The screen is (\d+)x(\d+) pixels/.exec(text);
  if (m) return { width: Number(m[1]), height: Number(m[2]) };
  const root = tree?.find((l) => l.role === "desktop frame");
  if (root) return { width: root.w, height: root.h };
  return { width: 1280, height: 800 };
}

const TREE_MARK = "Accessibility tree:\n";

/** Every linearized tree in a text, in order, as its raw text (header included). */
export function treeTexts(text: string): string[] {
  const out: string[] = [];
  let i = text.indexOf(TREE_MARK);
  while (i >= 0) {
    const start = i + TREE_MARK.length;
    const lines = text.slice(start).split("\n");
    const kept: string[] = [];
    for (const [n, line] of lines.entries()) {
      if (n > 0 && line.split("\t").length < 6) break;
      kept.push(line);
    }
    out.push(kept.join("\n"));
    i = text.indexOf(TREE_MARK, start);
  }
  return out;
}

/** Parse a linearized tree (packages/models/src/policies/observation.ts) into lines. */
export function parseTree(text: string): TreeLine[] {
  const out: TreeLine[] = [];
  for (const raw of text.split("\n").slice(1)) {
    const cols = raw.split("\t");
    if (cols.length < 6) continue;
    const pos = /\((-?\d+), (-?\d+)\)/.exec(cols[4]);
    const dim = /\((\d+), (\d+)\)/.exec(cols[5]);
    if (!pos || !dim) continue;
    out.push({
      role: unescapeCell(cols[0]),
      name: unescapeCell(cols[1]),
      value: unescapeCell(cols[2]),
      states: cols[3] ? cols[3].split(",") : [],
      x: Number(pos[1]),
      y: Number(pos[2]),
      w: Number(dim[1]),
      h: Number(dim[2]),
      raw,
    });
  }
  return out;
}

/** The window or dialog a line sits in: the last such line before it whose box holds its centre. */
export function containerOf(lines: readonly TreeLine[], index: number): string {
  const l = lines[index];
  const cx = l.x + l.w / 2;
  const cy = l.y + l.h / 2;
  for (let i = index - 1; i >= 0; i--) {
    const c = lines[i];
    if (
      (c.role === "window" || c.role === "dialog" || c.role === "menu" || c.role === "tool bar") &&
      cx >= c.x &&
      cx < c.x + c.w &&
      cy >= c.y &&
      cy < c.y + c.h
    )
      return `${c.role}:${c.name}`;
  }
  return "desktop";
}

/** `Step i action: ...` / `Step i: ...` lines of a text, by step index (the last one wins). */
export function stepLines(text: string, form: "action" | "plain"): Map<number, string> {
  const re = form === "action" ? /^Step (\d+) action: (.*)$/gm : /^Step (\d+): (.*)$/gm;
  const out = new Map<number, string>();
  for (const m of text.matchAll(re)) out.set(Number(m[1]), m[2]);
  return out;
}
