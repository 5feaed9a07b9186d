/**
 * Issue 29 with a computer-use agent (OpenAI computer-use and Anthropic formats) against a scripted
 * server: every forward and recoverer call of the agent, with the detector's, is logged on exactly
 * one step of its own episode, and the viewer shows each of them once.
 * (Split from report-calls.int.test.ts; the stand-in model run is in report-calls-stand-in.int.test.ts.)
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callStepIndex } from "../../experiments/report/viewer-calls.ts";
import { viewerChunks } from "../../experiments/report/viewer-data.ts";
import { loadRun } from "../../experiments/report/data.ts";
import { cli, narrowedPreset, restorativeAction, roleOf, type ScriptRole } from "./helpers/model-roles.ts";
import {
  startScriptedOpenAIServer,
  type ScriptStep,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import { getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import type { Action } from "../../packages/core/src/action.ts";
import { callMsOf, linesOf, recordOf, tempRunDir } from "./helpers/report-calls.ts";

const dir = tempRunDir();
const scripted: ScriptedOpenAIServer[] = [];
afterAll(async () => {
  await Promise.all(scripted.splice(0).map((s) => s.close()));
});

/** An action as an OpenAI computer-use answer (a computer_call) or an Anthropic one (a computer tool_use). */
function cuaAnswer(format: "openai-cua" | "anthropic", a: Action | "done", n: number): ScriptStep {
  if (format === "openai-cua") {
    if (a === "done") return { endpoint: "responses", text: "RESTORED. The task is done." };
    const action =
      a.type === "CLICK"
        ? { type: "click", x: a.x, y: a.y, button: "left" }
        : a.type === "PRESS"
          ? { type: "keypress", keys: [a.key.toUpperCase()] }
          : a.type === "HOTKEY"
            ? { type: "keypress", keys: a.keys.map((k) => k.toUpperCase()) }
            : a.type === "TYPING"
              ? { type: "type", text: a.text }
              : null;
    if (!action) throw new Error(`no OpenAI computer-use form for ${a.type}`);
    return {
      endpoint: "responses",
      output: [
        {
          type: "computer_call",
          id: `cu_${n}`,
          call_id: `call_${n}`,
          action,
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    };
  }
  if (a === "done") return { endpoint: "messages", text: "RESTORED. The task is done." };
  const key = (k: string) => (k === "enter" ? "Return" : k === "escape" ? "Escape" : k);
  const input =
    a.type === "CLICK"
      ? { action: "left_click", coordinate: [a.x, a.y] }
      : a.type === "PRESS"
        ? { action: "key", text: key(a.key) }
        : a.type === "HOTKEY"
          ? { action: "key", text: a.keys.map(key).join("+") }
          : a.type === "TYPING"
            ? { action: "type", text: a.text }
            : null;
  if (!input) throw new Error(`no Anthropic form for ${a.type}`);
  return {
    endpoint: "messages",
    content: [
      { type: "text", text: "Next step." },
      { type: "tool_use", id: `toolu_${n}`, name: "computer", input },
    ],
  };
}

describe.each(["openai-cua", "anthropic"] as const)(
  "computer-use agent (%s) calls on their own steps (scripted server)",
  (format) => {
    it("logs every forward and recoverer call of the computer-use agent, with the detector's, on exactly one step of its own episode", async () => {
      const task = getSimDeskTask("files-rename-draft");
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      const E = mistake.atStep;
      const fix = await restorativeAction(task.id);
      let n = 0;
      const before = task.plan.slice(0, E);
      // a no-recovery episode (the mistake, then "done"), then a recovery episode (the mistake, recovery to R = 1, the
      // rest of the plan)
      const queues: Record<ScriptRole, ScriptStep[]> = {
        forward: [
          ...[...before, ...mistake.actions].map((a) => cuaAnswer(format, a, n++)),
          cuaAnswer(format, "done", n++),
          ...[...before, ...mistake.actions, ...task.plan.slice(1)].map((a) => cuaAnswer(format, a, n++)),
          cuaAnswer(format, "done", n++),
        ],
        detector: [
          ...before.map(() => ({
            text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
          })),
          { text: `{"off_track": true, "error_step": ${E}, "reason": "selected the wrong file", "confidence": 0.95}` },
        ],
        selector: [{ text: '{"recovery_step": 1, "reason": "before the file list was used"}' }],
        summarizer: [
          { text: "TARGET STATE: the file manager is open at Home.\nHOW IT GOT THERE:\n- opened the file manager" },
        ],
        recoverer: [cuaAnswer(format, fix, n++), cuaAnswer(format, "done", n++)],
      };
      const byRole: Record<ScriptRole, number> = { forward: 0, detector: 0, selector: 0, summarizer: 0, recoverer: 0 };
      const s = await startScriptedOpenAIServer({
        responder(r) {
          const role = roleOf(r);
          byRole[role]++;
          return (
            queues[role].shift() ??
            (role === "detector"
              ? { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' }
              : undefined)
          );
        },
      });
      scripted.push(s);
      const baseUrl = format === "anthropic" ? s.origin : s.url;
      const agent = {
        kind: "model",
        format,
        baseUrl,
        model: format === "anthropic" ? "claude-test" : "computer-use-preview",
        observation: "screenshot",
      };
      const cfg = narrowedPreset(join(dir, `${format}.json`), (c) => {
        Object.assign(c.pairs[0], { forward: agent, recovery: { ...agent } });
        c.options.maxForwardSteps = 12;
        c.options.recoveryBudget = 3;
        c.options.freezeWindow = 1;
      });
      const out = join(dir, `run-${format}`);
      const r = await cli(
        "run",
        cfg,
        "--base-url",
        s.url,
        "--model",
        "scripted-vlm",
        "--out",
        out,
        "--quiet",
        "--workers",
        "1",
        "--no-preflight",
      );
      expect(r.code, r.stderr).toBe(0);
      s.verify();
      const cuaRequests = s.requests.filter(
        (q) => q.endpoint === (format === "anthropic" ? "messages" : "responses"),
      ).length;
      const lines = linesOf(out).filter((l) => l.status === "ok");
      expect(lines.length).toBe(2);
      let logged = 0,
        cua = 0,
        recoverer = 0;
      for (const l of lines) {
        const rec = recordOf(out, l);
        const steps = rec.trajectory.steps;
        const callMs = callMsOf(out, l.key);
        expect(JSON.stringify(rec.calls ?? [])).not.toContain("latencyMs"); // measured times are in timings.jsonl
        for (const [ci, c] of (rec.calls ?? []).entries()) {
          logged++;
          expect(c.draw, `${l.key}: ${c.phase} call at seq ${c.seq} names its episode`).toMatchObject({
            task: l.task,
            seed: l.seed,
          });
          const i = callStepIndex(steps, c);
          expect(i, `${l.key}: ${c.phase} call at seq ${c.seq}`).toBeGreaterThanOrEqual(0);
          if (c.phase !== "policy" && c.phase !== "recoverer") continue;
          cua++;
          expect(c.model).toBe(agent.model);
          // the call's messages carry the screenshot by reference, and its reply is the step's response
          const images = c.messages
            .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
            .filter((p) => p.type === "image");
          expect(images.length, `${l.key}: ${c.phase} call at seq ${c.seq} shows its screenshot`).toBeGreaterThan(0);
          expect(images.every((p) => p.type === "image" && /^[0-9a-f]{64}$/.test(p.blob))).toBe(true);
          expect(c.inputTokens).toBeGreaterThan(0);
          expect(callMs[ci]).toBeGreaterThanOrEqual(0);
          const st = steps[i];
          if (c.phase === "policy" && !c.discarded) {
            expect(st).toMatchObject({ role: "forward", seq: c.seq });
            if (st.response) expect(c.reply).toBe(st.response);
            expect(images.map((p) => p.type === "image" && p.blob)).toContain(st.before);
          }
          if (c.phase === "recoverer") {
            recoverer++;
            expect(c.role).toBe("recoverer");
            expect(c.attempt).toBe(1);
          }
        }
        // the role counts in the results line are the logged calls'
        expect(l.models?.policy?.calls).toBe((rec.calls ?? []).filter((c) => c.role === "policy").length);
      }
      // every call the server saw is logged on a step of its own episode, and no other
      expect(cua).toBe(cuaRequests);
      expect(logged).toBe(s.requests.length);
      expect(recoverer).toBe(2);
      expect(byRole.recoverer).toBe(2);
      // the viewer shows each of them on exactly one step of its own episode
      const { index, chunks } = await viewerChunks([loadRun(out, out)], join(out, "report-test"));
      let shown = 0;
      for (const row of index)
        for (const st of chunks[row.chunk].find((e) => e.key === row.key)!.steps) {
          shown += st.calls?.length ?? 0;
          for (const x of st.calls ?? [])
            expect(x.draw, `${row.key} step ${st.n}`).toMatchObject({ task: row.task, seed: row.seed });
        }
      expect(shown).toBe(s.requests.length);
      console.log(
        `${format} run: ${lines.length} episodes, ${logged} calls logged (${cua} computer-use, ${recoverer} of them recoverer) of ${s.requests.length} served`,
      );
    }, 300_000);
  },
);
