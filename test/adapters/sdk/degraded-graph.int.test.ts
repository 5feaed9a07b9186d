/**
 * Loud degradation on the graph path (runEpisode). A judge endpoint that answers 500, answers an HTML page, has a wrong URL, or never answers ends in
 * the documented, visible behaviour (issue 40, item 4): after `degradedAfter` failed calls in a row one
 * `degraded` event, `accounting.degraded` in the result, one plain warning line on stderr; with
 * `onDetectorFailure: "fail"` the run stops with a DetectorUnavailableError naming the endpoint; a
 * timed-out judge request is aborted and no request reaches the judge's server after its deadline.
 * The SDK paths: degraded-openai-agents.int.test.ts, degraded-ai-sdk.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEpisode } from "../../../packages/graphs/src/run-episode.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { DetectorUnavailableError } from "../../../packages/core/src/errors.ts";
import { EpisodeEvents, type DegradedEvent } from "../../../packages/core/src/runtime/events.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../../packages/simdesk/src/agents/index.ts";
import { startScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { brokenJudge, capturingStderr, judge, plainDegraded, servers, useServerCleanup } from "./degraded-fixtures.ts";

useServerCleanup();

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-degraded-")), "blobs") });
const desk = createSimDesk({ blobs });
const TASK = SIMDESK_TASKS.filter((t) => t.plan.length >= 8)[0];

function graphRun(
  detector: ReturnType<typeof judge>,
  options: Record<string, unknown>,
  events: EpisodeEvents,
  detectorTimeoutMs?: number,
) {
  const agents = createSimAgents({
    task: TASK,
    groundTruth: desk,
    seed: 1,
    recoverer: "skilled",
    detector: "decent",
    forward: "default",
  });
  return runEpisode({
    task: TASK,
    components: { policy: agents.policy, env: desk, blobs, recoverer: agents.recoverer, detector },
    options: { seed: 0, maxForwardSteps: 12, ...options },
    events,
    ...(detectorTimeoutMs !== undefined && { knobs: { detectorTimeoutMs } }),
  });
}

describe("graph path (runEpisode): a judge outage is loud", () => {
  it.each(["500", "html", "wrong-url"] as const)(
    "judge %s: degraded once (event, accounting, ONE plain warning line), the episode continues unjudged",
    async (kind) => {
      const j = await brokenJudge(kind);
      const events = new EpisodeEvents();
      const degraded: DegradedEvent[] = [];
      events.on("degraded", (e) => void degraded.push(e));
      const { value: r, lines } = await capturingStderr(() =>
        graphRun(judge(j.baseURL, blobs), { degradedAfter: 3 }, events),
      );
      expect(r.accounting.detectorCalls).toBeGreaterThanOrEqual(3);
      expect(r.accounting.detectorFailures).toBe(r.accounting.detectorCalls);
      expect(r.accounting.recoveryAttempts).toBe(0);
      expect(r.accounting.degraded).toBe(1);
      expect(degraded).toHaveLength(1);
      expect(degraded[0]).toMatchObject({ failures: 3, action: "continue", endpoint: `${j.baseURL} model judge-vlm` });
      expect(degraded[0].step).toBe(2);
      const warned = plainDegraded(lines);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(j.baseURL);
      expect(warned[0]).not.toMatch(/^\{/);
      // Per-step JSON lines stop once degraded: one per failed call up to the threshold, none after.
      expect(lines.filter((l) => l.includes('"msg":"detector failed')).length).toBe(3);
      if (kind !== "wrong-url") expect(j.requests()).toBe(r.accounting.detectorCalls); // maxRetries 0: one request per call
    },
  );

  it('onDetectorFailure: "fail" stops the run with a DetectorUnavailableError naming the judge endpoint', async () => {
    const j = await brokenJudge("500");
    const events = new EpisodeEvents();
    const err = await graphRun(judge(j.baseURL, blobs), { degradedAfter: 2, onDetectorFailure: "fail" }, events).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DetectorUnavailableError);
    expect((err as DetectorUnavailableError).message).toContain(j.baseURL);
    expect((err as DetectorUnavailableError).message.split("\n")).toHaveLength(1);
    expect((err as DetectorUnavailableError).failures).toBe(2);
    expect(j.requests()).toBe(2); // stopped at the second failed call
  });

  it("a hung judge: each call is aborted at its deadline, and no request reaches the judge's server afterwards (no background retries)", async () => {
    const hung = await startScriptedOpenAIServer({ responder: () => ({ delayMs: Infinity }) });
    servers.push(hung);
    // The client's own per-attempt timeout (250 ms) is shorter than the detector's deadline (400 ms):
    // before the fix the SDK kept retrying the raced-away call in the background.
    const detector = judge(hung.url, blobs, { timeoutMs: 250, maxRetries: 3 });
    const events = new EpisodeEvents();
    const started = Date.now();
    const { value: r } = await capturingStderr(() =>
      graphRun(detector, { degradedAfter: 2, maxForwardSteps: 4 }, events, 400),
    );
    const ended = Date.now();
    expect(r.accounting.detectorFailures).toBe(r.accounting.detectorCalls);
    expect(r.accounting.degraded).toBe(1);
    expect(ended - started).toBeLessThan(r.accounting.detectorCalls * 400 + 3_000); // each step waited at most its deadline
    const atEnd = hung.requests.length;
    expect(atEnd).toBe(r.accounting.detectorCalls); // one request per call: none retried within or after its deadline
    await new Promise((res) => setTimeout(res, 2_000)); // the window after the last deadline
    expect(hung.requests.length).toBe(atEnd);
  });
});
