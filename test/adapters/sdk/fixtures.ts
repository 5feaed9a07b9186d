/**
 * Shared fixtures of the SDK wrapper tests: the SimDesk wrong-item scenario, retrace Actions as SDK tool calls, and the
 * LLM detector/recoverer over a scripted server.
 */
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import type { ScriptedOpenAIServer, ScriptedUsage } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

/** A retrace Action as an OpenAI computer-use action object. */
export function toOpenAIAction(a: Action): Record<string, unknown> {
  switch (a.type) {
    case "CLICK":
      return { type: "click", x: a.x, y: a.y, button: a.button };
    case "TYPING":
      return { type: "type", text: a.text };
    case "PRESS":
      return { type: "keypress", keys: [a.key] };
    case "HOTKEY":
      return { type: "keypress", keys: a.keys };
    default:
      throw new Error(`no OpenAI action for ${a.type}`);
  }
}

/** A retrace Action as the input of Anthropic's computer tool. */
export function toAnthropicInput(a: Action): Record<string, unknown> {
  switch (a.type) {
    case "CLICK":
      return { action: "left_click", coordinate: [a.x, a.y] };
    case "TYPING":
      return { action: "type", text: a.text };
    case "PRESS":
      return { action: "key", text: a.key === "f2" ? "F2" : a.key === "enter" ? "Return" : a.key };
    default:
      throw new Error(`no Anthropic action for ${a.type}`);
  }
}

/**
 * SimDesk's files-rename-draft with its wrong-item mistake at step E=2 (R=1): the desk (reset), the
 * forward actions the scripted agent takes, and the LLM detector (fires at the third step) and LLM
 * recoverer (clicks the restorative action, then says RESTORED), each over a scripted chat server.
 */
export async function wrongItemScenario(
  servers: ScriptedOpenAIServer[],
  blobs: BlobStore = tempBlobs(),
  usage: { detector?: ScriptedUsage; recoverer?: ScriptedUsage } = {},
) {
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  const E = mistake.atStep;
  const R = E - 1;
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const twin = createSimDesk({ blobs });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[R]);
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK")
    throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
  const det = await scriptedModel(
    blobs,
    [
      { text: '{"off_track": false, "error_step": null, "reason": "opened the file manager", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "in Documents", "confidence": 0.8}' },
      {
        text: `{"off_track": true, "error_step": ${E}, "reason": "selected notes.txt, the task is about draft.txt", "confidence": 0.92}`,
      },
    ].map((step) => (usage.detector ? { ...step, usage: usage.detector } : step)),
  );
  const rec = await scriptedModel(
    blobs,
    [
      { text: `Back to Home.\n\`\`\`python\npyautogui.click(${fix.action.x}, ${fix.action.y})\n\`\`\`` },
      { text: "The screen now matches the target.\nRESTORED" },
    ].map((step) => (usage.recoverer ? { ...step, usage: usage.recoverer } : step)),
  );
  servers.push(det.server, rec.server);
  const forward: Action[] = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)];
  return {
    task,
    env,
    blobs,
    E,
    R,
    forward,
    targetStateId: ids[R],
    detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
    recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
    det,
    rec,
  };
}
