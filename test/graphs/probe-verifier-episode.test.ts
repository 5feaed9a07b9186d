/**
 * Probes through the runtime: with a probing SimDesk, every executed step records its probe
 * report reference, and the probe verifier judges the recovery agent's restored claims against
 * the probes recorded at step R (simulated agents; results simulated).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { loadProbeReport } from "../../packages/core/src/probes/report.ts";
import { createProbeVerifier } from "../../packages/evaluation/src/probes/verifier.ts";
import { withProbes } from "../../packages/evaluation/src/probes/with-probes.ts";
import type { StateVerifier } from "../../packages/core/src/recovery.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../packages/simdesk/src/agents/index.ts";

describe("probe verifier in recovery episodes on SimDesk (simulated agents)", () => {
  it("records a probe reference with every step and rules on each restored claim with probe evidence", async () => {
    const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-probe-ep-")), "blobs") });
    const desk = createSimDesk({ blobs });
    const env = withProbes(desk, { blobs });
    const probe = createProbeVerifier();
    const verdicts: string[] = [];
    const verifier: StateVerifier = {
      name: probe.name,
      verify: async (i) => {
        const v = await probe.verify(i);
        verdicts.push(v.verdict);
        return v;
      },
    };
    let judged = 0;
    let steps = 0;
    for (const task of SIMDESK_TASKS.filter((t) => t.plan.length >= 8).slice(0, 6)) {
      const agents = createSimAgents({
        task,
        groundTruth: desk,
        seed: 3,
        recoverer: "skilled",
        detector: "decent",
        forward: "sloppy",
      });
      const res = await runEpisode({
        task,
        components: {
          policy: agents.policy,
          env,
          blobs,
          recoverer: agents.recoverer,
          detector: agents.detector,
          verifier,
        },
        options: { seed: 3, maxRecoveryIterations: 2 },
      });
      const executed = res.trajectory.steps.filter((s) => s.actions.length > 0);
      steps += executed.length;
      for (const s of executed) expect(s.probe, `step ${s.seq} of ${task.id}`).toMatch(/^[0-9a-f]{64}$/);
      for (const e of res.trajectory.events.filter((e) => e.kind === "recovery-end")) {
        if (/probe-verifier/.test(String(e.detail.reason))) judged++;
        if (e.detail.restored)
          expect(String(e.detail.reason)).toMatch(
            /^restored claim confirmed by probe-verifier \(match\): all \d+ compared probe item\(s\) equal those recorded at step R/,
          );
      }
    }
    expect(steps).toBeGreaterThan(20);
    expect(judged).toBeGreaterThan(0);
    expect(verdicts.length).toBeGreaterThanOrEqual(judged);
    // the verifier really judged from probes: no abstentions, every verdict is a match or a mismatch
    expect(verdicts.every((v) => v === "match" || v === "mismatch")).toBe(true);
    const any = await loadProbeReport(blobs, (await env.observe()).probe!);
    expect(any.env).toBe("simdesk");
  });
});
