/** Error-step detection: has the trajectory gone off track, and at which step did it start? */
import type { BlobReader } from "./blob-store.ts";
import type { Observation } from "./observation.ts";
import type { HistoryEntry } from "./policy.ts";
import type { TaskSpec } from "./task.ts";
import type { ModelUsage } from "./usage.ts";

/** What a detector is shown after forward step t-1 executed. */
export interface DetectorInput {
  task: TaskSpec;
  /** Forward history entries 0..t-1 (each with its observation and actions). */
  history: readonly HistoryEntry[];
  /** The observation o_t produced by the last action. */
  observation: Observation;
  /** Index t of the upcoming forward step (= history length). */
  step: number;
  /** Episode tick, as in PolicyInput.tick. */
  tick: number;
  /**
   * True when the policy's next proposal ends the episode (DONE/FAIL). The runtime sets it only
   * when it asks a cascade again about a step the cascade had let pass (`before-done` gate).
   */
  ending?: boolean;
  blobs: BlobReader;
  signal?: AbortSignal;
}

/** A detector's verdict. Data, never an exception. */
export interface Detection {
  isError: boolean;
  /** First erroneous step E (index of the first wrong action a_E), when `isError`. */
  errorStep: number | null;
  reason: string;
  /** 0..1. */
  confidence: number;
  /** Set when the detector itself failed (timeout, garbage output); `isError` is then false. */
  failure?: string;
  usage?: ModelUsage[];
  /** `id@version` of the prompt, for LLM detectors. */
  prompt?: string;
  /**
   * Set by a cascade detector: the gates that opened at this step, whether the expensive detector
   * was asked, and whether a gate fired on its own. Counted into `accounting.detectorGates`.
   */
  cascade?: { gates: string[]; asked: boolean; firedBy?: string };
}

/** Queried once per forward step (outside the freeze window). */
export interface ErrorDetector {
  readonly name: string;
  readonly simulated?: boolean;
  /**
   * "model" when a call takes a model round-trip (seconds): the runtime then overlaps it with the
   * policy's next proposal by default (`detection: "auto"`). Absent = "instant".
   */
  readonly latency?: "instant" | "model";
  /**
   * Where the judge is (e.g. `http://127.0.0.1:8000/v1 model qwen`), named when recovery degrades. Absent = the name.
   */
  readonly endpoint?: string;
  detect(input: DetectorInput): Promise<Detection>;
}

/** A detection that triggers nothing; used when a detector fails (fail-safe). */
export function noDetection(reason: string, failure?: string): Detection {
  return { isError: false, errorStep: null, reason, confidence: 0, ...(failure ? { failure } : {}) };
}
