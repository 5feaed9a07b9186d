import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { parseSize, runSimDeskTask } from "../../../../experiments/commands/simdesk.ts";
import { taskRows } from "../../../../experiments/commands/tasks.ts";
import { getSimDeskTask, SIMDESK_TASKS } from "../../../../packages/simdesk/src/simdesk.ts";

describe("retrace tasks / retrace simdesk", () => {
  it("lists every task with its apps, plan length and tags", () => {
    const rows = taskRows();
    expect(rows).toHaveLength(SIMDESK_TASKS.length);
    expect(rows.find((r) => r[0] === "files-restore-report")).toEqual([
      "files-restore-report",
      "files",
      "5",
      "short",
      "irreversible",
    ]);
  });

  it("replays a task's plan into an OSWorld folder with score 1", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "simdesk-cli-")), "ep");
    const task = getSimDeskTask("settings-dnd-previews");
    const r = await runSimDeskTask({ taskId: task.id, out });
    expect(r).toMatchObject({ steps: task.plan.length + 1, simulated: false, evaluation: { score: 1 } });
    const lines = readFileSync(join(out, "traj.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(task.plan.length + 1);
    expect(lines.at(-1).action).toBe("DONE");
    expect(existsSync(join(out, `step_${task.plan.length}.png`))).toBe(true);
    expect(readFileSync(join(out, "result.txt"), "utf8")).toBe("1\n");
  });

  it("labels a simulated policy's run as simulated and is deterministic under a seed", async () => {
    const root = mkdtempSync(join(tmpdir(), "simdesk-cli-"));
    const a = await runSimDeskTask({ taskId: "files-trash-two", out: join(root, "a"), policy: "sim", seed: 5 });
    const b = await runSimDeskTask({ taskId: "files-trash-two", out: join(root, "b"), policy: "sim", seed: 5 });
    expect(a.simulated).toBe(true);
    const read = (d: string) => readFileSync(join(root, d, "traj.jsonl"), "utf8");
    expect(read("a")).toContain('"simulated":true');
    expect(read("a").replace(/"env_ms":\d+/g, "")).toBe(read("b").replace(/"env_ms":\d+/g, ""));
    expect(b.evaluation).toEqual(a.evaluation);
  });

  it("rejects a bad --size", () => {
    expect(parseSize("1920x1080")).toEqual({ width: 1920, height: 1080 });
    expect(() => parseSize("big")).toThrow(ConfigError);
  });
});
