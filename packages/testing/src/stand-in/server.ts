/**
 * A stochastic stand-in for a sampling vision-language model, behind the OpenAI chat-completions
 * API, for tests and offline runs of retrace's real model path (see ./index.ts for what it
 * plays). It is a simulated model: it answers under its own name (`retrace-stand-in`) whatever
 * model a request names, and results from it must be labelled as such.
 *
 * Start it from a test (it listens on 127.0.0.1 on a free port):
 *
 *   const standIn = await startStandInServer({ errorRate: 0.2 });
 *   try {
 *     // point a model agent at it: { kind: "model", model: standIn.model, baseUrl: standIn.url, observation:
 * "a11y_tree" }
 *   } finally {
 *     await standIn.close();
 *   }
 *
 * Sampling: a request's `seed` (integer) and its prompt text fix its answer (same seed and text,
 * same answer; another seed, another draw). A request without a seed draws from the server's own
 * stream (`seed` option + a counter), so a run is reproducible when requests arrive in the same
 * order, as with one worker. `temperature` (default 1) reshapes the answer distribution; 0 gives
 * the most likely answer every time.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { judgeDetector, judgeSelector, judgeSummarizer, judgeVerifier, type DetectorNoise } from "./judges.ts";
import { playForward, playPerturber } from "./play.ts";
import { playRecovery, textWithoutContext } from "./recover.ts";
import { readRequest, treeTexts, type StandInRole } from "./request.ts";
import { logger } from "@retrace-cua/core/logger";
import { drawFor } from "./sampling.ts";
import { defaultSkillBook, type SkillBook } from "./skills.ts";
import { loadTokenizer, promptTokenIds, textTokens } from "./tokens.ts";
import { PrefixCache, type PrefixCacheOptions } from "./prefix-cache.ts";
import { closeServer, listenLoopback, modelList, readBody, sendJson } from "../http.ts";

/** The name the stand-in answers under. */
export const STAND_IN_MODEL = "retrace-stand-in";

/**
 * The `system_fingerprint` of every answer: it declares the server a simulated stand-in, and
 * retrace's model client labels every call answered under it simulated (see
 * packages/models/src/models/openai-chat.ts `isStandInFingerprint`).
 */
export const STAND_IN_FINGERPRINT = "retrace-stand-in-simulated";

/** Options of {@link startStandInServer}. */
export interface StandInServerOptions {
  /** Share of forward answers (at temperature 1) that are mistakes. @default 0.1 */
  errorRate?: number;
  /** Seed of the stream that requests without a `seed` draw from. @default 0 */
  seed?: number;
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /**
   * Chance (at temperature 1) that the forward agent's first answer after a cut loses track of the
   * state (acts as if its undone actions still held); each cue of a detailed transition string
   * halves it (play.ts). @default 0.3
   */
  postCutErrorRate?: number;
  /**
   * Relative weight of each kind of forward mistake (misclick, latent: a stray shortcut that
   * silently toggles a setting, premature-done, skip, and the catalogue's wrong-item, typo); a kind
   * left out keeps 1 (the task's catalogue mistakes weigh 3 to start with). @default {}
   */
  slipMix?: Partial<Record<string, number>>;
  /**
   * Share of recovery answers (at temperature 1) that slip (a wrong click or a premature RESTORED). @default errorRate
   * / 2
   */
  recoveryErrorRate?: number;
  /**
   * The recoverer ignores its context (and the note about it): every recovery context then gets the same answers.
   * @default false
   */
  ignoreContext?: boolean;
  /** Detector noise. @default { recall: 0.85, silentRecall: 0.7, falseAlarm: 0.03, stepNoise: 0.2 } */
  detector?: Partial<DetectorNoise>;
  /** What it knows of the tasks. @default the skill book shipped with it (skills.json) */
  skills?: SkillBook;
  /**
   * The simulated automatic prefix cache (./prefix-cache.ts): every answer reports
   * `usage.prompt_tokens_details.cached_tokens`, the longest prefix (from 1,024 tokens, in steps of
   * 128) shared with the recent prompts of its `prompt_cache_key` (or of all requests without
   * one). `false`: no cache, `cached_tokens` is always 0. @default { groups: 256, perGroup: 4 }
   */
  prefixCache?: PrefixCacheOptions | false;
}

/** What the stand-in declares about its prompt cache (in `GET /v1/models` and every answer's `stand_in`). */
export const PREFIX_CACHE_NOTE =
  "simulated automatic prefix cache: cached_tokens = the longest prefix shared with recent prompts of the same prompt_cache_key, from 1024 tokens, in steps of 128";

/** Settings of {@link answerRequest}. */
export interface StandInSettings {
  errorRate: number;
  recoveryErrorRate: number;
  slipMix?: Partial<Record<string, number>>;
  postCutErrorRate: number;
  ignoreContext: boolean;
  book: SkillBook;
  detector: DetectorNoise;
}

/** One answered request, for tests and the CLI's summary. */
export interface StandInLogEntry {
  index: number;
  role: StandInRole;
  /** The seed the draw used: `request:<n>` or `stream:<seed>:<k>`. */
  seed: string;
  temperature: number;
  /** What the answer was (e.g. "correct", "misclick", "undo", "hit", "false-alarm"). */
  kind: string;
  text: string;
  /** Recovery only: context steps at or after R the prompt showed (what it could undo). */
  undoing?: number[];
  /** Forward only, after a cut: the chance of losing track the prompt's transition string left. */
  cutRate?: number;
  /**
   * An acting role (forward, recovery, perturber) whose last message showed a screenshot and no
   * accessibility tree: the stand-in cannot see images, so it followed its plan by step count
   * (its own earlier answers), not the screen. Also declared in the reply (`stand_in.blind`) and
   * warned about once per server on stderr.
   */
  blind?: boolean;
  /** Usage as reported: prompt tokens (text by o200k_base, images by OpenAI's tile rule) and completion tokens. */
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those the simulated prefix cache reported cached (`prompt_tokens_details.cached_tokens`). */
  cachedTokens: number;
  /** The request's `prompt_cache_key`, when it sent one. */
  cacheKey?: string;
}

/** A running stand-in. */
export interface StandInServer {
  /** Base URL ending in /v1. */
  readonly url: string;
  readonly origin: string;
  /** The model name it answers under. */
  readonly model: string;
  /** Chat-completion requests answered so far. */
  readonly calls: number;
  /** Every answered request, in order. */
  readonly log: StandInLogEntry[];
  close(): Promise<void>;
}

/** The answer to one chat-completions body (exported for the CLI's dry runs and tests of the roles). */
export function answerRequest(
  body: unknown,
  seed: string,
  options: StandInSettings,
): Omit<StandInLogEntry, "index" | "seed" | "promptTokens" | "completionTokens" | "cachedTokens" | "cacheKey"> {
  const req = readRequest(body);
  // Ignoring its context, the recoverer's answer is drawn from what it reads: the prompt without the context.
  const drawText = req.role === "recovery" && options.ignoreContext ? textWithoutContext(req) : req.text;
  const draw = drawFor(seed, drawText, req.temperature);
  const play = {
    errorRate: options.errorRate,
    postCutErrorRate: options.postCutErrorRate,
    book: options.book,
    ...(options.slipMix && { slipMix: options.slipMix }),
  };
  const last = req.messages[req.messages.length - 1];
  const blind =
    (req.role === "forward" || req.role === "recovery" || req.role === "perturber") &&
    !!last &&
    last.images.length > 0 &&
    treeTexts(last.text).length === 0;
  const base = { role: req.role, temperature: req.temperature, ...(blind && { blind: true }) };
  switch (req.role) {
    case "forward": {
      const p = playForward(req, draw, play);
      return { ...base, text: p.text, kind: p.kind, ...(p.cutRate !== undefined && { cutRate: p.cutRate }) };
    }
    case "perturber":
      return { ...base, ...pick(playPerturber(req, draw, play)) };
    case "recovery": {
      const r = playRecovery(req, draw, { slipRate: options.recoveryErrorRate, ignoreContext: options.ignoreContext });
      return { ...base, kind: r.kind, text: r.text, undoing: r.undoing };
    }
    case "detector":
      return { ...base, ...judgeDetector(req, draw, options.book, options.detector) };
    case "selector":
      return { ...base, ...judgeSelector(req, draw, options.book) };
    case "summarizer":
      return { ...base, ...judgeSummarizer(req, draw, options.book) };
    case "verifier":
      return { ...base, ...judgeVerifier(req, draw) };
    default:
      return {
        ...base,
        kind: "unknown",
        text: "I am a stand-in for a computer-use model and do not know how to answer this prompt.",
      };
  }
}

function pick(p: { text: string; kind: string }): { text: string; kind: string } {
  return { text: p.text, kind: p.kind };
}

/** What the stand-in says when a request shows only screenshots (it reads text, not images). */
export const BLIND_NOTE =
  "stand-in: this request shows a screenshot and no accessibility tree; the stand-in cannot see images and follows its plan by step count (use observation: a11y_tree or screenshot_a11y_tree for answers grounded on the screen)";

/** Start the stand-in on 127.0.0.1. */
export async function startStandInServer(options: StandInServerOptions = {}): Promise<StandInServer> {
  const errorRate = options.errorRate ?? 0.1;
  if (!(errorRate >= 0 && errorRate <= 1))
    throw new ConfigError(`stand-in: errorRate must be between 0 and 1, got ${errorRate}`);
  const postCutErrorRate = options.postCutErrorRate ?? 0.3;
  if (!(postCutErrorRate >= 0 && postCutErrorRate <= 1))
    throw new ConfigError(`stand-in: postCutErrorRate must be between 0 and 1, got ${postCutErrorRate}`);
  const recoveryErrorRate = options.recoveryErrorRate ?? errorRate / 2;
  if (!(recoveryErrorRate >= 0 && recoveryErrorRate <= 1))
    throw new ConfigError(`stand-in: recoveryErrorRate must be between 0 and 1, got ${recoveryErrorRate}`);
  const settings: StandInSettings = {
    errorRate,
    recoveryErrorRate,
    postCutErrorRate,
    ignoreContext: options.ignoreContext ?? false,
    ...(options.slipMix && { slipMix: options.slipMix }),
    book: options.skills ?? defaultSkillBook(),
    detector: { recall: 0.85, silentRecall: 0.7, falseAlarm: 0.03, stepNoise: 0.2, ...options.detector },
  };
  await loadTokenizer();
  const prefixCache = options.prefixCache === false ? undefined : new PrefixCache(options.prefixCache);
  const streamSeed = options.seed ?? 0;
  const log: StandInLogEntry[] = [];
  let stream = 0;
  let warnedBlind = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path.endsWith("/models"))
      return sendJson(res, 200, {
        ...(modelList(STAND_IN_MODEL, "retrace (simulated stand-in)") as object),
        stand_in: { simulated: true, prompt_cache: prefixCache ? PREFIX_CACHE_NOTE : "none" },
      });
    if (req.method !== "POST" || !path.endsWith("/chat/completions"))
      return sendJson(res, 404, {
        error: {
          message: `stand-in: ${req.method} ${path} is not served (POST /v1/chat/completions, GET /v1/models)`,
          type: "invalid_request_error",
        },
      });
    let body: any;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, {
        error: { message: "stand-in: the body is not JSON", type: "invalid_request_error" },
      });
    }
    const seed = Number.isInteger(body?.seed) ? `request:${body.seed}` : `stream:${streamSeed}:${stream++}`;
    const a = answerRequest(body, seed, settings);
    const index = log.length;
    const tokens = promptTokenIds(body);
    const promptTokens = tokens.length;
    const cacheKey =
      typeof body?.prompt_cache_key === "string" && body.prompt_cache_key
        ? (body.prompt_cache_key as string)
        : undefined;
    const cachedTokens = prefixCache ? prefixCache.lookup(tokens, cacheKey) : 0;
    const completionTokens = Math.max(1, textTokens(a.text));
    log.push({ index, seed, ...a, promptTokens, completionTokens, cachedTokens, ...(cacheKey && { cacheKey }) });
    if (a.blind && !warnedBlind) {
      warnedBlind = true;
      logger.warn({ request: index, role: a.role }, BLIND_NOTE);
    }
    sendJson(res, 200, {
      stand_in: {
        simulated: true,
        ...(a.blind && { blind: true, note: BLIND_NOTE }),
        ...(prefixCache && { prompt_cache: PREFIX_CACHE_NOTE }),
      },
      id: `chatcmpl-stand-in-${index}`,
      object: "chat.completion",
      created: 0,
      model: STAND_IN_MODEL,
      system_fingerprint: STAND_IN_FINGERPRINT,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: a.text, refusal: null },
          finish_reason: "stop",
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: cachedTokens },
      },
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `stand-in failed: ${(err as Error).message}`, type: "server_error" } });
    });
  });
  const origin = await listenLoopback(server, options.port ?? 0);
  return {
    url: `${origin}/v1`,
    origin,
    model: STAND_IN_MODEL,
    log,
    get calls() {
      return log.length;
    },
    async close() {
      await closeServer(server);
    },
  };
}
