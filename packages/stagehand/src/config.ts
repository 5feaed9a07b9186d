/**
 * The shape of a Stagehand agent given to the `stagehand` experiment kind: the `AgentConfig` a
 * team passes to `stagehand.agent(config)`. Checked here without loading Stagehand (an optional
 * peer dependency, and slow to import): the experiments layer checks a module's export with it
 * before the first step. The mode Stagehand would infer for a config without `mode` is checked
 * when the policy is built (./forward-policy.ts).
 */
import type { AgentConfig } from "@browserbasehq/stagehand";

/** A Stagehand agent's config, as `stagehand.agent(config)` takes it. */
export type StagehandAgentConfig = AgentConfig;

/** The model name of a config ("anthropic/claude-sonnet-4-5"), when it names one. */
export function stagehandModelName(config: Partial<AgentConfig>): string | undefined {
  const name = typeof config.model === "string" ? config.model : config.model?.modelName;
  return typeof name === "string" ? name : undefined;
}

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== "string") return false;
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** What is wrong with `config` as a hybrid Stagehand agent for the forward policy, or undefined. */
export function stagehandConfigProblem(config: unknown): string | undefined {
  const c = config as Partial<AgentConfig> | undefined;
  if (!c || typeof c !== "object" || Array.isArray(c))
    return "not a Stagehand AgentConfig { model, mode, systemPrompt } (nor a function returning one)";
  const name = stagehandModelName(c);
  if (!name?.includes("/"))
    return 'model must name the agent\'s model as Stagehand does ("anthropic/claude-sonnet-4-5" or { modelName, apiKey, baseURL })';
  const baseURL = typeof c.model === "object" && c.model ? (c.model as { baseURL?: unknown }).baseURL : undefined;
  if (baseURL !== undefined && !isHttpUrl(baseURL))
    return `model.baseURL must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1 (got ${JSON.stringify(String(baseURL)).slice(0, 80)})`;
  if (c.mode === "cua" || c.cua)
    return 'mode "cua" agents run their own loop; set mode: "hybrid", or use executeWithRecovery';
  if (c.mode !== undefined && c.mode !== "hybrid")
    return `mode ${JSON.stringify(c.mode)} tools act through Stagehand's own page pipeline; set mode: "hybrid", or use executeWithRecovery`;
  return undefined;
}
