/**
 * Model calls live in their own file per episode (`<report>-files/calls-<chunk>-<n>.js`), loaded
 * when the viewer opens that episode: a model run's calls carry whole prompts (histories,
 * accessibility trees), so keeping them out of the chunk files keeps opening a condition's
 * episodes fast however long the prompts are.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ViewEpisode } from "./viewer-types.ts";

/** The per-step payload moved out of a chunk: step index -> the step's calls and accessibility tree. */
export type EpisodeCalls = Record<number, { calls?: unknown[]; a11y?: string }>;

/**
 * Move every step's `calls` and `a11y` out of `chunks` (in place) into one payload per episode,
 * keyed "<chunk>-<n>"; each episode that had any gets `callsFile` naming its key and each step
 * `callCount`.
 */
export function splitCalls(chunks: ViewEpisode[][]): Map<string, EpisodeCalls> {
  const out = new Map<string, EpisodeCalls>();
  chunks.forEach((chunk, c) =>
    chunk.forEach((ep, n) => {
      const payload: EpisodeCalls = {};
      ep.steps.forEach((s, i) => {
        if (!s.calls?.length && !s.a11y) return;
        payload[i] = { ...(s.calls?.length ? { calls: s.calls } : {}), ...(s.a11y ? { a11y: s.a11y } : {}) };
        if (s.calls?.length) s.callCount = s.calls.length;
        delete s.calls;
        delete s.a11y;
      });
      if (Object.keys(payload).length === 0) return;
      const key = `${c}-${n}`;
      ep.callsFile = key;
      out.set(key, payload);
    }),
  );
  return out;
}

/** Write the call files; returns how many. */
export function writeCallFiles(
  dir: string,
  files: ReadonlyMap<string, EpisodeCalls>,
  json: (v: unknown) => string,
): number {
  for (const [key, payload] of files)
    writeFileSync(join(dir, `calls-${key}.js`), `window.__retraceCalls(${JSON.stringify(key)}, ${json(payload)});\n`);
  return files.size;
}
