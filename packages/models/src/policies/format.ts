/**
 * One forward agent spec for every action format, and the factory that builds its policy:
 * `pyautogui` and `uitars` over any ChatModel (OpenAI-compatible chat, LangChain), `openai-cua`
 * (Responses API computer_call) and `anthropic` (Anthropic computer-use tool) over their SDKs.
 * The same spec builds the forward agent and, through adapters/llm (createLlmRecoveryPolicy,
 * createLlmPerturbationPolicy with `agent: spec`), the recovery sub-agent and the perturbation
 * agent on the same backbone and format, as in the paper (App. B.2: "the recovery agent shares
 * the same backbone as the forward agent; the two differ only in their prompts and step budgets").
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";
import { createAnthropicPolicy, type AnthropicPolicyOptions } from "./anthropic/anthropic-policy.ts";
import type { FramablePolicy } from "./framing.ts";
import { createOpenAICuaPolicy, type OpenAICuaPolicyOptions } from "./openai-cua/openai-cua-policy.ts";
import { createPyautoguiPolicy, type PyautoguiPolicyOptions } from "./openai/pyautogui-policy.ts";
import { createUiTarsPolicy, type UiTarsPolicyOptions } from "./uitars/uitars-policy.ts";

/** The action formats a model-backed agent can write. */
export const ACTION_FORMATS = ["pyautogui", "uitars", "openai-cua", "anthropic"] as const;
/** One of {@link ACTION_FORMATS}. */
export type ActionFormat = (typeof ACTION_FORMATS)[number];

/** A model-backed agent: its action format plus that format's policy options (backbone included). */
export type AgentFormatSpec =
  | ({ format: "pyautogui"; model: ChatModel } & Omit<PyautoguiPolicyOptions, "model">)
  | ({ format: "uitars"; model: ChatModel } & Omit<UiTarsPolicyOptions, "model">)
  | ({ format: "openai-cua" } & OpenAICuaPolicyOptions)
  | ({ format: "anthropic" } & AnthropicPolicyOptions);

/** Build the policy of a spec; a ConfigError names a missing model or an unknown format. */
export function createFormatPolicy(spec: AgentFormatSpec): FramablePolicy {
  if (!spec || typeof spec !== "object") throw new ConfigError("agent: expected { format, ... }", { field: "agent" });
  switch (spec.format) {
    case "pyautogui":
    case "uitars": {
      const { format, ...options } = spec;
      if (!options.model || typeof options.model.complete !== "function") {
        throw new ConfigError(`agent.model: format "${format}" needs a ChatModel (an object with complete(request))`, {
          field: "agent.model",
        });
      }
      return format === "pyautogui"
        ? createPyautoguiPolicy(options as PyautoguiPolicyOptions)
        : createUiTarsPolicy(options as UiTarsPolicyOptions);
    }
    case "openai-cua": {
      const { format: _f, ...options } = spec;
      return createOpenAICuaPolicy(options);
    }
    case "anthropic": {
      const { format: _f, ...options } = spec;
      return createAnthropicPolicy(options);
    }
    default:
      throw new ConfigError(
        `agent.format: must be one of ${ACTION_FORMATS.map((f) => `"${f}"`).join(", ")}, got ${JSON.stringify((spec as { format?: unknown }).format)}`,
        { field: "agent.format" },
      );
  }
}
