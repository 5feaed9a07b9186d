/**
 * The stand-in presets (experiments/configs/stand-in/) through the real CLI, narrowed to a few
 * tasks: the end-to-end ablation and the recovery evaluation, over HTTP against the stand-in.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../../../packages/testing/src/stand-in/server.ts";
import { cli } from "../../../experiments/helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-stand-in-presets-"));
let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer({ errorRate: 0.2, seed: 5 });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function narrowed(name: string, patch: (c: Record<string, any>) => void): string {
  const config = parseYaml(
    readFileSync(new URL(`../../../../experiments/configs/stand-in/${name}.yaml`, import.meta.url), "utf8"),
  ) as Record<string, any>;
  patch(config);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe("stand-in presets over HTTP", () => {
  it("runs the end-to-end preset: every role answered by the stand-in, recorded under its name", async () => {
    const cfg = narrowed("end-to-end", (c) => {
      c.env = { kind: "simdesk", tasks: ["editor-append-notes", "files-rename-draft"] };
      c.seeds = [0];
      c.maxRecoveryIterations = [1];
    });
    const out = join(dir, "e2e");
    const r = await cli("run", cfg, "--base-url", server.url, "--out", out, "--workers", "1", "--quiet");
    // No process warning either (an episode's signal once collected one abort listener per call).
    expect(r.stderr.split("\n").filter((l) => l)).toEqual([]);
    expect(r.code).toBe(0);
    const rows = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => x.condition)).toEqual([
      "stand-in.no-recovery",
      "stand-in.no-recovery",
      "stand-in.max-rec-1",
      "stand-in.max-rec-1",
    ]);
    expect(rows.every((x) => x.status === "ok" && x.models.policy.calls > 0)).toBe(true);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toContain("retrace-stand-in");
    const roles = new Set(server.log.map((l) => l.role));
    expect(roles.has("forward") && roles.has("detector")).toBe(true);
  }, 60_000);

  it("runs the ideal-recovery preset: the stand-in's failed rollouts are annotated and resumed over HTTP", async () => {
    const cfg = narrowed("ideal-recovery", (c) => {
      c.env = { kind: "simdesk", tasks: ["cross-budget-total-report"] };
      c.seeds = [0, 1];
      c.k = 2;
      c.strategies = ["zero", "llm"];
    });
    const out = join(dir, "ideal");
    const from = server.log.length;
    const r = await cli("run", cfg, "--base-url", server.url, "--out", out, "--workers", "1", "--quiet");
    expect(r.code).toBe(0);
    const rows = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.condition === "forward")).toHaveLength(2);
    expect(rows.every((x) => x.status === "ok")).toBe(true);
    expect(server.log.slice(from).some((l) => l.role === "forward")).toBe(true);
  }, 60_000);

  it("gives recovery-evaluation context rows from what each prompt shows: only 0-E prompts list the actions after the target, and only they lead to undoing a silent change", async () => {
    const cfg = narrowed("recovery-eval", (c) => {
      c.env.tasks = [
        "settings-dnd-previews",
        "editor-append-notes",
        "files-rename-draft",
        "settings-power-blank",
        "editor-replace-todo",
      ];
      // d = 5: actions after the target that the screen does not show (at d = 1 the one mistake is
      // visible, and the stand-in undoes a visible edit without context, so 0-E and none tie).
      c.dataset.distances = [5];
      c.eval.recoveryBudget = [10];
      c.eval.implicit = false;
      c.eval.recoverers[0].contexts = ["0-E", "none"];
    });
    // Its own server: the draws (and so the dataset) depend only on this test's requests.
    const own = await startStandInServer({ errorRate: 0.2, seed: 5 });
    try {
      const data = join(dir, "rdata");
      const b = await cli("dataset", "build", "--config", cfg, "--base-url", own.url, "--out", data, "--quiet");
      expect(b.code).toBe(0);
      const from = own.log.length;
      const out = join(dir, "reval");
      const e = await cli(
        "eval-recovery",
        "--config",
        cfg,
        "--dataset",
        data,
        "--base-url",
        own.url,
        "--out",
        out,
        "--quiet",
      );
      expect(e.code).toBe(0);
      const report = JSON.parse(readFileSync(join(out, "recovery-eval.json"), "utf8")) as {
        simulated: boolean;
        table: Array<{ context: string; n: number; success: number }>;
      };
      // Every file of a stand-in evaluation says simulated: the server declared it (system_fingerprint),
      // whatever the model agents' own fixed flag says.
      const jsonl = (f: string) =>
        readFileSync(f, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { simulated: boolean });
      const samples = jsonl(join(data, "samples.jsonl")),
        runs = jsonl(join(out, "runs.jsonl"));
      expect(samples.length).toBeGreaterThan(0);
      expect(runs.length).toBeGreaterThan(0);
      expect(samples.filter((x) => x.simulated !== true)).toEqual([]);
      expect(runs.filter((x) => x.simulated !== true)).toEqual([]);
      for (const f of [join(data, "dataset.json"), join(data, "model-usage.json"), join(out, "model-usage.json")])
        expect(JSON.parse(readFileSync(f, "utf8")).simulated, f).toBe(true);
      expect(report.simulated).toBe(true);
      const row = (ctx: string) => report.table.find((t) => t.context === ctx)!;
      expect(row("0-E").n).toBeGreaterThan(0);
      expect(row("0-E").n).toBe(row("none").n);
      // At this size (6 samples) the success rows say little (measured 2026-12-04 at r = 10: 0-E 0.33,
      // none 0.50; test/experiments/stand-in-context.int.test.ts compares contexts with a paired test),
      // so no order of the two rows is asserted here.
      // What can make the difference is in the prompts: only 0-E prompts showed actions after the
      // target, and only they led to undoing a silent change.
      const rec = own.log.slice(from).filter((l) => l.role === "recovery");
      expect(rec.some((l) => (l.undoing ?? []).length > 0)).toBe(true);
      expect(rec.some((l) => (l.undoing ?? []).length === 0)).toBe(true);
      expect(rec.filter((l) => l.kind === "undo-silent").every((l) => (l.undoing ?? []).length > 0)).toBe(true);
    } finally {
      await own.close();
    }
  }, 90_000);
});
