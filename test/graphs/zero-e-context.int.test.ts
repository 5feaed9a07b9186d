/**
 * Context 0-E in the runtime is the history up to the erroneous state: every forward step 0..t-1
 * held when the detector fired at step t, not only 0..E. Here the detector fires at t = 6 and
 * blames E = 2, so the recovery sub-agent (an LLM recoverer over a scripted OpenAI-compatible
 * server on 127.0.0.1) must be shown steps 3..5 too: the actions it has to undo.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { createPyautoguiPolicy } from "../../packages/models/src/policies/openai/pyautogui-policy.ts";
import { createLlmErrorDetector } from "../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../packages/models/src/llm/recoverer.ts";
import { createSimDesk, getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../packages/core/src/action.ts";
import type { RecoveryContextKind } from "../../packages/core/src/recovery.ts";
import { requestText, scriptedModel, tempBlobs } from "../adapters/llm/fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function code(a: Action): string {
  if (a.type === "CLICK") return `pyautogui.click(${a.x}, ${a.y})`;
  if (a.type === "MOVE_TO") return `pyautogui.moveTo(${a.x}, ${a.y})`;
  throw new Error(`no pyautogui form for ${a.type} in this test`);
}
const answer = (a: Action) => ({ text: `Next step.\n\`\`\`python\n${code(a)}\n\`\`\`` });
const onTrack = { text: '{"off_track": false, "error_step": null, "reason": "fine so far", "confidence": 0.9}' };

/**
 * Run the episode: E = 2 (wrong item), three more steps, the detector fires at t = 6; returns the recoverer's first
 * request.
 */
async function recoveryRequest(recoveryContext: RecoveryContextKind) {
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  expect(mistake.atStep).toBe(2);
  const blobs = tempBlobs();
  const env = createSimDesk({ blobs });
  const later: Action[] = [3, 4, 5].map((i) => ({ type: "MOVE_TO", x: 30 + i, y: 40 + i }) as Action);
  const fwd = await scriptedModel(blobs, [
    answer(task.plan[0]),
    answer(task.plan[1]),
    answer(mistake.actions[0]),
    ...later.map(answer),
    { text: "DONE" },
  ]);
  const det = await scriptedModel(blobs, [
    onTrack,
    onTrack,
    onTrack,
    onTrack,
    onTrack,
    { text: '{"off_track": true, "error_step": 2, "reason": "selected notes.txt", "confidence": 0.9}' },
  ]);
  const rec = await scriptedModel(blobs, [{ text: "RESTORED" }]);
  servers.push(fwd.server, det.server, rec.server);
  const result = await runEpisode({
    task,
    components: {
      policy: createPyautoguiPolicy({ model: fwd.model, historyImages: 1 }),
      env,
      blobs,
      detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
      recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 10 }),
    },
    options: {
      recoveryStep: "error-minus-1",
      restoration: "model",
      recoveryContext,
      maxRecoveryIterations: 1,
      recoveryBudget: 2,
      detection: "sequential",
    },
  });
  fwd.server.verify();
  det.server.verify();
  rec.server.verify();
  expect(result.accounting.recoveryAttempts).toBe(1);
  expect(det.server.requests).toHaveLength(6); // the detector judged t = 1..6 and fired at t = 6
  return { request: rec.server.requests[0], later };
}

describe("the recovery sub-agent's 0-E context in the runtime (E < t-1)", () => {
  it("shows every step up to the erroneous state: the wrong step E = 2 and steps 3..5 after it", async () => {
    const { request, later } = await recoveryRequest("0-E");
    const text = requestText(request.body);
    expect(text).toContain("Earlier run, steps 0 to 5:");
    expect(text).toContain("history up to the current screen (6 step(s)");
    expect(text).toMatch(/Step 2 action: CLICK\(/); // the wrong action a_E
    for (const [i, a] of later.entries())
      expect(text).toContain(`Step ${i + 3} action: MOVE_TO(${a.type === "MOVE_TO" ? `${a.x},${a.y}` : ""})`);
    // target o_1, the six history screenshots (historyImages 10 covers them all), the current screen
    expect(request.images).toHaveLength(8);
  });

  it("0-R still ends at the target: steps 0..R-1 only", async () => {
    const { request } = await recoveryRequest("0-R");
    const text = requestText(request.body);
    expect(text).toContain("Earlier run, steps 0 to 0:");
    expect(text).not.toMatch(/Step [1-5] action:/);
  });
});
