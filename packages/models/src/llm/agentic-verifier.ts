/**
 * An agentic LLM state verifier (VeriCUA, ../shared/seeds/003_6a4dfceef9d35eab.txt): before
 * judging whether the live desktop matches the TARGET, the model may take a few read-only
 * probing actions (open a menu, switch a tab, scroll; see probe-actions.ts) and see each result.
 * Afterwards the verifier undoes every probe it ran and checks with screenshot SSIM that the
 * desktop looks as it did before verification; when it does not, the verdict is "mismatch" (the
 * state it leaves is no longer the one judged). Each finding must cite a capture it was seen in
 * ("target", "current", "probe-N", or "report" for probe-report lines); uncited findings are
 * dropped, and a verdict left without evidence is an abstention. Without a live environment it
 * judges the two screenshots (and the probe report) only.
 */
import { z } from "zod";
import { formatAction } from "@retrace-cua/core/action";
import { logger } from "@retrace-cua/core/logger";
import type { ChatContentPart, ChatMessage } from "@retrace-cua/core/model";
import type { Observation } from "@retrace-cua/core/observation";
import { compareProbeReports, describeProbeDifference } from "@retrace-cua/evaluation/probes/compare";
import { loadProbeReport } from "@retrace-cua/core/probes/report";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { StateVerifier, VerifierVerdict, VerifyInput } from "@retrace-cua/core/recovery";
import { DEFAULT_SSIM_THRESHOLD } from "@retrace-cua/core/image/similarity";
import { observationSsim } from "@retrace-cua/core/replay/state-check";
import type { ModelUsage } from "@retrace-cua/core/usage";
import agenticStateVerifier from "@retrace-cua/core/prompts/agentic-state-verifier";
import { askForJson } from "./json-reply.ts";
import { screenshotPart } from "./history.ts";
import { callFields, maxReasksField, parseOptions, requireModel, roleCall, type JsonRoleOptions } from "./options.ts";
import { acceptProbe, ProbeActionSchema, type AcceptedProbe } from "./probe-actions.ts";

/** The reply contract: one probe, or a verdict with sourced findings. */
export const AgenticVerifierReplySchema = z.union([
  z.object({ probe: ProbeActionSchema, why: z.string().default("") }).strict(),
  z
    .object({
      verdict: z.enum(["match", "mismatch", "abstain"]),
      evidence: z.array(z.object({ source: z.string().min(1), fact: z.string().min(1) })).default([]),
      reason: z.string(),
    })
    .strict(),
]);

/**
 * Options of {@link createAgenticLlmVerifier}. Defaults: temperature 0, detail "high", maxTokens 1024, name
 * "agentic-llm-verifier"; a failure abstains.
 */
export interface AgenticLlmVerifierOptions extends JsonRoleOptions {
  /** Probing actions allowed per verification (0 = a passive judge). @default 3 */
  maxProbes?: number;
  /** After undoing its probes, the desktop must look like before at this SSIM or more. @default 0.99 */
  ssimThreshold?: number;
  /** Probe-report lines shown to the model (differences first). @default 24 */
  maxReportLines?: number;
}

const OptionsSchema = z
  .object({
    maxProbes: z.number().int().min(0).max(20).default(3),
    ssimThreshold: z.number().gt(0).max(1).default(DEFAULT_SSIM_THRESHOLD),
    maxReportLines: z.number().int().min(0).default(24),
    maxReasks: maxReasksField(),
    ...callFields({ name: "agentic-llm-verifier", temperature: 0, detail: "high" }),
  })
  .strict();

/** One probing action as recorded in the verdict. */
export interface ProbeStepRecord {
  action: string;
  why: string;
  /** Set when the action was refused (not run). */
  refused?: string;
}

/** The verdict, the evidence it rests on, what was probed, and whether the view was restored. */
export interface AgenticVerification {
  verdict: VerifierVerdict;
  reason: string;
  /** `source: fact` lines, sources checked. */
  evidence: string[];
  usage: ModelUsage[];
  prompt: string;
  probes: ProbeStepRecord[];
  /** After undoing the probes: SSIM against the pre-verification screenshot (absent when nothing ran). */
  viewRestored?: { ssim: number; restored: boolean };
  /** Set when the verifier itself failed; the verdict is then "abstain". */
  failure?: string;
}

/** A StateVerifier that explores before judging. */
export interface AgenticLlmVerifier extends StateVerifier {
  verify(input: VerifyInput): Promise<AgenticVerification>;
}

/** Build the agentic verifier; bad options throw a ConfigError naming the field. */
export function createAgenticLlmVerifier(options: AgenticLlmVerifierOptions): AgenticLlmVerifier {
  const { model, ...rest } = options;
  requireModel(model, "createAgenticLlmVerifier");
  const o = parseOptions(OptionsSchema, rest, "createAgenticLlmVerifier");
  const prompt = promptRef(agenticStateVerifier);
  return {
    name: o.name,
    async verify(input) {
      const budget = input.env ? o.maxProbes : 0;
      const sources = new Set(["target", "current"]);
      const report = await reportLines(input, o.maxReportLines);
      if (report.length) sources.add("report");
      const system = renderPrompt(agenticStateVerifier, {
        maxProbes: String(budget),
        width: String(input.current.width),
        height: String(input.current.height),
      });
      const first: ChatContentPart[] = [
        { type: "text", text: "TARGET:" },
        screenshotPart(input.target, o.detail),
        { type: "text", text: "CURRENT:" },
        screenshotPart(input.current, o.detail),
      ];
      if (report.length) first.push({ type: "text", text: `PROBE REPORT (target vs current):\n${report.join("\n")}` });
      first.push({
        type: "text",
        text:
          budget > 0
            ? `You may take up to ${budget} probing action(s).`
            : "No probing actions are available here; answer with a verdict.",
      });
      const messages: ChatMessage[] = [
        { role: "system", content: system },
        { role: "user", content: first },
      ];
      const usage: ModelUsage[] = [];
      const probes: ProbeStepRecord[] = [];
      const taken: AcceptedProbe[] = [];
      let last: Observation = input.current;
      let out: Omit<AgenticVerification, "usage" | "prompt" | "probes"> | undefined;
      try {
        for (let turn = 0; !out; turn++) {
          const reply = await askForJson({
            model,
            role: "verifier",
            prompt,
            schema: AgenticVerifierReplySchema,
            messages,
            ...roleCall(o),
            signal: input.signal,
          });
          usage.push(...reply.usage);
          if (!reply.value) {
            logger.warn({ verifier: o.name, failure: reply.failure }, "agentic verifier failed; abstaining");
            out = {
              verdict: "abstain",
              reason: "the verifier could not give a usable answer",
              evidence: [],
              failure: reply.failure,
            };
            break;
          }
          const v = reply.value;
          if ("verdict" in v) {
            const cited = v.evidence.filter((e) => sources.has(e.source)).map((e) => `${e.source}: ${e.fact.trim()}`);
            const dropped = v.evidence.length - cited.length;
            if (v.verdict !== "abstain" && cited.length === 0) {
              out = {
                verdict: "abstain",
                reason: `the model said "${v.verdict}" without attested evidence${dropped ? ` (${dropped} finding(s) cited unknown sources)` : ""}: ${v.reason}`,
                evidence: [],
              };
            } else out = { verdict: v.verdict, reason: v.reason, evidence: cited };
            break;
          }
          if (probes.length >= budget) {
            out = {
              verdict: "abstain",
              reason: `the model asked for another probe after its ${budget} probing action(s)`,
              evidence: [],
            };
            break;
          }
          const accepted = acceptProbe(v.probe, last);
          messages.push({ role: "assistant", content: reply.raw ?? JSON.stringify(v) });
          const left = () => `${budget - probes.length} probing action(s) left.`;
          if ("refused" in accepted) {
            probes.push({ action: JSON.stringify(v.probe), why: v.why, refused: accepted.refused });
            messages.push({ role: "user", content: `Refused, not run: ${accepted.refused}. ${left()}` });
            continue;
          }
          const step = await input.env!.step(accepted.action);
          taken.push(accepted);
          last = step.observation;
          probes.push({ action: formatAction(accepted.action), why: v.why });
          const name = `probe-${probes.filter((p) => !p.refused).length}`;
          sources.add(name);
          messages.push({
            role: "user",
            content: [
              { type: "text", text: `${name}, after ${formatAction(accepted.action)}:` },
              screenshotPart(last, o.detail),
              { type: "text", text: left() },
            ],
          });
        }
      } finally {
        if (taken.length && input.env) await undoProbes(input.env, taken);
      }
      let viewRestored: AgenticVerification["viewRestored"];
      if (taken.length && input.env) {
        const after = await input.env.observe();
        const ssim = await observationSsim(after, input.current, input.blobs);
        viewRestored = { ssim, restored: ssim >= o.ssimThreshold };
        if (!viewRestored.restored) {
          out = {
            ...out!,
            verdict: "mismatch",
            reason: `its probing actions could not be undone (SSIM ${ssim.toFixed(4)} < ${o.ssimThreshold} against the screen before verification), so the desktop is no longer in the judged state; the model had said ${out!.verdict}: ${out!.reason}`,
          };
        }
      }
      return { ...out!, usage, prompt, probes, ...(viewRestored ? { viewRestored } : {}) };
    },
  };
}

async function undoProbes(env: NonNullable<VerifyInput["env"]>, taken: readonly AcceptedProbe[]): Promise<void> {
  for (const p of [...taken].reverse()) for (const a of p.undo) await env.step(a);
}

/** Probe-report comparison lines (differences first) when both observations carry a report. */
async function reportLines(input: VerifyInput, max: number): Promise<string[]> {
  if (max === 0 || !input.target.probe || !input.current.probe) return [];
  const [t, c] = await Promise.all([
    loadProbeReport(input.blobs, input.target.probe),
    loadProbeReport(input.blobs, input.current.probe),
  ]);
  const cmp = compareProbeReports(t, c);
  const lines = [
    ...cmp.differed.map((d) => `differs ${describeProbeDifference(d)}`),
    ...cmp.matched.map((k) => `matches ${k}: ${t.items[k]}`),
  ];
  return lines.length > max ? [...lines.slice(0, max), `(${lines.length - max} more line(s) not shown)`] : lines;
}
