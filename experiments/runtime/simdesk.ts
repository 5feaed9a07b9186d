/**
 * The built-in experiment runtime: SimDesk environments, SimDesk's seeded simulated agents
 * (`{ kind: "sim", profile }` in configs), the recovery runtime's runEpisode, ground-truth
 * stability labels and the OSWorld-style episode folders.
 */
import { ConfigError } from "../../src/errors.ts";
import type { Environment } from "../../src/environment.ts";
import type { Observation } from "../../src/observation.ts";
import type { Task } from "../../src/task.ts";
import { groundTruthStability } from "../../src/metrics/trajectory-labels.ts";
import { createSimDesk, type SimDesk, type SimDeskTask } from "../../adapters/environments/simdesk/index.ts";
import { SIMDESK_TASKS } from "../../adapters/environments/simdesk/tasks/index.ts";
import { createSimDetector, createSimForwardPolicy, createSimRecoveryPolicy, createSimStepSelector, SIM_PROFILES } from "../../adapters/policies/simulated/index.ts";
import { runEpisode } from "../../graphs/run-episode.ts";
import type { AgentSpec, EnvSpec, ExperimentConfig } from "../config/schema.ts";
import { statesAlong } from "../runner/recording-env.ts";
import type { ComponentContext, ExperimentRuntime } from "../runner/runtime.ts";
import { writeOsworldFolder } from "./osworld-output.ts";

/** Default profile per component when a config says "default" or leaves it out. */
const DEFAULTS = { forward: "default", recoverer: "skilled", detector: "decent", selector: "accurate" } as const;


function profileOf<T>(role: keyof typeof SIM_PROFILES, spec: AgentSpec, field: string): T {
  if (spec.kind !== "sim") throw new ConfigError(`${field}.kind: "${spec.kind}" is not available to the experiment runner; use { kind: "sim", profile: ... } (model-backed runs: \`retrace run-model\`)`, { field: `${field}.kind` });
  const table = SIM_PROFILES[role] as unknown as Record<string, T>;
  const name = spec.profile === "default" ? DEFAULTS[role === "recoverer" ? "recoverer" : role] : spec.profile;
  const found = table[name];
  if (!found) throw new ConfigError(`${field}.profile: unknown simulated ${role} profile "${spec.profile}" (one of: ${Object.keys(table).join(", ")})`, { field: `${field}.profile` });
  // Any other field of the spec overrides the profile (e.g. { profile: "sloppy", slipRate: 0.3 }).
  const { kind: _k, profile: _p, ...overrides } = spec;
  return { ...found, ...overrides } as T;
}

const seedOf = (ctx: ComponentContext) => (ctx.stream ? `${ctx.seed}/${ctx.stream}` : ctx.seed);
const asDesk = (env: Environment) => env as unknown as SimDesk;

/** Check every agent spec of a config up front, so a typo fails before any episode runs. */
export function checkSimConfig(config: ExperimentConfig): void {
  const check = (role: keyof typeof SIM_PROFILES, spec: AgentSpec | undefined, field: string) => spec && profileOf(role, spec, field);
  if (config.kind === "ideal-recovery") {
    check("forward", config.forward, "config.forward");
    check("detector", config.detector, "config.detector");
    check("selector", config.selector, "config.selector");
    return;
  }
  const pairs = config.kind === "end-to-end" ? config.pairs.map((p, i) => [p, `config.pairs.${i}`] as const) : [[config.pair, "config.pair"] as const];
  for (const [p, at] of pairs) {
    check("forward", p.forward, `${at}.forward`);
    check("recoverer", p.recovery, `${at}.recovery`);
    check("detector", p.detector, `${at}.detector`);
    check("selector", p.selector, `${at}.selector`);
  }
}

/** How process workers rebuild this runtime (see experiments/runner/shards.ts). */
export const SIMDESK_RUNTIME_SPEC = { module: import.meta.url, exportName: "createSimDeskRuntime" } as const;

/** The SimDesk runtime. */
export function createSimDeskRuntime(): ExperimentRuntime {
  return {
    checkConfig: checkSimConfig,
    tasks(env: EnvSpec): Task[] {
      if (env.kind !== "simdesk") throw new ConfigError(`config.env.kind: "${env.kind}" is not built in; the experiment runner drives "simdesk" (real desktops: \`retrace run-model\`)`, { field: "env.kind" });
      return [...SIMDESK_TASKS];
    },
    async createEnv(_env, blobs) {
      return createSimDesk({ blobs });
    },
    forwardPolicy: (spec, ctx) => createSimForwardPolicy({ task: ctx.task as SimDeskTask, seed: seedOf(ctx), ...profileOf<object>("forward", spec, "forward") }),
    recoveryPolicy: (spec, ctx) => createSimRecoveryPolicy({ groundTruth: asDesk(ctx.env), seed: seedOf(ctx), ...profileOf<{ skill: number }>("recoverer", spec, "recovery") }),
    detector: (spec, ctx) => createSimDetector({ groundTruth: asDesk(ctx.env), task: ctx.task as SimDeskTask, seed: seedOf(ctx), ...profileOf<object>("detector", spec, "detector") }),
    selector: (spec, ctx) => createSimStepSelector({ groundTruth: asDesk(ctx.env), task: ctx.task as SimDeskTask, seed: seedOf(ctx), ...profileOf<object>("selector", spec, "selector") }),
    // Batch episodes: no per-superstep checkpoint copies unless `--checkpoint` asked for durability.
    runEpisode: (input) => runEpisode({ ...input, checkpointer: input.checkpointer ?? false }),
    groundTruthStability({ env, task, result, observed }) {
      const desk = asDesk(env);
      const along = statesAlong(result.trajectory.steps.map((s) => s.after), observed);
      if (!along) return undefined;
      return groundTruthStability(along.initial, along.states, (id) => desk.planIndexOf(task as SimDeskTask, id) >= 0, (id) => desk.semanticHash(id));
    },
    sameState(env: Environment, a: Observation, b: Observation) {
      if (!a.stateId || !b.stateId) return a.screenshot === b.screenshot;
      const desk = asDesk(env);
      return desk.semanticHash(a.stateId) === desk.semanticHash(b.stateId);
    },
    writeEpisode: writeOsworldFolder,
  };
}
