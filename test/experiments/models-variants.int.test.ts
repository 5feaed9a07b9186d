/**
 * `retrace run experiments/configs/models/end-to-end-variants.yaml`: the paper's defaults (pair
 * `paper`) and retrace's variants (pair `retrace`) in one run over one scripted OpenAI-compatible
 * server on 127.0.0.1, on the same task and seed. Each pair's detector gets its own system prompt
 * (neutral / cautious) and each pair's forward agent its own transition string (short / detailed);
 * the results record which prompts each episode used.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import {
  startScriptedOpenAIServer,
  type ScriptStep,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { answer, cli, restorativeAction, roleOf, type ScriptRole } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-variants-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const text = (body: unknown) => JSON.stringify(body ?? "");

describe("the paper's defaults and retrace's variants side by side", () => {
  it("runs both pairs on the same task and seed, each with its own detector prompt and transition string", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep;
    const fix = await restorativeAction(task.id);
    const before = task.plan.slice(0, E).map(answer);
    const recovered = [...before, ...mistake.actions.map(answer), ...task.plan.slice(1).map(answer), { text: "DONE" }];
    // job order with one worker: paper.no-recovery, paper.max-rec-1, retrace.max-rec-1
    const queues: Record<Exclude<ScriptRole, "detector">, ScriptStep[]> = {
      forward: [...before, ...mistake.actions.map(answer), { text: "FAIL" }, ...recovered, ...recovered],
      selector: [0, 1].map(() => ({ text: '{"recovery_step": 1, "reason": "before the file list was used"}' })),
      summarizer: [0, 1].map(() => ({
        text: "TARGET STATE: the file manager is open at Home.\nHOW IT GOT THERE:\n- opened the file manager",
      })),
      recoverer: [0, 1].flatMap(() => [answer(fix), { text: "RESTORED" }]),
    };
    const server = await startScriptedOpenAIServer({
      responder(r) {
        const role = roleOf(r);
        // the detector blames step E once the wrong step is in the history, else says on track
        if (role === "detector")
          return {
            text: text(r.body).includes(`numbered 0 to ${E}`)
              ? `{"off_track": true, "error_step": ${E}, "reason": "selected the wrong file", "confidence": 0.95}`
              : '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
          };
        return queues[role].shift();
      },
    });
    servers.push(server);
    const config = parseYaml(
      readFileSync(new URL("../../experiments/configs/models/end-to-end-variants.yaml", import.meta.url), "utf8"),
    ) as Record<string, any>;
    Object.assign(config, { env: { kind: "simdesk", tasks: [task.id] }, seeds: [0], maxRecoveryIterations: [1] });
    const cfg = join(dir, "variants.json");
    writeFileSync(cfg, JSON.stringify(config));
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
    server.verify();
    expect(Object.fromEntries(Object.entries(queues).map(([k, q]) => [k, q.length]))).toEqual({
      forward: 0,
      selector: 0,
      summarizer: 0,
      recoverer: 0,
    });

    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    const byCondition = new Map(lines.map((l) => [l.condition, l]));
    expect([...byCondition.keys()].sort()).toEqual(["paper.max-rec-1", "paper.no-recovery", "retrace.max-rec-1"]);
    expect(byCondition.get("paper.max-rec-1")).toMatchObject({ success: true, recoveryAttempts: 1 });
    expect(byCondition.get("retrace.max-rec-1")).toMatchObject({ success: true, recoveryAttempts: 1 });
    const refs = (c: string) => byCondition.get(c)!.prompts.join(" ");
    expect(refs("paper.max-rec-1")).toContain("error-detector.system@2+");
    expect(refs("paper.max-rec-1")).toContain("post-restoration.transition@2");
    expect(refs("retrace.max-rec-1")).toContain("error-detector.system-cautious@1+");
    expect(refs("retrace.max-rec-1")).toContain("post-restoration.transition-detailed@1");

    // server side: the two pairs' detectors and forward agents were sent different texts
    const detectorTexts = server.requests.filter((q) => roleOf(q) === "detector").map((q) => text(q.body));
    const cautious = detectorTexts.filter((t) => t.includes("When you are unsure, say the agent is on track"));
    expect(cautious.length).toBeGreaterThan(0);
    expect(cautious.length).toBeLessThan(detectorTexts.length);
    const notices = server.requests
      .filter((q) => roleOf(q) === "forward" && text(q.body).includes("the environment has been recovered"))
      .map((q) => text(q.body));
    expect(notices).toHaveLength(2);
    expect(notices.filter((t) => t.includes("do not assume anything you did after step 1 still holds"))).toHaveLength(
      1,
    );
    expect(
      notices.filter((t) => t.includes("Note: the environment has been recovered to the state it had at step 1.")),
    ).toHaveLength(1);
  });
});
