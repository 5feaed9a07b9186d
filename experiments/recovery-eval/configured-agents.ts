/**
 * The agents of a recovery-eval config as the runner uses them: forward-policy factories (dataset rollouts and
 * implicit recovery), recoverer factories and the summarizer, each model call with its own draw identity, simulated
 * SimDesk agents by profile; and the recovery variants they make up (implicit, and each recoverer x context).
 */
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import type { RecoveryPolicy, Summarizer } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import type { RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import type { RecoveryVariant } from "@retrace-cua/evaluation/eval/run";
import { DrawScope } from "@retrace-cua/models/models/draws";
import type { SimDesk } from "@retrace-cua/simdesk/simdesk";
import { createSimForwardPolicy, createSimRecoveryPolicy, SIM_PROFILES } from "@retrace-cua/simdesk/agents/index";
import type { ModelAgentSpec } from "../agents/index.ts";
import type { EvalAgents } from "./agents.ts";
import type { EvalAgentSpec, RecoveryEvalConfig } from "./config.ts";
import { simSummarizer } from "./simdesk.ts";

function simProfile<T extends object>(
  profiles: Record<string, T>,
  name: string | undefined,
  fallback: string,
  path: string,
): T {
  const key = name ?? fallback;
  const p = profiles[key];
  if (!p)
    throw new ConfigError(
      `${path}.profile: unknown simulated profile "${key}" (one of ${Object.keys(profiles).join(", ")})`,
      { field: `${path}.profile` },
    );
  return p;
}

/** Forward-policy factory for rollouts and implicit recovery. */
export function forwardFactory(
  spec: EvalAgentSpec,
  agents: EvalAgents,
  seed: number,
  phase: string,
): (task: Task, key: string) => ForwardPolicy {
  // Each rollout (or implicit-recovery run) draws on its own: seed, task and the rollout/sample key are its draw
  // identity.
  if (spec.kind === "model")
    return (task, key) => agents.forward(spec, new DrawScope({ seed, task: task.id, condition: `${phase}/${key}` }));
  const profile = simProfile(SIM_PROFILES.forward, spec.profile, "default", "dataset.forward");
  return (task, key) => createSimForwardPolicy({ task: task as SimDeskTask, seed: `${seed}/${key}`, ...profile });
}

/**
 * The model summarizer with a draw identity per call: the episode is (seed, task, target step R),
 * so every sample's briefing is its own draw and the same briefing asked again (another budget)
 * is the same request under the same identity (served from the cache).
 */
function drawnSummarizer(spec: ModelAgentSpec, agents: EvalAgents, seed: number): Summarizer {
  const { name } = agents.summarizer(spec);
  return {
    name,
    summarize: (input) =>
      agents
        .summarizer(spec, new DrawScope({ seed, task: input.task.id, condition: `summarize/R${input.target.step}` }))
        .summarize(input),
  };
}

/**
 * Screenshots of the history implicit recovery sees: the config's `eval.implicitHistoryImages`, else the forward
 * agent's own (3 when it leaves it out; simulated agents read no screenshots: null).
 */
export function implicitHistoryImagesOf(config: RecoveryEvalConfig): number | null {
  const f = config.dataset.forward;
  if (f.kind !== "model") return null;
  return config.eval.implicitHistoryImages ?? f.historyImages ?? 3;
}

/** The variants of a config: implicit (the dataset's forward agent) and each recoverer x context. */
export function configuredVariants(
  config: RecoveryEvalConfig,
  agents: EvalAgents,
  env: Environment,
): RecoveryVariant[] {
  const variants: RecoveryVariant[] = [];
  if (config.eval.implicit) {
    // Implicit recovery sees as much of its history as the config says (the paper: the full history).
    const n = config.eval.implicitHistoryImages;
    const spec =
      n !== undefined && config.dataset.forward.kind === "model"
        ? { ...config.dataset.forward, historyImages: n }
        : config.dataset.forward;
    const forward = forwardFactory(spec, agents, config.seed, "implicit");
    variants.push({ id: "implicit/0-E", kind: "implicit", policy: ({ task, sample }) => forward(task, sample.id) });
  }
  const s = config.eval.summarizer;
  if (s && s.kind === "sim" && config.env.kind !== "simdesk")
    throw new ConfigError("eval.summarizer: the simulated summarizer runs on SimDesk only; use kind: model", {
      field: "eval.summarizer",
    });
  const summarizer = s ? (s.kind === "model" ? drawnSummarizer(s, agents, config.seed) : simSummarizer) : undefined;
  config.eval.recoverers.forEach((rc, i) => {
    const make = recovererFactory(rc.agent, agents, env, config.seed, `eval.recoverers.${i}.agent`, rc.name);
    for (const context of rc.contexts) {
      variants.push({
        id: `explicit-${rc.name}/${context}`,
        kind: "explicit",
        context,
        recoverer: ({ sample }) => make(sample),
        ...(context === "contextualized" && { summarizer }),
      });
    }
  });
  if (variants.length === 0)
    throw new ConfigError("eval: nothing to evaluate (implicit: false and no recoverers)", { field: "eval" });
  return variants;
}

function recovererFactory(
  spec: EvalAgentSpec,
  agents: EvalAgents,
  env: Environment,
  seed: number,
  path: string,
  name: string,
): (sample: RecoverySample) => RecoveryPolicy {
  if (spec.kind === "model")
    return (sample) => agents.recoverer(spec, new DrawScope({ seed, task: sample.id, condition: `recover/${name}` }));
  const profile = simProfile(SIM_PROFILES.recoverer, spec.profile, "skilled", path);
  return (sample) => createSimRecoveryPolicy({ groundTruth: env as SimDesk, seed: `${seed}/${sample.id}`, ...profile });
}
