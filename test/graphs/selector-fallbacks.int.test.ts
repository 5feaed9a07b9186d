/**
 * A failed LLM selector falls back to R = E-1, and that is counted: in the episode's accounting,
 * the results line and summary.json (per condition and per run), not only in the trajectory's
 * selection record. The selector is the real LLM selector against a scripted HTTP server whose
 * replies are never a usable step (plumbing only: nothing here depends on sampling).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../packages/simdesk/src/agents/index.ts";
import { createLlmStepSelector } from "../../packages/models/src/llm/selector.ts";
import { createOpenAIChatModel } from "../../packages/models/src/models/openai-chat.ts";
import { startScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import { outcomeOf } from "../../experiments/runner/episode.ts";
import { summarize } from "../../experiments/runner/summary.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-sel-fb-")), "blobs") });
const desk = createSimDesk({ blobs });
const server = await startScriptedOpenAIServer({ responder: () => ({ text: "I would go back a bit." }) });
afterAll(() => server.close());

describe("selector fallbacks are counted", () => {
  it("counts every E-1 fallback of a failing LLM selector in accounting, the results line and summary.json", async () => {
    const model = createOpenAIChatModel({
      model: "scripted-vlm",
      blobs,
      baseURL: server.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const selector = createLlmStepSelector({ model, historyImages: 1 });
    const lines: ResultLine[] = [];
    let attempts = 0,
      fellBack = 0;
    for (const [i, task] of SIMDESK_TASKS.filter((t) => t.plan.length >= 8)
      .slice(0, 6)
      .entries()) {
      const agents = createSimAgents({
        task,
        groundTruth: desk,
        seed: 1,
        recoverer: "skilled",
        detector: "decent",
        forward: "sloppy",
      });
      const res = await runEpisode({
        task,
        components: {
          policy: agents.policy,
          env: desk,
          blobs,
          recoverer: agents.recoverer,
          detector: agents.detector,
          selector,
        },
        options: { seed: 0, recoveryStep: "llm", maxRecoveryIterations: 2 },
      });
      attempts += res.accounting.recoveryAttempts;
      // E = 0 needs no model call (R = 0); every other selection asked the server and fell back
      const starts = res.trajectory.events.filter((e) => e.kind === "recovery-start");
      const asked = starts.filter((e) => Number(e.detail.errorStep) > 0);
      for (const e of asked) expect((e.detail.selection as { failure?: string }).failure).toMatch(/fell back to E-1/);
      expect(res.accounting.selectorFallbacks ?? 0).toBe(asked.length);
      fellBack += asked.length;
      const line = {
        key: `c/${task.id}/0`,
        index: i,
        experiment: "x",
        condition: "c",
        task: task.id,
        seed: 0,
        status: "ok",
        envTries: 1,
        ...outcomeOf(res, null),
      } as ResultLine;
      expect(line.selectorFallbacks ?? 0).toBe(asked.length);
      lines.push(line);
    }
    expect(fellBack).toBeGreaterThan(0);
    const summary = summarize({ experiment: "x", kind: "end-to-end", lines });
    expect(summary.selectorFallbacks).toEqual({ fallbacks: fellBack, attempts });
    expect(summary.conditions[0].selectorFallbacks).toEqual({ fallbacks: fellBack, attempts });
  }, 120_000);
});
