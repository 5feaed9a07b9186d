/**
 * The `preset` kind (detector only): a detection preset (packages/models/src/llm/detection-preset.ts) with
 * the judge's own model spec, so the judge can be a cheaper model than the policy. Written in
 * configs without a `kind` (a spec with `preset` is this kind):
 * `detector: { preset: production, model: { model: NAME, observation: a11y_tree }, historySteps: 3 }`.
 * `model` is a model agent spec (`kind: model` implied; validated with its config path, e.g.
 * `config.pairs.0.detector.model.temperature`); `--base-url/--model` fill it like any model agent.
 * `preset: paper` is the paper's every-step detector, the same as `{ kind: model, ... }`.
 */
import { z } from "zod";
import { CascadeGateSpecSchema } from "@retrace-cua/core/detectors/index";
import { ConfigError } from "@retrace-cua/core/errors";
import { MAX_RECOVERY_ITERATIONS } from "@retrace-cua/core/episode";
import { createDetectionPreset, DETECTION_PRESETS } from "@retrace-cua/models/llm/detection-preset";
import type { AgentKind, ValidAgentSpec } from "./kind.ts";
import { chatModelFor } from "./model-client.ts";
import { maxTokensOf, type ModelAgentSpec } from "./model-spec.ts";
import type { AgentContext, AgentOf, AgentRole } from "./roles.ts";

const PresetSpecSchema = z
  .object({
    kind: z.literal("preset"),
    /** paper (every step, whole history) or production (gated, windowed, cache-friendly). */
    preset: z.enum(DETECTION_PRESETS),
    /** The judge's model: a model agent spec (`kind: model` implied). */
    model: z.record(z.string(), z.unknown(), {
      error: "expected the judge's model spec, e.g. model: { model: NAME, baseUrl: URL }",
    }),
    /** production: the cascade gates in front of the judge. @default PRODUCTION_GATES */
    gates: z.array(CascadeGateSpecSchema).min(1).optional(),
    /** production: steps shown (k). @default 2 */
    historySteps: z.number().int().min(1).max(50).optional(),
    /**
     * Downscale screenshots sent to the judge to this many pixels on the longer side. @default 768 (production), none
     * (paper)
     */
    imageMaxSide: z.number().int().min(64).max(8192).optional(),
    /** production: accessibility trees as diffs. @default true */
    treeDiff: z.boolean().optional(),
    /**
     * production: at most this many changed tree lines per screen (packages/models/src/llm/detector.ts); a large number shows all.
     * @default 4
     */
    treeDiffMaxLines: z.number().int().min(2).max(10_000).optional(),
    /**
     * The pair's recovery attempts per episode when the pair lists none (packages/core/src/runtime/preset-recovery.ts). @default 1
     * (production), the config's list (paper)
     */
    maxRecoveryIterations: z.number().int().min(1).max(MAX_RECOVERY_ITERATIONS).optional(),
    /**
     * The pair's recovery steps per attempt, over the config's `options`, under the pair's. @default 5 (production),
     * the config's (paper)
     */
    recoveryBudget: z.number().int().min(1).max(1_000).optional(),
  })
  .strict();
type PresetSpec = z.output<typeof PresetSpecSchema>;

/** The nested model spec with its kind. */
const judgeSpec = (spec: { model: Record<string, unknown> }) => ({ kind: "model", ...spec.model });

/**
 * The registry functions the preset needs for its model spec (passed in, so this file does not import the registry).
 */
export interface NestedModel {
  validate(role: AgentRole, spec: unknown, path: string): ValidAgentSpec;
}

/** The registry entry of `kind: preset` (detector only). Never simulated: the judge is a model agent. */
export function createPresetKind(nested: NestedModel): AgentKind<PresetSpec> {
  return {
    kind: "preset",
    roles: ["detector"],
    simulated: false,
    schema: () => PresetSpecSchema,
    check(_role, spec) {
      if ("kind" in spec.model && spec.model.kind !== "model")
        return {
          field: "model.kind",
          message: `the judge of a preset is a model agent (kind: model), got ${JSON.stringify(spec.model.kind)}`,
        };
      if (spec.preset === "paper") {
        const extra = (["gates", "historySteps", "treeDiff", "treeDiffMaxLines"] as const).find(
          (k) => spec[k] !== undefined,
        );
        if (extra)
          return {
            field: extra,
            message: `only the production preset takes "${extra}" (the paper preset is the paper's every-step detector)`,
          };
      }
      try {
        nested.validate("detector", judgeSpec(spec), "model");
        return undefined;
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        const field = e.field ?? "model";
        return { field, message: e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message };
      }
    },
    create<R extends AgentRole>(_role: R, spec: PresetSpec, ctx: AgentContext): AgentOf[R] {
      const m = nested.validate("detector", judgeSpec(spec), "model") as unknown as ModelAgentSpec;
      const opt = <K extends string, V>(key: K, value: V | undefined) =>
        value === undefined ? {} : ({ [key]: value } as Record<K, V>);
      return createDetectionPreset({
        preset: spec.preset,
        model: chatModelFor(m, "detector", ctx),
        observation: m.observation,
        timeoutMs: m.timeoutMs,
        ...opt("historyImages", m.historyImages),
        ...opt("temperature", m.temperature),
        ...opt("maxTokens", maxTokensOf(m)),
        ...opt("stance", m.stance),
        ...opt("gates", spec.gates),
        ...opt("historySteps", spec.historySteps),
        ...opt("imageMaxSide", spec.imageMaxSide),
        ...opt("treeDiff", spec.treeDiff),
        ...opt("treeDiffMaxLines", spec.treeDiffMaxLines),
      }) as AgentOf[R];
    },
  };
}
