/**
 * Secret hygiene for model backends: the redaction itself lives in `packages/core/src/secrets.ts` (every write
 * point uses it); this module is where the adapters import it from.
 */
export { redactSecrets, registerSecret } from "@retrace-cua/core/secrets";
