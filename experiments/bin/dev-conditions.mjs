// A module resolve hook for running the TypeScript sources in this repository: every import resolves
// with the "retrace-dev" export condition, so a workspace package (@retrace-cua/*) resolves to its
// sources (packages/core/src/*.ts) rather than its dist/, as `node --conditions=retrace-dev` would. Registered by
// bin/retrace.mjs only where the sources are.
export async function resolve(specifier, context, next) {
  if (context.conditions.includes("retrace-dev")) return next(specifier, context);
  return next(specifier, { ...context, conditions: [...context.conditions, "retrace-dev"] });
}
