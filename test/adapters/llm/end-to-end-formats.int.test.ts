/**
 * runEpisode on SimDesk with a model-backed forward agent and an LLM recovery sub-agent built from
 * the SAME agent spec (paper App. B.2), in the UI-TARS, Anthropic computer-use and OpenAI
 * computer-use formats: the LLM detector (chat, its own server) blames the wrong step, R = E-1,
 * the recoverer restores s_R with one action in its format and answers RESTORED, and the forward
 * agent finishes the task. Every model call is real HTTP to a scripted server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runEpisode } from "../../../packages/graphs/src/run-episode.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy, RESTORED_TOKEN } from "../../../packages/models/src/llm/recoverer.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createFormatPolicy, type AgentFormatSpec } from "../../../packages/models/src/policies/format.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptStep,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import { scriptedModel, tempBlobs } from "./fixtures.ts";

type Format = "uitars" | "anthropic" | "openai-cua";
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const noEnv = { logLevel: "warn", ci: false };

/** The scripted answer that makes an agent of `format` take action `a` (DONE = finish). */
function answer(format: Format, a: Action, n: number): ScriptStep {
  if (format === "uitars") {
    const call =
      a.type === "CLICK"
        ? `click(start_box='(${a.x},${a.y})')`
        : a.type === "PRESS"
          ? `hotkey(key='${a.key}')`
          : a.type === "TYPING"
            ? `type(content=${JSON.stringify(a.text)})`
            : a.type === "DONE"
              ? "finished(content='')"
              : null;
    if (!call) throw new Error(`no UI-TARS form for ${a.type}`);
    return { endpoint: "chat", text: `Thought: next.\nAction: ${call}` };
  }
  if (format === "anthropic") {
    if (a.type === "DONE") return { endpoint: "messages", text: "The task is complete." };
    const input =
      a.type === "CLICK"
        ? { action: "left_click", coordinate: [a.x, a.y] }
        : a.type === "PRESS"
          ? { action: "key", text: a.key === "enter" ? "Return" : a.key.toUpperCase() }
          : a.type === "TYPING"
            ? { action: "type", text: a.text }
            : null;
    if (!input) throw new Error(`no Anthropic form for ${a.type}`);
    return { endpoint: "messages", content: [{ type: "tool_use", id: `toolu_${n}`, name: "computer", input }] };
  }
  if (a.type === "DONE") return { endpoint: "responses", text: "The task is complete." };
  const action =
    a.type === "CLICK"
      ? { type: "click", x: a.x, y: a.y, button: "left" }
      : a.type === "PRESS"
        ? { type: "keypress", keys: [a.key.toUpperCase()] }
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

const restored = (format: Format): ScriptStep =>
  format === "uitars"
    ? { endpoint: "chat", text: `Thought: the screen matches the TARGET screenshot.\n${RESTORED_TOKEN}` }
    : { endpoint: format === "anthropic" ? "messages" : "responses", text: RESTORED_TOKEN };

describe.each<Format>(["uitars", "anthropic", "openai-cua"])(
  "end-to-end recovery with a %s agent and recoverer from one spec",
  (format) => {
    it("detects the wrong step, restores s_{E-1} with the model in its own format and finishes the task", async () => {
      const task = getSimDeskTask("files-rename-draft");
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      const E = mistake.atStep;
      const R = E - 1;
      const blobs = tempBlobs();
      const env = createSimDesk({ blobs });

      // The restorative action toward s_R, from the ground truth on a twin desk.
      const twin = createSimDesk({ blobs });
      await twin.reset(task);
      const ids = [twin.currentStateId()];
      for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
      for (const a of mistake.actions) await twin.step(a);
      const fix = twin.nextRestorativeAction(ids[R]);
      if (!fix || fix === "unreachable") throw new Error("no restorative step");

      let n = 0;
      const agentServer = await startScriptedOpenAIServer({
        script: [
          ...task.plan.slice(0, E).map((a) => answer(format, a, n++)),
          answer(format, mistake.actions[0], n++),
          // the recovery sub-agent, same backbone: one restorative action, then RESTORED
          answer(format, fix.action, n++),
          restored(format),
          // the forward agent again, from s_R
          ...task.plan.slice(R).map((a) => answer(format, a, n++)),
          answer(format, { type: "DONE" }, n++),
        ],
      });
      const det = await scriptedModel(blobs, [
        ...Array.from({ length: E }, () => ({
          text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
        })),
        { text: `{"off_track": true, "error_step": ${E}, "reason": "${mistake.note}", "confidence": 0.95}` },
      ]);
      servers.push(agentServer, det.server);

      const agent: AgentFormatSpec =
        format === "uitars"
          ? {
              format,
              model: createOpenAIChatModel({
                model: "ui-tars-1.5-7b",
                blobs,
                baseURL: agentServer.url,
                apiKey: "k",
                maxRetries: 0,
              }),
              coordinates: "absolute",
              historyImages: 1,
            }
          : format === "anthropic"
            ? { format, baseURL: agentServer.origin, apiKey: "k", maxRetries: 0, settings: noEnv, historyImages: 1 }
            : { format, baseURL: agentServer.url, apiKey: "k", maxRetries: 0, settings: noEnv };

      const result = await runEpisode({
        task,
        components: {
          policy: createFormatPolicy(agent),
          env,
          blobs,
          detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ agent, historyImages: 1 }),
        },
        // sequential: the forward script answers in order, with no speculative proposal to discard
        options: {
          recoveryStep: "error-minus-1",
          restoration: "model",
          recoveryContext: "0-E",
          freezeWindow: 5,
          maxRecoveryIterations: 1,
          recoveryBudget: 4,
          detection: "sequential",
        },
      });

      expect(result.success).toBe(true);
      expect(result.simulated).toBe(false);
      expect(result.accounting).toMatchObject({ recoveryAttempts: 1, recoverySteps: 1, policyFailures: 0 });
      expect(result.accounting.models.recoverer?.calls).toBe(2);
      const end = result.trajectory.events.find((e) => e.kind === "recovery-end")!;
      expect(end.detail).toMatchObject({ restored: true });
      const truncate = result.trajectory.events.find((e) => e.kind === "truncate")!;
      expect(truncate.detail).toMatchObject({ to: R });

      // server side: the recoverer's first call carried the recovery prefix and o_R as the TARGET screenshot
      const recoveryCall = agentServer.requests[E + 1];
      const targetShot = result.trajectory.steps.find((s) => s.role === "forward" && s.step === R)!.before;
      expect(recoveryCall.images[0].sha256).toBe(targetShot);
      expect(JSON.stringify(recoveryCall.body)).toContain("RECOVERY MODE.");
      expect(JSON.stringify(agentServer.requests[E].body)).not.toContain("RECOVERY MODE."); // the forward agent is unframed
      expect(result.prompts).toEqual(expect.arrayContaining([expect.stringMatching(/^recovery\.system-prefix/)]));
      agentServer.verify();
      det.server.verify();
    });
  },
);
