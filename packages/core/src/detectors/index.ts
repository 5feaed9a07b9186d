/** Heuristic error-step detectors that need no model. */
export { createStagnationDetector, type StagnationDetectorOptions } from "./stagnation.ts";
export { createLoopDetector, type LoopDetectorOptions } from "./loop.ts";
export { ScreenComparator } from "./screen-compare.ts";
export {
  createCascadeDetector,
  parseCascadeGates,
  CascadeGateSpecSchema,
  DEFAULT_CASCADE_GATES,
  type CascadeDetectorOptions,
  type CascadeGateSpec,
} from "./cascade.ts";
