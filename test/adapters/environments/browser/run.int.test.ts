/**
 * `retrace run --env browser` with simulated agents, offline: an end-to-end ablation (no
 * recovery vs a retry cap, snapshot restoration) on two built-in browser tasks in real Chromium,
 * then `retrace report` on its folder.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { retrace, stop, type CliProc } from "../../../helpers/cli-procs.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);

// env.kind simdesk on purpose: --env browser overrides it.
const CONFIG = `kind: end-to-end
name: browser-run-test
env: { kind: simdesk, tasks: [mail-star-carol, admin-promote-bruno] }
seeds: { count: 1 }
options: { maxForwardSteps: 6, freezeWindow: 1, recoveryBudget: 3, restoration: snapshot }
maxRecoveryIterations: [2]
pairs:
  - name: sim
    forward: { kind: sim, profile: sloppy, slipRate: 0.6 }
    detector: { kind: sim }
    selector: { kind: sim }
`;

describe.runIf(tools.run)("retrace run --env browser", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-browser-run-"));
  const procs: CliProc[] = [];
  afterAll(async () => {
    for (const p of procs) await stop(p);
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs an offline ablation with simulated agents and writes a report", async () => {
    tools.assert();
    writeFileSync(join(dir, "cfg.yaml"), CONFIG);
    const out = join(dir, "out");
    const run = retrace(["run", join(dir, "cfg.yaml"), "--env", "browser", "--out", out, "--workers", "1", "-q"]);
    procs.push(run);
    expect(await run.exited, run.lines.join("\n")).toBe(0);
    expect(run.lines.join("\n")).toMatch(/sim\.max-rec-2/);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.key).sort()).toEqual(["sim.max-rec-2/admin-promote-bruno/0", "sim.max-rec-2/mail-star-carol/0", "sim.no-recovery/admin-promote-bruno/0", "sim.no-recovery/mail-star-carol/0"]);
    expect(lines.every((l) => l.status === "ok" && l.simulated === true)).toBe(true);
    // Seed 0 slips on Bruno's row: without recovery the task fails; a snapshot restore and a retry fix it.
    const bruno = Object.fromEntries(lines.filter((l) => l.task === "admin-promote-bruno").map((l) => [l.condition, l]));
    expect(bruno["sim.no-recovery"].success).toBe(false);
    expect(bruno["sim.max-rec-2"].recoveryAttempts).toBeGreaterThanOrEqual(1);
    expect(bruno["sim.max-rec-2"].success).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.simulated).toBe(true);
    expect(summary.conditions.map((c: { condition: string }) => c.condition)).toEqual(["sim.no-recovery", "sim.max-rec-2"]);

    const report = retrace(["report", out, "-q"]);
    procs.push(report);
    expect(await report.exited, report.lines.join("\n")).toBe(0);
    expect(existsSync(join(out, "report.html"))).toBe(true);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("browser-run-test");
  });
});
