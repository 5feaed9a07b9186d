/** Heuristic error-step detectors that need no model. */
export { createStagnationDetector, type StagnationDetectorOptions } from "./stagnation.ts";
export { createLoopDetector, type LoopDetectorOptions } from "./loop.ts";
export { ScreenComparator } from "./screen-compare.ts";
