import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { writeEpisodeOutput } from "../../../packages/core/src/store/episode-output.ts";
import type { Trajectory } from "../../../packages/core/src/trajectory.ts";

describe("writeEpisodeOutput", () => {
  it("writes traj.jsonl, step_N.png copies and result.txt in OSWorld's layout, labelled simulated", async () => {
    const root = mkdtempSync(join(tmpdir(), "episode-out-"));
    const blobs = new BlobStore({ dir: join(root, "blobs") });
    const [a, b, c] = await Promise.all(["png-a", "png-b", "png-c"].map((t) => blobs.put(Buffer.from(t))));
    const trajectory: Trajectory = {
      taskId: "t1",
      steps: [
        {
          seq: 0,
          role: "forward",
          step: 0,
          actions: [{ type: "CLICK", x: 10, y: 20, button: "left", numClicks: 1 }],
          response: "click it",
          before: a,
          after: b,
          info: { noop: false },
        },
        {
          seq: 1,
          role: "recovery",
          step: 0,
          attempt: 1,
          actions: [{ type: "HOTKEY", keys: ["ctrl", "z"] }],
          before: b,
          after: c,
        },
      ],
      events: [],
      result: { score: 1, detail: "ok" },
    };
    const dir = join(root, "out");
    const summary = await writeEpisodeOutput({ dir, trajectory, blobs, simulated: true });
    expect(summary).toEqual({ dir, steps: 2, screenshots: 3, score: 1 });
    expect(readdirSync(dir).sort()).toEqual([
      "result.json",
      "result.txt",
      "step_0.png",
      "step_1.png",
      "step_2.png",
      "traj.jsonl",
    ]);
    const lines = readFileSync(join(dir, "traj.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      step_num: 1,
      action: "CLICK(10,20)",
      response: "click it",
      screenshot_file: "step_1.png",
      info: { role: "forward", noop: false, simulated: true },
    });
    expect(lines[1]).toMatchObject({
      step_num: 2,
      action: "HOTKEY(ctrl+z)",
      info: { role: "recovery", attempt: 1, simulated: true },
    });
    expect(readFileSync(join(dir, "step_2.png"), "utf8")).toBe("png-c");
    expect(readFileSync(join(dir, "step_0.png"), "utf8")).toBe("png-a");
    expect(readFileSync(join(dir, "result.txt"), "utf8")).toBe("1\n");
    expect(JSON.parse(readFileSync(join(dir, "result.json"), "utf8"))).toMatchObject({
      taskId: "t1",
      score: 1,
      simulated: true,
    });
  });

  it("takes an explicit score and names a missing screenshot", async () => {
    const root = mkdtempSync(join(tmpdir(), "episode-out-"));
    const blobs = new BlobStore({ dir: join(root, "blobs") });
    const ok = await blobs.put(Buffer.from("x"));
    const t: Trajectory = {
      taskId: "t2",
      steps: [{ seq: 0, role: "forward", step: 0, actions: [{ type: "DONE" }], before: ok, after: ok }],
      events: [],
    };
    expect(
      (await writeEpisodeOutput({ dir: join(root, "a"), trajectory: t, blobs, score: 0, simulated: false })).score,
    ).toBe(0);
    expect(readFileSync(join(root, "a", "result.txt"), "utf8")).toBe("0\n");
    const missing = { ...t, steps: [{ ...t.steps[0], after: "f".repeat(64) }] };
    await expect(
      writeEpisodeOutput({ dir: join(root, "b"), trajectory: missing, blobs, simulated: false }),
    ).rejects.toThrow(ConfigError);
    await expect(writeEpisodeOutput({ dir: "", trajectory: t, blobs, simulated: false })).rejects.toThrow(
      /dir is empty/,
    );
  });
});
