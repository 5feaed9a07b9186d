/**
 * The `openai-agents`, `ai-sdk` and `stagehand` kinds: a team's SDK agent as the forward agent of
 * an experiment, `forward: { kind: openai-agents, module: ./my-agent.ts, export: agent }` (an OpenAI
 * Agents SDK `Agent` with a computer tool), `forward: { kind: ai-sdk, ... }` (Vercel AI SDK
 * `generateText` settings `{ model, tools, system }` with a computer tool) or
 * `forward: { kind: stagehand, ... }` (the `AgentConfig` of a Stagehand hybrid agent). The
 * runtime drives them one step at a time (adapters/sdk/<sdk>/forward-policy.ts) with their own
 * model, instructions and tools; their actions run on the experiment's environment.
 */
import type { ForwardPolicy, PolicyInput } from "@retrace-cua/core/policy";
// Types only: the SDK adapters are imported when an SDK agent takes its first step, so no other
// command loads the SDKs (the Agents SDK installs process-wide signal and rejection handlers).
import type { OpenAIAgent as Agent } from "@retrace-cua/openai-agents/forward-policy";
import type { AiSdkAgentSettings } from "@retrace-cua/ai-sdk/forward-policy";
import { stagehandConfigProblem, type StagehandAgentConfig } from "@retrace-cua/stagehand/config";
import type { AgentKind } from "./kind.ts";
import type { AgentOf, AgentRole } from "./roles.ts";
import { checkSdkModule, loadSdkExport, sdkAgentSpecSchema, type SdkAgentSpec } from "./sdk-module.ts";

function openAIAgentProblem(x: unknown): string | undefined {
  if (
    !x ||
    typeof x !== "object" ||
    !Array.isArray((x as Agent).tools) ||
    typeof (x as Agent).getSystemPrompt !== "function"
  )
    return "not an OpenAI Agents SDK Agent (nor a function returning one)";
  if (!(x as Agent).tools.some((t) => t.type === "computer"))
    return "the agent has no computer tool (computerTool({ computer }))";
  return undefined;
}

function aiSdkProblem(x: unknown): string | undefined {
  const s = x as Partial<AiSdkAgentSettings> | undefined;
  if (!s || typeof s !== "object" || !s.model || !s.tools || typeof s.tools !== "object")
    return "not AI SDK agent settings { model, tools, system } (nor a function returning them)";
  const name = s.computerTool ?? "computer";
  if (!(name in s.tools))
    return `its tools have no ${JSON.stringify(name)} (the computer tool; name another with computerTool)`;
  return undefined;
}

/** A forward policy that loads the module on its first step. */
function lazyPolicy(name: string, load: () => Promise<ForwardPolicy>): ForwardPolicy {
  let inner: Promise<ForwardPolicy> | undefined;
  return {
    name,
    async propose(input: PolicyInput) {
      return (await (inner ??= load())).propose(input);
    },
  };
}

/**
 * A forward-only, non-simulated registry entry for an SDK agent exported by a module: the export
 * is loaded (and checked with `problem`) on the first step, then `policyOf` turns it into the policy.
 */
function sdkForwardKind<T>(
  kind: string,
  what: string,
  problem: (value: unknown) => string | undefined,
  policyOf: (value: T) => Promise<ForwardPolicy>,
): AgentKind<SdkAgentSpec> {
  const schema = sdkAgentSpecSchema(kind, "agent");
  return {
    kind,
    roles: ["forward"],
    simulated: false,
    schema: () => schema,
    check: (_role, spec) => checkSdkModule(spec),
    create<R extends AgentRole>(_role: R, spec: SdkAgentSpec): AgentOf[R] {
      return lazyPolicy(`${kind}:${spec.module}#${spec.export}`, () =>
        loadSdkExport<T>(spec, what, problem).then(policyOf),
      ) as AgentOf[R];
    },
  };
}

/** The registry entry of `kind: openai-agents` (forward only; not simulated: a real model answers). */
export const OPENAI_AGENTS_KIND = sdkForwardKind<Agent>(
  "openai-agents",
  "an OpenAI Agents SDK Agent",
  openAIAgentProblem,
  async (agent) => (await import("@retrace-cua/openai-agents/forward-policy")).agentForwardPolicy(agent),
);

/** The registry entry of `kind: ai-sdk` (forward only; not simulated). */
export const AI_SDK_KIND = sdkForwardKind<AiSdkAgentSettings>(
  "ai-sdk",
  "AI SDK agent settings",
  aiSdkProblem,
  async (settings) => (await import("@retrace-cua/ai-sdk/forward-policy")).aiSdkForwardPolicy(settings),
);

/** The registry entry of `kind: stagehand` (forward only; not simulated; hybrid-mode agents). */
export const STAGEHAND_KIND = sdkForwardKind<StagehandAgentConfig>(
  "stagehand",
  "a Stagehand AgentConfig",
  stagehandConfigProblem,
  async (config) => (await import("@retrace-cua/stagehand/forward-policy")).stagehandForwardPolicy(config),
);
