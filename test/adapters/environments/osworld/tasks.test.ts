import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadOsworldTasks, parseOsworldTask } from "../../../../packages/desktops/src/osworld/tasks.ts";
import { metric, osworldResultDir } from "../../../../packages/desktops/src/osworld/runner.ts";

const TASKS_DIR = new URL("../../../../../shared/osworld-tasks", import.meta.url).pathname;

describe("OSWorld task loader", () => {
  it("loads all 246 real task files and reports, per task, what it cannot execute", async () => {
    const report = await loadOsworldTasks(TASKS_DIR);
    expect(report.tasks.length + report.rejected.length).toBe(246);
    expect(report.rejected).toEqual([]);
    for (const t of report.tasks) {
      const steps = [
        ...(t.setup as Array<{ type: string }>),
        ...(t.evaluator.postconfig as Array<{ type: string }>),
      ].map((s) => s.type);
      // every step is accounted for, supported or listed as unsupported
      expect([...t.support.supportedSetup, ...t.support.unsupportedSetup].sort()).toEqual(steps.sort());
    }
    const chrome = report.tasks.filter((t) => t.domain === "chrome");
    expect(chrome.length).toBe(33);
    expect(report.summary.unsupportedSetup.chrome_open_tabs).toBe(34);
    expect(report.summary.unsupportedSetup.download).toBeUndefined();
    expect(report.summary.unsupportedMetrics.compare_table).toBe(35); // tasks, not occurrences (two tasks use it twice);
    expect(report.summary.fullyNative).toBeGreaterThan(0);
    expect(report.summary.fullyNative).toBeLessThan(246);
  });

  it("rejects broken files with a reason naming the problem", async () => {
    const dir = mkdtempSync(join(tmpdir(), "osw-"));
    mkdirSync(join(dir, "os"));
    writeFileSync(join(dir, "os", "a.json"), "{not json");
    writeFileSync(join(dir, "os", "b.json"), JSON.stringify({ id: "b", instruction: "x", evaluator: {} }));
    writeFileSync(
      join(dir, "os", "c.json"),
      JSON.stringify({ id: "other", instruction: "x", evaluator: { func: "exact_match" } }),
    );
    const report = await loadOsworldTasks(dir);
    expect(report.tasks).toEqual([]);
    expect(report.rejected.map((r) => r.reason)).toEqual([
      expect.stringContaining("not valid JSON"),
      expect.stringContaining("evaluator.func"),
      expect.stringContaining('id "other" does not match the file name'),
    ]);
  });

  it("marks a task fully native only when setup, getters and metrics are all supported", () => {
    const t = parseOsworldTask(
      JSON.stringify({
        id: "x",
        instruction: "i",
        config: [{ type: "sleep", parameters: { seconds: 1 } }],
        evaluator: {
          func: "check_include_exclude",
          result: { type: "vm_file", path: "~/a" },
          expected: { type: "rule", rules: { include: ["a"] } },
        },
      }),
      "x.json",
      "os",
    );
    expect("support" in t && t.support.fullyNative).toBe(true);
    const u = parseOsworldTask(
      JSON.stringify({
        id: "y",
        instruction: "i",
        config: [{ type: "googledrive", parameters: {} }],
        evaluator: { func: "compare_table", result: { type: "vm_file" } },
      }),
      "y.json",
      "os",
    );
    expect("support" in u && u.support).toMatchObject({
      fullyNative: false,
      unsupportedSetup: ["googledrive"],
      unsupportedMetrics: ["compare_table"],
    });
  });
});

describe("OSWorld native metrics and result layout", () => {
  it("computes include/exclude and exact matches like OSWorld", () => {
    expect(metric("check_include_exclude", "43 132\n", { include: ["43 132"], exclude: [] })).toBe(1);
    expect(metric("check_include_exclude", "24 80", { include: ["43 132"], exclude: [] })).toBe(0);
    expect(metric("exact_match", "yes", { expected: "yes" })).toBe(1);
    expect(() => metric("compare_table", "", {})).toThrow(/Python bridge/);
  });

  it("places results where OSWorld's viewers look", () => {
    expect(
      osworldResultDir("/r", {
        actionSpace: "pyautogui",
        observationType: "screenshot",
        model: "m",
        domain: "os",
        taskId: "t1",
      }),
    ).toBe("/r/pyautogui/screenshot/m/os/t1");
  });
});

describe("OSWorld Python bridge", () => {
  it("says clearly when OSWorld's evaluators are not installed", async () => {
    const { OsworldPythonBridge } = await import("../../../../packages/desktops/src/osworld/python-bridge.ts");
    const bridge = new OsworldPythonBridge({ osworldDir: "/nonexistent/OSWorld" });
    const r = await bridge.available();
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/not importable.*install OSWorld/);
  });
});
