/**
 * The `openai-agents` kind: a team's OpenAI Agents SDK agent as the forward agent of an
 * experiment, `forward: { kind: openai-agents, module: ./my-agent.ts, export: agent }`. The module
 * path is resolved against the current working directory (absolute paths as given); the export is
 * an `Agent` with a computer tool, or a function returning one (sync or async). The runtime drives
 * it one step at a time through adapters/sdk/openai-agents/forward-policy.ts (its own model,
 * instructions, model settings and computer tool); its actions run on the experiment's
 * environment. A missing file is refused before any episode; a bad export fails the first step
 * with one line naming the field.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { Agent } from "@openai/agents";
import { ConfigError } from "../../src/errors.ts";
import type { ForwardPolicy, PolicyInput } from "../../src/policy.ts";
import { agentForwardPolicy } from "../../adapters/sdk/openai-agents/forward-policy.ts";
import type { AgentKind } from "./registry.ts";
import type { AgentOf, AgentRole } from "./roles.ts";

const OpenAIAgentsSpecSchema = z
  .object({
    kind: z.literal("openai-agents"),
    /** Path of a .ts/.mjs/.js module exporting the agent (resolved against the current directory). */
    module: z.string().min(1, "needs the path of a module exporting an OpenAI Agents SDK Agent"),
    /** The export holding the Agent (or a function returning one). @default "agent" */
    export: z.string().min(1).default("agent"),
  })
  .strict();
type OpenAIAgentsSpec = z.infer<typeof OpenAIAgentsSpecSchema>;

const loaded = new Map<string, Promise<Agent<any, any>>>();

function isAgent(x: unknown): x is Agent<any, any> {
  return !!x && typeof x === "object" && Array.isArray((x as Agent).tools) && typeof (x as Agent).getSystemPrompt === "function";
}

/** Load (once per module and export) the agent a spec names; errors name `field.module` / `field.export`. */
export function loadOpenAIAgent(spec: OpenAIAgentsSpec, field = "forward"): Promise<Agent<any, any>> {
  const file = resolve(process.cwd(), spec.module);
  const key = `${file}#${spec.export}`;
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      if (!existsSync(file)) throw new ConfigError(`${field}.module: ${file} does not exist (module paths are resolved against ${process.cwd()})`, { field: `${field}.module` });
      let mod: Record<string, unknown>;
      try {
        mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      } catch (err) {
        throw new ConfigError(`${field}.module: cannot load ${file}: ${String((err as Error).message ?? err).split("\n")[0]}`, { field: `${field}.module` });
      }
      if (!(spec.export in mod)) throw new ConfigError(`${field}.export: ${file} has no export named ${JSON.stringify(spec.export)} (it exports ${Object.keys(mod).map((k) => JSON.stringify(k)).join(", ") || "nothing"})`, { field: `${field}.export` });
      const value = mod[spec.export];
      const agent = typeof value === "function" && !isAgent(value) ? await (value as () => unknown)() : value;
      if (!isAgent(agent)) throw new ConfigError(`${field}.export: ${JSON.stringify(spec.export)} of ${file} is not an OpenAI Agents SDK Agent (nor a function returning one)`, { field: `${field}.export` });
      if (!agent.tools.some((t) => t.type === "computer")) throw new ConfigError(`${field}.export: the agent ${JSON.stringify(agent.name)} of ${file} has no computer tool (computerTool({ computer }))`, { field: `${field}.export` });
      return agent;
    })();
    p.catch(() => loaded.delete(key));
    loaded.set(key, p);
  }
  return p;
}

/** The registry entry of `kind: openai-agents` (forward only; not simulated: a real model answers). */
export const OPENAI_AGENTS_KIND: AgentKind<OpenAIAgentsSpec> = {
  kind: "openai-agents",
  roles: ["forward"],
  simulated: false,
  schema: () => OpenAIAgentsSpecSchema,
  check(_role, spec) {
    const file = resolve(process.cwd(), spec.module);
    return existsSync(file) ? undefined : { field: "module", message: `${file} does not exist (module paths are resolved against ${process.cwd()})` };
  },
  create<R extends AgentRole>(_role: R, spec: OpenAIAgentsSpec): AgentOf[R] {
    let inner: Promise<ForwardPolicy> | undefined;
    const policy: ForwardPolicy = {
      name: `openai-agents:${spec.module}#${spec.export}`,
      async propose(input: PolicyInput) {
        inner ??= loadOpenAIAgent(spec).then((agent) => agentForwardPolicy(agent));
        return (await inner).propose(input);
      },
    };
    return policy as AgentOf[R];
  },
};
