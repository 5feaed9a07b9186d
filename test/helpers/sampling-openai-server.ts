/**
 * A small *sampling* OpenAI-compatible server for tests of draws, seeds and the cache (built on
 * the scripted server's `responder`). Like a real sampling model it answers from a random draw:
 * at temperature 0 the answer is a function of the request body alone (greedy decoding); above 0
 * it is drawn from an RNG seeded by (request `seed`, temperature, body without the seed), so the
 * same seed gives the same answer and a different seed a different draw; without a `seed` every
 * request is a fresh draw, as on a server that ignores seeds. The answers are plausible for each
 * role: the forward agent and the recoverer click somewhere on the screen (or say DONE /
 * RESTORED now and then), the detector flags step 0, the selector picks R = 0, the summarizer
 * writes a brief. It plays no task well: it exists to make answers depend on the draw.
 */
import { hashValue } from "../../packages/core/src/hash.ts";
import { createRng, type Rng } from "../../packages/core/src/rng.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptStep,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { roleOf, type ScriptRole } from "../experiments/helpers/model-roles.ts";

/** A running sampling server: the scripted server plus per-role counts and the seeds it received. */
export interface SamplingOpenAIServer extends ScriptedOpenAIServer {
  /** Requests per role. */
  readonly byRole: Record<ScriptRole, number>;
  /** Role and `seed` field of every chat request, in arrival order (seed undefined when absent). */
  readonly received: Array<{ role: ScriptRole; seed: number | undefined }>;
}

/** Options of {@link startSamplingOpenAIServer}. */
export interface SamplingServerOptions {
  /** Chance that a forward step says DONE. @default 0.15 */
  doneRate?: number;
}

/** The RNG of one request: greedy at temperature 0, seeded by (seed, temperature, body) above, fresh without a seed. */
function rngOf(body: Record<string, unknown>, fresh: () => string): Rng {
  const { seed, ...rest } = body;
  const temperature = typeof rest.temperature === "number" ? rest.temperature : 1;
  if (temperature === 0) return createRng(hashValue(rest), "greedy");
  if (typeof seed !== "number") return createRng(fresh(), "unseeded");
  return createRng(hashValue({ seed, temperature, rest }), "seeded");
}

function click(rng: Rng): string {
  return `pyautogui.click(${rng.int(20, 1260)}, ${rng.int(20, 780)})`;
}

/** One role's answer from the request's draw. */
export function sampleAnswer(role: ScriptRole, rng: Rng, doneRate: number): ScriptStep {
  switch (role) {
    case "forward":
      return rng.chance(doneRate)
        ? { text: "DONE" }
        : { text: `I will try this.\n\`\`\`python\n${click(rng)}\n\`\`\`` };
    case "recoverer":
      return rng.chance(0.5) ? { text: "RESTORED" } : { text: `Undo.\n\`\`\`python\n${click(rng)}\n\`\`\`` };
    case "detector":
      return {
        text: JSON.stringify({
          off_track: true,
          error_step: 0,
          reason: `looks wrong (${rng.int(0, 99)})`,
          confidence: 0.9,
        }),
      };
    case "selector":
      return { text: JSON.stringify({ recovery_step: 0, reason: `start over (${rng.int(0, 99)})` }) };
    case "summarizer":
      return { text: `TARGET STATE: the start screen.\nHOW IT GOT THERE:\n- nothing yet (${rng.int(0, 99)})` };
  }
}

/** Start a sampling server on 127.0.0.1. */
export async function startSamplingOpenAIServer(options: SamplingServerOptions = {}): Promise<SamplingOpenAIServer> {
  const byRole: Record<ScriptRole, number> = { forward: 0, detector: 0, selector: 0, summarizer: 0, recoverer: 0 };
  const received: Array<{ role: ScriptRole; seed: number | undefined }> = [];
  let unseeded = 0;
  const server = await startScriptedOpenAIServer({
    model: "sampling-vlm",
    responder(r: RecordedRequest) {
      if (r.endpoint !== "chat") return undefined;
      const body = (r.body ?? {}) as Record<string, unknown>;
      const role = roleOf(r);
      received.push({ role, seed: typeof body.seed === "number" ? body.seed : undefined });
      byRole[role]++;
      return sampleAnswer(
        role,
        rngOf(body, () => `fresh-${unseeded++}`),
        options.doneRate ?? 0.15,
      );
    },
  });
  return Object.assign(server, { byRole, received });
}
