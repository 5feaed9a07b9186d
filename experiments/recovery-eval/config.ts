/**
 * The recovery-evaluation config (`kind: recovery-eval`, e.g.
 * experiments/configs/models/recovery-eval.yaml): the environment and its tasks, the agents that
 * build the dataset (forward policy, perturber, optional verifier) and the recovery variants to
 * evaluate (implicit = the forward agent continues; explicit = a recoverer with each context,
 * plus the summarizer for "contextualized"). Every field is validated up front; the error names
 * its path (`recovery-eval.yaml.eval.recoverers.0.agent.temperature: ...`).
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import { RECOVERY_CONTEXTS } from "../../src/recovery.ts";
import { EvalAgentSpecSchema, fillModelSpec, type EvalAgentSpec, type ModelFillIn } from "./agents.ts";

/** Environments the recovery evaluation runs on. */
export const EVAL_ENV_KINDS = ["simdesk", "x11", "docker"] as const;

const EnvSchema = z
  .object({
    kind: z.enum(EVAL_ENV_KINDS).default("simdesk"),
    /** Task ids; omitted = every task of the environment. */
    tasks: z.array(z.string().min(1)).min(1).optional(),
    /** Keep the first n tasks. */
    limit: z.number().int().min(1).optional(),
    width: z.number().int().min(320).default(1280),
    height: z.number().int().min(240).default(800),
  })
  .strict();

const RecovererSchema = z
  .object({
    /** Row name prefix (letters, digits, - and _). */
    name: z.string().regex(/^[A-Za-z0-9_-]+$/, "use letters, digits, - and _ only"),
    agent: EvalAgentSpecSchema,
    /** Recovery contexts to evaluate this recoverer with. @default all four */
    contexts: z.array(z.enum(RECOVERY_CONTEXTS)).min(1).default([...RECOVERY_CONTEXTS]),
  })
  .strict();

/** A recovery-eval config. */
export const RecoveryEvalConfigSchema = z
  .object({
    kind: z.literal("recovery-eval"),
    name: z.string().min(1),
    env: EnvSchema.prefault({}),
    seed: z.number().int().default(0),
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
        budgets: z.array(z.number().int().min(1)).min(1).default([1, 3, 10]),
        /** Evaluate implicit recovery (the dataset's forward agent continues, 0-E). @default true */
        implicit: z.boolean().default(true),
        recoverers: z.array(RecovererSchema).default([]),
        /** Needed when a recoverer uses the contextualized context. */
        summarizer: EvalAgentSpecSchema.optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    const wantsSummary = c.eval.recoverers.some((r) => r.contexts.includes("contextualized"));
    if (wantsSummary && !c.eval.summarizer) ctx.addIssue({ code: "custom", path: ["eval", "summarizer"], message: "a recoverer uses the contextualized context: give a summarizer agent" });
    if (c.dataset.verify === "verifier" && !c.dataset.verifier) ctx.addIssue({ code: "custom", path: ["dataset", "verifier"], message: "verify: verifier needs a verifier agent" });
    if (c.env.kind !== "simdesk") {
      const sims: string[] = [];
      if (c.dataset.forward.kind === "sim") sims.push("dataset.forward");
      if (c.dataset.perturber.kind === "sim") sims.push("dataset.perturber");
      c.eval.recoverers.forEach((r, i) => r.agent.kind === "sim" && sims.push(`eval.recoverers.${i}.agent`));
      for (const p of sims) ctx.addIssue({ code: "custom", path: p.split("."), message: `simulated agents read SimDesk's ground truth and cannot run on env "${c.env.kind}": use kind: model` });
    }
  });
export type RecoveryEvalConfig = z.output<typeof RecoveryEvalConfigSchema>;

/** Command-line overrides of a config. */
export interface RecoveryEvalOverrides extends ModelFillIn {
  /** `--env`. */
  env?: string;
}

/** Validate a parsed config and apply overrides; throws a ConfigError naming the first bad field. */
export function parseRecoveryEvalConfig(raw: unknown, source = "config", overrides: RecoveryEvalOverrides = {}): RecoveryEvalConfig {
  let input = raw;
  if (overrides.env !== undefined) {
    if (!(EVAL_ENV_KINDS as readonly string[]).includes(overrides.env)) throw new ConfigError(`--env: "${overrides.env}" is not one of ${EVAL_ENV_KINDS.join(", ")}`, { field: "env" });
    const obj = (raw ?? {}) as Record<string, unknown>;
    const env = (typeof obj.env === "object" && obj.env !== null ? obj.env : {}) as Record<string, unknown>;
    // tasks of another environment do not carry over
    const { tasks: _tasks, ...rest } = env;
    input = { ...obj, env: { ...(env.kind === overrides.env ? env : rest), kind: overrides.env } };
  }
  const r = RecoveryEvalConfigSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.join(".");
    throw new ConfigError(`${source}${field ? `.${field}` : ""}: ${issue.message}`, { field });
  }
  const c = r.data;
  const fill = <T extends EvalAgentSpec>(s: T, path: string) => fillModelSpec(s, overrides, `${source}.${path}`);
  c.dataset.forward = fill(c.dataset.forward, "dataset.forward");
  c.dataset.perturber = fill(c.dataset.perturber, "dataset.perturber");
  if (c.dataset.verifier) c.dataset.verifier = fill(c.dataset.verifier, "dataset.verifier");
  c.eval.recoverers = c.eval.recoverers.map((rc, i) => ({ ...rc, agent: fill(rc.agent, `eval.recoverers.${i}.agent`) }));
  if (c.eval.summarizer) c.eval.summarizer = fill(c.eval.summarizer, "eval.summarizer");
  return c;
}

/** Load a recovery-eval config file (.yaml, .yml, .json). */
export function loadRecoveryEvalConfig(file: string, overrides: RecoveryEvalOverrides = {}): RecoveryEvalConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new ConfigError(`--config: cannot read ${file}: ${(cause as Error).message}`, { cause, field: "config" });
  }
  let raw: unknown;
  try {
    raw = extname(file) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (cause) {
    throw new ConfigError(`${file}: not valid ${extname(file) === ".json" ? "JSON" : "YAML"}: ${(cause as Error).message.split("\n")[0]}`, { cause, field: "config" });
  }
  return parseRecoveryEvalConfig(raw, file, overrides);
}
