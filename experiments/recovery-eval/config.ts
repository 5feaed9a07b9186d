/**
 * The recovery-evaluation config (`kind: recovery-eval`, e.g.
 * experiments/configs/models/recovery-eval.yaml): the environment and its tasks, the agents that
 * build the dataset (forward policy, perturber, optional verifier) and the recovery variants to
 * evaluate (implicit = the forward agent continues; explicit = a recoverer with each context,
 * plus the summarizer for "contextualized"). Every field is validated up front; the error names
 * its path (`recovery-eval.yaml.eval.recoverers.0.agent.temperature: ...`).
 */
import { SAMPLE_SELECTIONS } from "@retrace-cua/evaluation/eval/summary";
import { z } from "zod";
import { readConfigFile } from "../config/load.ts";
import { ConfigError } from "@retrace-cua/core/errors";
import { renameDeprecatedKeys } from "@retrace-cua/core/deprecation";
import { RECOVERY_CONTEXTS } from "@retrace-cua/core/recovery";
import {
  AgentSpecSchema,
  fillModelDefaults,
  validateAgentSpec,
  type AgentRole,
  type ModelAgentSpec,
  type ModelDefaults,
} from "../agents/index.ts";

/** An agent of the recovery evaluation: a model agent, or (SimDesk only) a simulated one. */
export type EvalAgentSpec = ModelAgentSpec | { kind: "sim"; profile?: string };
const EvalAgentSpecSchema = AgentSpecSchema;

/** Environments the recovery evaluation runs on. */
export const EVAL_ENV_KINDS = ["simdesk", "x11", "docker", "osworld", "browser"] as const;

const EnvSchema = z
  .object({
    kind: z.enum(EVAL_ENV_KINDS).default("simdesk"),
    /** Task ids; omitted = every task of the environment. */
    tasks: z.array(z.string().min(1)).min(1).optional(),
    /** Keep the first n tasks. */
    limit: z.number().int().min(1).optional(),
    width: z.number().int().min(320).default(1280),
    height: z.number().int().min(240).default(800),
    /** osworld: an OSWorld evaluation_examples folder. @default ../shared/osworld-tasks */
    tasksDir: z.string().min(1).optional(),
    /**
     * osworld: what gives a fresh desktop per reset. `local` = a fresh X11 desktop + retrace's
     * local control server per reset; `{ vm }` = OSWorld's docker provider with that VM image.
     */
    provider: z
      .union([z.literal("local"), z.object({ vm: z.string().min(1), image: z.string().min(1).optional() }).strict()])
      .optional(),
    /**
     * osworld: an OSWorld checkout; tasks whose metrics only OSWorld's Python evaluators implement
     * then run and are scored through them (the Python bridge), as in experiment runs.
     */
    osworldPath: z.string().min(1).optional(),
    /** osworld: the Python with OSWorld's requirements, used with `osworldPath`. @default "python3" */
    python: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.kind !== "osworld")
      for (const k of ["tasksDir", "provider", "osworldPath", "python"] as const)
        if (e[k] !== undefined)
          ctx.addIssue({ code: "custom", path: [k], message: `only env kind osworld takes ${k}` });
  });

const RecovererSchema = z
  .object({
    /** Row name prefix (letters, digits, - and _). */
    name: z.string().regex(/^[A-Za-z0-9_-]+$/, "use letters, digits, - and _ only"),
    agent: EvalAgentSpecSchema,
    /** Recovery contexts to evaluate this recoverer with. @default all four */
    contexts: z
      .array(z.enum(RECOVERY_CONTEXTS))
      .min(1)
      .default([...RECOVERY_CONTEXTS]),
  })
  .strict();

/** A recovery-eval config. */
export const RecoveryEvalConfigSchema = z
  .object({
    kind: z.literal("recovery-eval"),
    name: z.string().min(1),
    env: EnvSchema.prefault({}),
    seed: z.number().int().default(0),
    /**
     * Wait after each executed step before observing, in ms, on every path of the dataset build and
     * the evaluation (experiments/runner/settle.ts). @default the environment's (osworld 10000, others 0)
     */
    settleMs: z.number().int().min(0).max(600_000).optional(),
    dataset: z
      .object({
        forward: EvalAgentSpecSchema,
        perturber: EvalAgentSpecSchema,
        /** Confirms replayed targets where there is no ground-truth state hash (verify: verifier/auto). */
        verifier: EvalAgentSpecSchema.optional(),
        /** auto = state hash on SimDesk, else the verifier when given, else SSIM >= 0.99. */
        verify: z.enum(["auto", "state-hash", "verifier", "ssim"]).default("auto"),
        rolloutsPerTask: z.number().int().min(1).default(1),
        /** N of transition-consistent filtering. */
        replays: z.number().int().min(1).default(3),
        seedSteps: z.number().int().min(1).default(2),
        distances: z.array(z.number().int().min(1)).min(1).default([1, 5]),
        maxSteps: z.number().int().min(1).default(15),
        maxSamplesPerDistance: z.number().int().min(1).optional(),
      })
      .strict(),
    eval: z
      .object({
        /** Recovery budgets r to evaluate (recovery steps per attempt; formerly `budgets`). @default [1, 3, 10] */
        recoveryBudget: z.array(z.number().int().min(1)).min(1).default([1, 3, 10]),
        /** Evaluate implicit recovery (the dataset's forward agent continues, 0-E). @default true */
        implicit: z.boolean().default(true),
        /**
         * Screenshots of the 0-E history the implicit policy sees (a model forward agent). The paper
         * gives implicit recovery "the full history of observation-action pairs up to the error
         * state" (App. A.2): 50 (every screenshot) in the paper preset. Left out, the forward agent
         * keeps its own window (`dataset.forward.historyImages`, 3 by default), which gives implicit
         * recovery fewer screenshots than an explicit 0-E recoverer with 50. Recorded in
         * recovery-eval.json (`implicitHistoryImages`). @default the forward agent's own
         */
        implicitHistoryImages: z.number().int().min(0).max(50).optional(),
        recoverers: z.array(RecovererSchema).default([]),
        /** Needed when a recoverer uses the contextualized context. */
        summarizer: EvalAgentSpecSchema.optional(),
        /** The LLM-judge baseline of `eval-recovery --agreement --labels` (a model; paper Table 1). */
        judge: EvalAgentSpecSchema.optional(),
        /**
         * Which runs the table counts: "common" = only samples judged in every variant and budget
         * (the paper's, App. A.2, "Recovery Verification"), "per-row" = each row its own judged runs. @default "common"
         */
        samples: z.enum(SAMPLE_SELECTIONS).default("common"),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    const wantsSummary = c.eval.recoverers.some((r) => r.contexts.includes("contextualized"));
    if (wantsSummary && !c.eval.summarizer)
      ctx.addIssue({
        code: "custom",
        path: ["eval", "summarizer"],
        message: "a recoverer uses the contextualized context: give a summarizer agent",
      });
    if (c.dataset.verify === "verifier" && !c.dataset.verifier)
      ctx.addIssue({
        code: "custom",
        path: ["dataset", "verifier"],
        message: "verify: verifier needs a verifier agent",
      });
    if (c.env.kind !== "simdesk") {
      const sims: string[] = [];
      if (c.dataset.forward.kind === "sim") sims.push("dataset.forward");
      if (c.dataset.perturber.kind === "sim") sims.push("dataset.perturber");
      c.eval.recoverers.forEach((r, i) => r.agent.kind === "sim" && sims.push(`eval.recoverers.${i}.agent`));
      for (const p of sims)
        ctx.addIssue({
          code: "custom",
          path: p.split("."),
          message: `simulated agents read SimDesk's ground truth and cannot run on env "${c.env.kind}": use kind: model`,
        });
    }
  });
type ParsedConfig = z.output<typeof RecoveryEvalConfigSchema>;
/** A validated recovery-eval config: every agent spec checked by its kind's schema, model endpoints filled in. */
export type RecoveryEvalConfig = Omit<ParsedConfig, "dataset" | "eval"> & {
  dataset: Omit<ParsedConfig["dataset"], "forward" | "perturber" | "verifier"> & {
    forward: EvalAgentSpec;
    perturber: EvalAgentSpec;
    verifier?: EvalAgentSpec;
  };
  eval: Omit<ParsedConfig["eval"], "recoverers" | "summarizer" | "judge"> & {
    recoverers: Array<Omit<ParsedConfig["eval"]["recoverers"][number], "agent"> & { agent: EvalAgentSpec }>;
    summarizer?: EvalAgentSpec;
    judge?: ModelAgentSpec;
  };
};

/**
 * Fill in the endpoint, then validate a spec with the agent registry (experiments/agents). The
 * perturber and recoverer follow the forward agent's format/backend rules (they speak every
 * format, on the same backbone: adapters/llm `agent:`). `kind: sim` is accepted for the roles
 * that have a SimDesk-only simulated stand-in here (perturber, summarizer) and where the registry
 * has one (forward, recovery).
 */
function validEvalSpec(
  spec: unknown,
  role: AgentRole,
  path: string,
  fill: ModelDefaults,
  localSim: AgentRole[],
): EvalAgentSpec {
  const raw = fillModelDefaults(spec as z.output<typeof AgentSpecSchema>, fill);
  if (raw.kind === "sim" && localSim.includes(role)) {
    const extra = Object.keys(raw).filter((k) => k !== "kind" && k !== "profile");
    if (extra.length)
      throw new ConfigError(`${path}: unknown field(s) ${extra.map((k) => `"${k}"`).join(", ")} for a sim ${role}`, {
        field: path,
      });
    return { kind: "sim", ...(raw.profile !== undefined && { profile: raw.profile }) };
  }
  if (role === "verifier" && raw.kind !== "model")
    throw new ConfigError(
      `${path}.kind: ${String(raw.kind)} verifiers are not wired into the recovery evaluation yet (its environments record no state probes); use kind: model, or verify: ssim`,
      { field: `${path}.kind` },
    );
  const valid = validateAgentSpec(
    role === "recovery" || role === "perturber" ? (raw.kind === "model" ? "forward" : role) : role,
    raw,
    path,
  ) as unknown as EvalAgentSpec;
  if (valid.kind === "model" && !valid.model)
    throw new ConfigError(
      `${path}.model: a model agent needs a model name (set it in the config or pass --model NAME)`,
      { field: `${path}.model` },
    );
  return valid;
}

/** Command-line overrides of a config. */
export interface RecoveryEvalOverrides extends ModelDefaults {
  /** `--env`. */
  env?: string;
}

/** Old field names of `eval` (old -> new), accepted with a deprecation warning until the next release. */
export const DEPRECATED_EVAL_FIELDS = { budgets: "recoveryBudget" } as const;

/** Validate a parsed config and apply overrides; throws a ConfigError naming the first bad field. */
export function parseRecoveryEvalConfig(
  raw: unknown,
  source = "config",
  overrides: RecoveryEvalOverrides = {},
): RecoveryEvalConfig {
  let input = raw;
  const ev = (raw as { eval?: unknown } | null)?.eval;
  const renamed = renameDeprecatedKeys(`${source}.eval`, ev, DEPRECATED_EVAL_FIELDS);
  if (renamed !== ev) input = { ...(raw as object), eval: renamed };
  if (overrides.env !== undefined) {
    if (!(EVAL_ENV_KINDS as readonly string[]).includes(overrides.env))
      throw new ConfigError(`--env: "${overrides.env}" is not one of ${EVAL_ENV_KINDS.join(", ")}`, { field: "env" });
    const obj = (input ?? {}) as Record<string, unknown>;
    const env = (typeof obj.env === "object" && obj.env !== null ? obj.env : {}) as Record<string, unknown>;
    // tasks (and OSWorld's task folder and provider) of another environment do not carry over
    const { tasks: _tasks, tasksDir: _dir, provider: _provider, osworldPath: _osworld, python: _python, ...rest } = env;
    input = { ...obj, env: { ...(env.kind === overrides.env ? env : rest), kind: overrides.env } };
  }
  const r = RecoveryEvalConfigSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.join(".");
    throw new ConfigError(`${source}${field ? `.${field}` : ""}: ${issue.message}`, { field });
  }
  const c = r.data as unknown as RecoveryEvalConfig;
  const check = (spec: unknown, role: AgentRole, path: string, simRoles: AgentRole[] = []) =>
    validEvalSpec(spec, role, `${source}.${path}`, overrides, simRoles);
  c.dataset.forward = check(c.dataset.forward, "forward", "dataset.forward");
  c.dataset.perturber = check(c.dataset.perturber, "perturber", "dataset.perturber", ["perturber"]);
  if (c.dataset.verifier) c.dataset.verifier = check(c.dataset.verifier, "verifier", "dataset.verifier");
  c.eval.recoverers = c.eval.recoverers.map((rc, i) => ({
    ...rc,
    agent: check(rc.agent, "recovery", `eval.recoverers.${i}.agent`),
  }));
  if (c.eval.summarizer) c.eval.summarizer = check(c.eval.summarizer, "summarizer", "eval.summarizer", ["summarizer"]);
  if (c.eval.judge) {
    if ((c.eval.judge as { kind?: unknown }).kind !== "model")
      throw new ConfigError(`${source}.eval.judge.kind: the judge is a chat model; use kind: model`, {
        field: "eval.judge.kind",
      });
    c.eval.judge = check(c.eval.judge, "verifier", "eval.judge") as ModelAgentSpec;
  }
  return c;
}

/** Load a recovery-eval config file (.yaml, .yml, .json). */
export function loadRecoveryEvalConfig(file: string, overrides: RecoveryEvalOverrides = {}): RecoveryEvalConfig {
  const raw = readConfigFile(file, { prefix: "--config: ", field: "config" });
  return parseRecoveryEvalConfig(raw, file, overrides);
}
