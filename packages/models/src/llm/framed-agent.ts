/**
 * The forward agent of a format spec, reused under a prompt framing by the recovery and
 * perturbation agents: the spec's policy built once (with the role's own image/sampling
 * overrides), and one guarded framed call that turns timeouts and unexpected transport errors
 * into a recorded `model-error` step instead of a crash. Cancellation still throws.
 */
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import type { PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import { createFormatPolicy, type AgentFormatSpec } from "../policies/format.ts";
import type { FramablePolicy, PromptFraming } from "../policies/framing.ts";
import { raceAbort } from "./call.ts";

/** Per-role overrides of the agent's own options; undefined keeps the agent's value. */
export interface AgentOverrides {
  historyImages?: number;
  detail?: "low" | "high" | "auto";
  temperature?: number;
  maxTokens?: number;
}

/** Build `spec`'s policy with the overrides that its format supports. */
export function framedAgent(spec: AgentFormatSpec, overrides: AgentOverrides, what: string): FramablePolicy {
  if (!spec || typeof spec !== "object")
    throw new ConfigError(`${what}: option "agent" must be an agent spec ({ format, ... })`, { field: "agent" });
  const set = <K extends keyof AgentOverrides>(keys: K[]) =>
    Object.fromEntries(keys.filter((k) => overrides[k] !== undefined).map((k) => [k, overrides[k]]));
  switch (spec.format) {
    case "pyautogui":
    case "uitars":
      return createFormatPolicy({ ...spec, ...set(["historyImages", "detail", "temperature", "maxTokens"]) });
    case "anthropic":
      return createFormatPolicy({ ...spec, ...set(["historyImages", "temperature", "maxTokens"]) });
    default:
      return createFormatPolicy(spec);
  }
}

/** One framed decision; never throws on model trouble (only on cancellation and ConfigError). */
export async function proposeGuarded(
  policy: FramablePolicy,
  input: Omit<PolicyInput, "signal">,
  framing: PromptFraming,
  opts: { timeoutMs?: number; signal?: AbortSignal },
): Promise<PolicyDecision> {
  const timeout = opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined;
  const signals = [opts.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  // Always a fresh per-call signal: vendor SDKs (openai, @anthropic-ai/sdk) add an "abort"
  // listener to the signal they get and never remove it, so handing them the episode's long-lived
  // signal piles up listeners call after call (MaxListenersExceededWarning after 10 calls).
  const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
  try {
    return await raceAbort(policy.propose({ ...input, ...(signal ? { signal } : {}) }, framing), signal);
  } catch (err) {
    if (opts.signal?.aborted || err instanceof ConfigError) throw err;
    const message = timeout?.aborted
      ? `model call timed out after ${opts.timeoutMs} ms`
      : `model call failed: ${describeError(err)}`;
    return { actions: [], failure: { kind: "model-error", message } };
  }
}
