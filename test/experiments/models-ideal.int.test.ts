/**
 * `experiments/configs/models/ideal-recovery.yaml` with --base-url/--model: forward rollouts by a
 * model forward agent, annotation by the LLM detector (E) and LLM selector (R_LLM), then K
 * continuations per strategy from R rebuilt by replay - every model call over HTTP to one
 * scripted server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { buildReport } from "../../experiments/report/index.ts";
import { answer, cli, startRoleServer } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-models-ideal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

describe("the model-backed ideal-recovery preset", () => {
  it("annotates a failed model rollout with the LLM detector and selector and runs K continuations per strategy", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep;
    const config = parseYaml(
      readFileSync(new URL("../../experiments/configs/models/ideal-recovery.yaml", import.meta.url), "utf8"),
    ) as Record<string, any>;
    config.env = { kind: "simdesk", tasks: [task.id] };
    config.seeds = [0];
    config.k = 1;
    config.strategies = ["error-minus-1", "llm"];
    const cfg = join(dir, "ideal.json");
    writeFileSync(cfg, JSON.stringify(config));
    const server = await startRoleServer({
      // rollout: the plan up to E, the mistake, FAIL; then one continuation per strategy, each gives up at once
      forward: [
        ...task.plan.slice(0, E).map(answer),
        ...mistake.actions.map(answer),
        { text: "FAIL" },
        { text: "FAIL" },
        { text: "FAIL" },
      ],
      detector: [{ text: `{"off_track": true, "error_step": ${E}, "reason": "wrong file", "confidence": 0.9}` }],
      selector: [{ text: '{"recovery_step": 1, "reason": "before the file list"}' }],
      summarizer: [],
      recoverer: [],
    });
    servers.push(server);
    const out = join(dir, "run");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    server.verify();
    expect(server.byRole).toMatchObject({ forward: E + mistake.actions.length + 3, detector: 1, selector: 1 });
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    expect(
      lines.map((l) => [l.extra?.phase, l.extra?.strategy ?? null, l.extra?.recoveryStep ?? null, l.simulated]),
    ).toEqual([
      ["forward", null, null, false],
      ["continuation", "error-minus-1", E - 1, false],
      ["continuation", "llm", 1, false],
    ]);
    expect(lines[0].models!.policy!.calls).toBe(E + mistake.actions.length + 1);
    const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8"));
    expect(plan.simulated).toBe(false);
  }, 120_000);

  it("counts a detector and a selector that answer junk: summary.json, the closing lines and the report say so, and Finding 1 names them", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep;
    const config = parseYaml(
      readFileSync(new URL("../../experiments/configs/models/ideal-recovery.yaml", import.meta.url), "utf8"),
    ) as Record<string, any>;
    config.env = { kind: "simdesk", tasks: [task.id] };
    config.seeds = [0];
    config.k = 1;
    config.strategies = ["zero", "error-minus-1", "llm"];
    const cfg = join(dir, "ideal-junk.json");
    writeFileSync(cfg, JSON.stringify(config));
    const junk = { text: "I think it went wrong somewhere around there." };
    const server = await startRoleServer({
      forward: [
        ...task.plan.slice(0, E).map(answer),
        ...mistake.actions.map(answer),
        { text: "FAIL" },
        { text: "FAIL" },
        { text: "FAIL" },
        { text: "FAIL" },
      ],
      // each asked once and re-asked once (maxReasks 1), junk both times
      detector: [junk, junk],
      selector: [junk, junk],
      summarizer: [],
      recoverer: [],
    });
    servers.push(server);
    const out = join(dir, "run-junk");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.code).toBe(0);
    server.verify();
    expect(server.byRole).toMatchObject({ detector: 2, selector: 2 });
    const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8"));
    expect(plan.instances[0]).toMatchObject({
      fallback: true,
      detectorFailure: expect.stringMatching(/invalid reply/),
      selectorFailure: expect.stringMatching(/fell back to E-1/),
    });
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.ideal.annotationFailures).toEqual({ detector: 1, selector: 1, selectorAsked: 1 });
    expect(r.stdout).toContain(
      "Annotation failures: the detector failed on 1 of 1 failed runs (E = their last step, counted among those without a detected error); the selector failed on 1 of 1 (R=LLM used its fail-safe E-1 there, not a choice).",
    );
    const page = readFileSync((await buildReport(out)).file, "utf8");
    expect(page).toContain("the selector failed on 1 of 1 (R=LLM used its fail-safe E-1 there, not a choice)");
    expect(page).toMatch(/Finding 1[^<]*\)\. <span class="meta">[^<]*the selector failed on 1 of 1/);
  }, 120_000);
});
