/**
 * Validating a policy's (forward or recovery) raw decision: model output is untrusted data, so
 * invalid actions turn the step into a recorded failure, never an exception. Used by the graph's
 * `propose` node and by the recovery sub-agent's step (./recovery-agent.ts).
 */
import { ActionSchema, type Action } from "../action.ts";
import type { PolicyDecision } from "../policy.ts";

/** Validate a policy's decision; invalid actions turn the step into a recorded failure. */
export function sanitizeDecision(raw: unknown): PolicyDecision {
  if (!raw || typeof raw !== "object")
    return { actions: [], failure: { kind: "empty", message: "the policy returned no decision" } };
  const d = raw as PolicyDecision;
  const usage = Array.isArray(d.usage) ? d.usage : undefined;
  const base: PolicyDecision = {
    actions: [],
    ...(typeof d.response === "string" ? { response: d.response } : {}),
    ...(d.memo !== undefined ? { memo: d.memo } : {}),
    ...(usage ? { usage } : {}),
  };
  if (d.failure) return { ...base, failure: d.failure };
  if (!Array.isArray(d.actions))
    return { ...base, failure: { kind: "unparseable", message: "decision.actions is not an array" } };
  const actions: Action[] = [];
  for (const a of d.actions) {
    const parsed = ActionSchema.safeParse(a);
    if (!parsed.success)
      return {
        ...base,
        failure: {
          kind: "unparseable",
          message: `invalid action ${JSON.stringify(a)}: ${parsed.error.issues[0].message}`,
        },
      };
    actions.push(parsed.data);
  }
  if (actions.length === 0) return { ...base, failure: { kind: "empty", message: "the policy proposed no action" } };
  return { ...base, actions };
}
