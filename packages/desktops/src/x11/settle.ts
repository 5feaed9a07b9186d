/**
 * Settling: after an action, poll screen frames until the screen has not changed for a quiet
 * period, with a cap. Replaces fixed sleeps: fast when the app reacts fast, patient when not.
 */
import type { Frame } from "./frame.ts";

/** Options of {@link settle}. */
export interface SettleOptions {
  /** Pause between polls in ms. @default 25 */
  pollMs?: number;
  /** The screen must stay unchanged this long, in ms. @default 200 */
  quietMs?: number;
  /** Give up waiting for stability after this long, in ms (the last frame is used). @default 4000 */
  maxMs?: number;
}

/** The outcome of {@link settle}. */
export interface Settled {
  frame: Frame;
  /** Time until the screen was stable (or the cap), in ms. */
  ms: number;
  /** False when the cap was hit while the screen was still changing. */
  stable: boolean;
  /** Frames captured. */
  polls: number;
}

/** Poll `capture` until the frame is unchanged for `quietMs`. */
export async function settle(capture: () => Promise<Frame>, options: SettleOptions = {}): Promise<Settled> {
  const pollMs = options.pollMs ?? 25;
  const quietMs = options.quietMs ?? 200;
  const maxMs = options.maxMs ?? 4000;
  const start = Date.now();
  let last = await capture();
  let lastChange = Date.now();
  let polls = 1;
  for (;;) {
    await new Promise((r) => setTimeout(r, pollMs));
    const frame = await capture();
    polls++;
    const now = Date.now();
    if (!frame.rgb.equals(last.rgb)) {
      last = frame;
      lastChange = now;
    } else if (now - lastChange >= quietMs) {
      return { frame: last, ms: now - start, stable: true, polls };
    }
    if (now - start >= maxMs) return { frame: last, ms: now - start, stable: false, polls };
  }
}
