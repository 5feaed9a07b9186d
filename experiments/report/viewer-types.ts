/**
 * The shapes the trajectory viewer reads (./viewer-data.ts writes them into the index and chunk files): an episode,
 * its steps with the marks drawn on their screenshots, and its events as sentences. Types only.
 */
import type { ContextView, ViewerCall } from "./viewer-calls.ts";

export type { ViewerCall, ContextView } from "./viewer-calls.ts";

/** A mark the viewer draws on a screenshot, in screen pixels. */
export type ViewerMark =
  | { t: "click"; x: number; y: number; label: string }
  | { t: "drag"; x: number; y: number; x2: number; y2: number }
  | { t: "text"; text: string; x?: number; y?: number };

/** A step as the viewer shows it (screenshots as URLs relative to the report file). */
export interface ViewStep {
  /**
   * The step number shown everywhere: position in the episode from 0, across every role (never restarts after a
   * restore).
   */
  n: number;
  seq: number;
  role: string;
  /** The step's index in the task history (forward) or in its recovery attempt. */
  step: number;
  attempt?: number;
  actions: string[];
  marks: ViewerMark[];
  response?: string;
  failure?: string;
  detection?: { isError: boolean; errorStep: number | null; reason: string; confidence: number; failure?: string };
  frozen?: boolean;
  /** "E1" (first error found by attempt 1's detection), "R1" (its recovery step). */
  flags?: string[];
  /** The retry cap, on a forward step the detector did not judge because the cap was spent (the detector is off). */
  detectorOff?: number;
  /**
   * Ground truth (the environment's reference path, e.g. SimDesk's): on the step a failed episode went off track for
   * good, why (the record's `offTrack`).
   */
  offTrack?: string;
  /** The model calls recorded against this step when they were made (the episode's call log; see viewer-calls.ts). */
  calls?: ViewerCall[];
  /** First forward step after a restoration: the history cut and the context the policy saw. */
  context?: ContextView;
  /** Accessibility tree the policy received with this step's screen, when its observation had one. */
  a11y?: string;
  /** How many calls the step has, once `calls` moved to the episode's call file (call-files.ts). */
  callCount?: number;
  before: string;
  after: string;
}

/** An event of the episode as a sentence, with the screenshots it compares. */
export interface ViewerEvent {
  afterSeq: number;
  kind: string;
  text: string;
  /** Recovery end: the target screenshot and the restored one. */
  target?: string;
  restored?: string;
  /**
   * Recovery end: SSIM of target vs restored per 8x8 block of a 160x96 grayscale thumbnail, row-major, 20 x 12 values
   * in [0, 1].
   */
  ssimMap?: number[];
}

/** An episode for the viewer (loaded on demand from its chunk file). */
export interface ViewEpisode {
  key: string;
  instruction: string;
  score: number;
  detail: string;
  stopReason: string;
  simulated: boolean;
  steps: ViewStep[];
  events: ViewerEvent[];
  /** What the episode is (ideal recovery's phase, strategy, R and k), in words; "" for plain episodes. */
  about: string;
  /** The key of the file holding its steps' calls and accessibility trees (call-files.ts), when it has any. */
  callsFile?: string;
}
