/** What an agent sees after each step. Screenshots are blob references, never bytes. */
import type { BlobRef } from "./blob-store.ts";

/** One node of an accessibility tree. `bounds` is [x, y, width, height] in screen pixels. */
export interface AxNode {
  role: string;
  name: string;
  bounds?: [number, number, number, number];
  /** e.g. "focused", "selected", "checked", "disabled", "expanded". */
  states?: string[];
  value?: string;
  /** Text caret offset (real desktops through AT-SPI; absent where the toolkit reports none). */
  caret?: number;
  /** Selected text ranges `[start, end)` in character offsets (absent: nothing selected). */
  selections?: Array<[number, number]>;
  children?: AxNode[];
}

/** An observation of the desktop. */
export interface Observation {
  /** sha256 reference to the PNG screenshot in the run's BlobStore. */
  screenshot: BlobRef;
  width: number;
  height: number;
  /** Accessibility tree, when the environment provides one. */
  axTree?: AxNode;
  /** Free text the environment adds (terminal output, a status line). */
  text?: string;
  /**
   * Opaque id of the true state this observation was taken in, set only by ground-truth
   * environments (SimDesk). Simulated components and oracles use it; it is never shown to models.
   */
  stateId?: string;
  /**
   * sha256 reference to the probe report (JSON, packages/core/src/probes/report.ts) taken with this
   * observation, when the environment records probes (see `withProbes`). A reference, never the
   * report itself, so checkpointed state stays small.
   */
  probe?: BlobRef;
}
