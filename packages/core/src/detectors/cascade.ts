/**
 * Detector cascade: cheap gates decide whether the expensive (model) detector is asked at all
 * after a forward step. A gate either opens (ask the expensive detector), stays shut, or fires on
 * its own (a loop is an error without asking a model). Gates read only the detector input, so a
 * cascade is deterministic and gives the same verdicts after a resume.
 *
 * Gates (`CascadeGateSpecSchema`):
 * - `no-effect`: the last step did nothing: no usable action, or a non-WAIT action that left the
 *   screen byte-identical.
 * - `stagnation`: the screen has not changed for `k` steps (createStagnationDetector); may fire.
 * - `loop`: a repeated cycle of screens and actions (createLoopDetector); fires by default.
 * - `visual-change`: the screen changed a lot (SSIM below `below`): a dialog, a wrong app.
 * - `action-pattern`: the last step used an action type listed as one the model got wrong before
 *   (e.g. from an earlier run's findings).
 * - `every-k`: every k-th forward step, a safety net for silent errors.
 * - `before-done`: the policy is about to end the episode (DONE/FAIL): the runtime asks the
 *   cascade again with `input.ending` about a step it let pass, so an error made in the last
 *   steps is still judged before the episode ends.
 *
 * Each verdict carries `detection.cascade` ({ gates, asked, firedBy }); the runtime counts them
 * into `accounting.detectorGates` (per gate, plus `steps`, `asked`, `firedOnOwn`).
 */
import { z } from "zod";
import { noDetection, type Detection, type DetectorInput, type ErrorDetector } from "../detector.ts";
import { ConfigError } from "../errors.ts";
import { screenshotSsim } from "../image/similarity.ts";
import { createLoopDetector } from "./loop.ts";
import { createStagnationDetector } from "./stagnation.ts";

/** One gate of a cascade, as written in configs (`detector: { kind: cascade, gates: [...] }`). */
export const CascadeGateSpecSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("no-effect") }).strict(),
  z
    .object({ kind: z.literal("stagnation"), k: z.number().int().min(1).default(3), fire: z.boolean().default(false) })
    .strict(),
  z
    .object({
      kind: z.literal("loop"),
      minCycle: z.number().int().min(1).default(1),
      maxCycle: z.number().int().min(1).default(4),
      repeats: z.number().int().min(2).default(3),
      fire: z.boolean().default(true),
    })
    .strict(),
  z.object({ kind: z.literal("visual-change"), below: z.number().min(0).max(1).default(0.6) }).strict(),
  z.object({ kind: z.literal("action-pattern"), types: z.array(z.string().min(1)).min(1) }).strict(),
  z.object({ kind: z.literal("every-k"), k: z.number().int().min(1).default(5) }).strict(),
  z.object({ kind: z.literal("before-done") }).strict(),
]);
/** A gate spec as written (defaults optional). */
export type CascadeGateSpec = z.input<typeof CascadeGateSpecSchema>;

/**
 * The gates a production cascade starts from. On SimDesk (48 tasks x 3 seeds, sloppy simulated
 * policy, simulated detector as the expensive one) they ask it 0.29 times per step and keep 96.7%
 * of the every-step detector's true detections (`npm run bench cascade`).
 */
export const DEFAULT_CASCADE_GATES: CascadeGateSpec[] = [
  { kind: "no-effect" },
  { kind: "loop" },
  { kind: "visual-change" },
  { kind: "every-k", k: 10 },
  { kind: "before-done" },
];

/** Options of {@link createCascadeDetector}. */
export interface CascadeDetectorOptions {
  /** Gate specs, checked in order. @default DEFAULT_CASCADE_GATES */
  gates?: CascadeGateSpec[];
  /** The expensive detector, asked only when a gate opens. */
  detector: ErrorDetector;
}

type GateOutcome = { open: boolean; fire?: Detection };
type Gate = { name: string; check(input: DetectorInput): Promise<GateOutcome> };

const SHUT: GateOutcome = { open: false };

function buildGate(spec: z.output<typeof CascadeGateSpecSchema>): Gate {
  switch (spec.kind) {
    case "no-effect":
      return {
        name: "no-effect",
        async check({ history, observation }) {
          const last = history[history.length - 1];
          if (!last) return SHUT;
          if (last.actions.length === 0) return { open: true };
          const waitOnly = last.actions.every((a) => a.type === "WAIT");
          return { open: !waitOnly && last.observation.screenshot === observation.screenshot };
        },
      };
    case "stagnation":
    case "loop": {
      const inner =
        spec.kind === "loop"
          ? createLoopDetector({ minCycle: spec.minCycle, maxCycle: spec.maxCycle, repeats: spec.repeats })
          : createStagnationDetector({ k: spec.k });
      return {
        name: spec.kind,
        async check(input) {
          const d = await inner.detect(input);
          if (!d.isError) return SHUT;
          return spec.fire ? { open: true, fire: { ...d, reason: `${spec.kind} gate: ${d.reason}` } } : { open: true };
        },
      };
    }
    case "visual-change":
      return {
        name: "visual-change",
        async check({ history, observation, blobs }) {
          const last = history[history.length - 1];
          if (!last || last.observation.screenshot === observation.screenshot) return SHUT;
          const sim = await screenshotSsim(
            await blobs.get(last.observation.screenshot),
            await blobs.get(observation.screenshot),
          );
          return { open: sim < spec.below };
        },
      };
    case "action-pattern": {
      const types = new Set(spec.types);
      return {
        name: "action-pattern",
        async check({ history }) {
          const last = history[history.length - 1];
          return { open: !!last && last.actions.some((a) => types.has(a.type)) };
        },
      };
    }
    case "every-k":
      return { name: "every-k", check: async ({ step }) => ({ open: step > 0 && step % spec.k === 0 }) };
    case "before-done":
      return { name: "before-done", check: async ({ ending }) => ({ open: ending === true }) };
  }
}

/** Parse gate specs; a bad spec throws a ConfigError naming `gates[i].field`. */
export function parseCascadeGates(specs: unknown): Array<z.output<typeof CascadeGateSpecSchema>> {
  const parsed = z.array(CascadeGateSpecSchema).min(1).safeParse(specs);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = `gates${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;
  throw new ConfigError(
    `cascade detector: ${field}: ${issue.message} (gate kinds: no-effect, stagnation, loop, visual-change, action-pattern, every-k, before-done)`,
    { field },
  );
}

/**
 * True for a detector built by {@link createCascadeDetector} (its name is `cascade(...)`): one that
 * can let a step pass without asking its model, so a wrapper's before-done look
 * (StepRecovery.beforeDone) can matter. Wrappers that pay for that look (the LangChain middleware's
 * extra graph node) install it only then.
 */
export function isCascadeDetector(detector: { readonly name: string }): boolean {
  return detector.name.startsWith("cascade(");
}

/**
 * A detector that asks `detector` only when a cheap gate opens. Its `latency` is the inner
 * detector's, so `detection: "auto"` still overlaps a model-backed cascade.
 */
export function createCascadeDetector(options: CascadeDetectorOptions): ErrorDetector {
  if (!options || !options.detector || typeof options.detector.detect !== "function") {
    throw new ConfigError("createCascadeDetector: detector (the expensive ErrorDetector) is required", {
      field: "detector",
    });
  }
  const gates = parseCascadeGates(options.gates ?? DEFAULT_CASCADE_GATES).map(buildGate);
  const inner = options.detector;
  return {
    name: `cascade(${gates.map((g) => g.name).join(",")} -> ${inner.name})`,
    ...(inner.simulated ? { simulated: true } : {}),
    ...(inner.latency ? { latency: inner.latency } : {}),
    async detect(input: DetectorInput): Promise<Detection> {
      const opened: string[] = [];
      for (const gate of gates) {
        const out = await gate.check(input);
        if (!out.open) continue;
        opened.push(gate.name);
        if (out.fire) return { ...out.fire, cascade: { gates: opened, asked: false, firedBy: gate.name } };
      }
      if (opened.length === 0)
        return {
          ...noDetection("cascade: no gate opened; the expensive detector was not asked"),
          confidence: 0,
          cascade: { gates: [], asked: false },
        };
      const d = await inner.detect(input);
      return { ...d, cascade: { gates: opened, asked: true } };
    },
  };
}
