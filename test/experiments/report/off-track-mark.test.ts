/**
 * The ground-truth "went off track here" mark (issue 37): a failed no-recovery SimDesk episode's
 * record names the step its state left SimDesk's reference plan for good, and its view marks that
 * step only; an environment without ground truth (a runtime with no `groundTruthOffTrack`) marks none.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runExperiment } from "../../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../../experiments/runtime/simdesk.ts";
import { viewerEpisode } from "../../../experiments/report/viewer-episode.ts";
import type { EpisodeRecord } from "../../../experiments/runner/episode.ts";
import type { EndToEndConfig } from "../../../experiments/config/schema.ts";
import { standInRuntime } from "../helpers/stand-in.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-offtrack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function records(out: string): EpisodeRecord[] {
  return readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { key: string; condition: string; task: string; seed: number; status: string })
    .filter((l) => l.status === "ok")
    .map(
      (l) =>
        JSON.parse(
          readFileSync(join(out, l.condition, l.task, String(l.seed), "trajectory.json"), "utf8"),
        ) as EpisodeRecord,
    );
}

describe("ground-truth off-track mark", () => {
  it("marks the slip step of a failed no-recovery SimDesk episode, and nothing in a solved one", async () => {
    const out = join(dir, "simdesk");
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "offtrack",
      env: { kind: "simdesk", limit: 4 },
      seeds: { count: 6 },
      maxRecoveryIterations: [1],
      pairs: [{ name: "s", forward: { kind: "sim", profile: "sloppy" } }],
      options: { maxForwardSteps: 20 },
    }) as EndToEndConfig;
    await runExperiment(config, createSimDeskRuntime(), { out, workers: 1 });
    const bare = records(out).filter((r) => r.condition.endsWith("no-recovery"));
    const failed = bare.filter((r) => !r.success);
    expect(failed.length).toBeGreaterThan(0);
    for (const r of bare.filter((x) => x.success)) expect(r.offTrack).toBeUndefined();
    // A failed episode with one slip the policy never noticed: the mark is on that slip's step.
    const oneSlip = failed.filter(
      (r) =>
        r.trajectory.steps.filter((s) => /slip\(/.test(s.response ?? "")).length === 1 &&
        !r.trajectory.steps.some((s) => /notice|undo|redo/.test(s.response ?? "")),
    );
    expect(oneSlip.length).toBeGreaterThan(0);
    for (const r of oneSlip) {
      const slip = r.trajectory.steps.findIndex((s) => /slip\(/.test(s.response ?? ""));
      expect(r.offTrack, r.key).toMatchObject({ seq: r.trajectory.steps[slip].seq });
      const view = viewerEpisode(r, join(out, "blobs"), out);
      expect(
        view.steps.filter((s) => s.offTrack).map((s) => s.n),
        r.key,
      ).toEqual([slip]);
      expect(view.steps[slip].offTrack).toMatch(/^went off track here \(SimDesk/);
    }
  }, 120_000);

  it("says nothing where the environment has no ground truth to offer", async () => {
    const out = join(dir, "counter");
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "counter",
      env: { kind: "counter" },
      seeds: [0, 1, 2],
      maxRecoveryIterations: [1],
      pairs: [{ name: "a", forward: { profile: "x" } }],
      options: { maxForwardSteps: 3 },
    }) as EndToEndConfig;
    await runExperiment(config, standInRuntime(join(out, "x")), { out, workers: 1 });
    const all = records(out);
    expect(all.some((r) => !r.success)).toBe(true);
    for (const r of all) {
      expect(r.offTrack).toBeUndefined();
      expect(viewerEpisode(r, join(out, "x"), out).steps.some((s) => s.offTrack)).toBe(false);
    }
  });
});
