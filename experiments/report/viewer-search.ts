/**
 * The viewer's text search: the normalised words of an episode that its index row carries (client.ts splits a query
 * the same way).
 */
import type { ViewEpisode } from "./viewer-types.ts";

/**
 * What separates search words, in the index and in the viewer's query alike (client.ts splits a query the same way).
 */
export const SEARCH_SPLIT = /[^\p{L}\p{N}]+/u;

/**
 * The distinct normalised words of `text` for the search index: lower case, split at every
 * character that is not a letter or digit (so "PRESS(esc)" is "press" and "esc", as the viewer
 * splits a query), without single characters, pure numbers (coordinates, counts) and hashes.
 */
export function searchTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(SEARCH_SPLIT)
    .filter((w) => w.length > 1 && !/^\d+$/.test(w) && !/^[0-9a-f]{16,}$/.test(w));
}

/**
 * The episode's words for the viewer's text search (each once, normalised by {@link searchTokens}):
 * actions, responses, reasons, events and model replies, less the words of `known` (the index
 * row's task, condition name and instruction, searched anyway), at most `limit` characters.
 */
export function searchWords(ep: ViewEpisode, limit = 20_000, known = ""): string {
  const texts: string[] = [ep.about, ep.detail];
  for (const s of ep.steps) {
    texts.push(...s.actions, s.response ?? "", s.detection?.reason ?? "", s.failure ?? "", s.offTrack ?? "");
    for (const c of s.calls ?? []) texts.push(c.reply);
  }
  for (const e of ep.events) texts.push(e.text);
  const seen = new Set<string>(searchTokens(known));
  const out: string[] = [];
  let n = 0;
  for (const w of searchTokens(texts.join(" "))) {
    if (seen.has(w) || n + w.length + 1 > limit) continue;
    seen.add(w);
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}
