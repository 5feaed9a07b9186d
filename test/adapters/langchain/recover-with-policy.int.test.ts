import { afterEach, describe, expect, it } from "vitest";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { createLlmStateVerifier } from "../../../packages/models/src/llm/verifier.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import type { RestoreRequest } from "../../../packages/core/src/runtime/restore.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** SimDesk after plan steps 0..1 and the wrong-item mistake, with the request to restore s_1. */
async function errorState() {
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  const blobs = tempBlobs();
  const env = createSimDesk({ blobs });
  let obs = await env.reset(task);
  const history: HistoryEntry[] = [];
  for (let i = 0; i < mistake.atStep; i++) {
    history.push({ step: i, observation: obs, actions: [task.plan[i]] });
    obs = (await env.step(task.plan[i])).observation;
  }
  history.push({ step: mistake.atStep, observation: obs, actions: mistake.actions });
  for (const a of mistake.actions) await env.step(a);
  const fix = env.nextRestorativeAction(history[1].observation.stateId!);
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK") throw new Error("unexpected restorative step");
  const request: RestoreRequest = {
    step: 1,
    errorStep: mistake.atStep,
    target: { step: 1, observation: history[1].observation },
    history,
    detection: { isError: true, errorStep: mistake.atStep, reason: "wrong file", confidence: 0.9 },
    selection: { step: 1, reason: "E-1" },
    attempt: 1,
    task,
  };
  return { env, blobs, request, fixCode: `\`\`\`python\npyautogui.click(${fix.action.x}, ${fix.action.y})\n\`\`\`` };
}

describe("recoverWithPolicy", () => {
  it("spends the whole budget when the target is never declared restored, recording unusable steps", async () => {
    const { env, blobs, request } = await errorState();
    const rec = await scriptedModel(blobs, [
      { text: "```python\npyautogui.press('f5')\n```" },
      { text: "I am not sure what to do." },
      { text: "```python\npyautogui.press('f5')\n```" },
    ]);
    servers.push(rec.server);
    const restore = recoverWithPolicy({
      recoverer: createLlmRecoveryPolicy({ model: rec.model }),
      env,
      blobs,
      recoveryBudget: 3,
      recoveryContext: "0-R",
    });
    const out = await restore(request);
    expect(out).toMatchObject({
      restored: false,
      confirmation: "refused",
      steps: 3,
      detail: "recovery budget of 3 steps spent (1 unusable)",
    });
    expect(out.usage).toHaveLength(3);
    // 0-R context: the history 0..R-1 (one entry), and the recovery steps so far in later calls.
    expect(
      rec.server.requests[0].body.messages[1].content.map((p: { text?: string }) => p.text ?? "").join("\n"),
    ).toContain("Earlier run, steps 0 to 0:");
    // the attempt's own steps are the agent's conversation: user turn (screenshot), assistant answer
    const third = rec.server.requests[2].body.messages as { role: string; content: unknown }[];
    expect(third.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "user", "assistant", "user"]);
    rec.server.verify();
  });

  it("ends when the verifier confirms a restored claim (the one loop's rule: claims are checked), and restores the target state", async () => {
    const { env, blobs, request, fixCode } = await errorState();
    const rec = await scriptedModel(blobs, [{ text: fixCode }, { text: "RESTORED" }]);
    const ver = await scriptedModel(blobs, [
      {
        text: '{"verdict": "match", "evidence": ["both show the Home folder with the same files"], "reason": "same view"}',
      },
    ]);
    servers.push(rec.server, ver.server);
    const restore = recoverWithPolicy({
      recoverer: createLlmRecoveryPolicy({ model: rec.model }),
      verifier: createLlmStateVerifier({ model: ver.model }),
      env,
      blobs,
      recoveryBudget: 5,
    });
    const out = await restore(request);
    expect(out.restored).toBe(true);
    expect(out.confirmation).toBe("verifier");
    expect(out.steps).toBe(1);
    expect(out.detail).toMatch(/^restored claim confirmed by llm-verifier \(match\)/);
    expect(out.prompts).toEqual(expect.arrayContaining(["state-verifier@1"]));
    expect(env.semanticHash(out.observation!.stateId!)).toBe(env.semanticHash(request.target.observation.stateId!));
    expect(ver.server.requests[0].images.map((i) => i.sha256)).toEqual([
      request.target.observation.screenshot,
      out.observation!.screenshot,
    ]);
    rec.server.verify();
    ver.server.verify();
  });

  it("with a verifier, a RESTORED claim is checked: an abstention or a failing verifier does not confirm it", async () => {
    const { env, blobs, request } = await errorState();
    const rec = await scriptedModel(blobs, [{ text: "RESTORED" }, { text: "RESTORED" }]);
    const ver = await scriptedModel(blobs, [
      { text: '{"verdict": "abstain", "evidence": [], "reason": "cannot tell"}' },
      { status: 400 },
    ]);
    servers.push(rec.server, ver.server);
    const restore = recoverWithPolicy({
      recoverer: createLlmRecoveryPolicy({ model: rec.model }),
      verifier: createLlmStateVerifier({ model: ver.model, maxReasks: 0 }),
      env,
      blobs,
      recoveryBudget: 2,
    });
    const out = await restore(request);
    expect(out.restored).toBe(false);
    expect(out.confirmation).toBe("refused");
    expect(out.detail).toMatch(/abstained \(not confirmed\).*; the budget is spent$/);
    expect(ver.server.calls).toBe(2);
    rec.server.verify();
  });

  it("requires a summarizer for the contextualized context", () => {
    expect(() =>
      recoverWithPolicy({
        recoverer: { name: "r", propose: async () => ({ actions: [] }) },
        env: { step: async () => ({ observation: null as never, info: {} }), observe: async () => null as never },
        blobs: tempBlobs(),
        recoveryContext: "contextualized",
      }),
    ).toThrow(ConfigError);
  });
});
