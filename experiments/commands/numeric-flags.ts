/** The commands' numeric flags: the one parser, in packages/core/src/numeric-flags.ts (environment variables use it too). */
export {
  optionalIntFlag,
  optionalNumberFlag,
  parseIntFlag,
  parseIntListFlag,
  parseNumberFlag,
  type NumericFlagOptions,
} from "@retrace-cua/core/numeric-flags";
