/**
 * The paper's end-to-end setting, entirely over HTTP: runEpisode on SimDesk with the generic
 * pyautogui forward agent, the LLM detector and LLM selector, the contextualizer and the LLM
 * recovery sub-agent, each talking to a scripted OpenAI-compatible server. Checks that the
 * runtime and these components agree on the contracts (step indices, contexts, notice).
 */
import { afterEach, describe, expect, it } from "vitest";
import { runEpisode } from "../../../packages/graphs/src/run-episode.ts";
import { createPyautoguiPolicy } from "../../../packages/models/src/policies/openai/pyautogui-policy.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmStepSelector } from "../../../packages/models/src/llm/selector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { createLlmSummarizer } from "../../../packages/models/src/llm/summarizer.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import { requestText, scriptedModel, tempBlobs } from "./fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** pyautogui code for the actions SimDesk plans use. */
function code(a: Action): string {
  switch (a.type) {
    case "CLICK":
      return `pyautogui.click(${a.x}, ${a.y})`;
    case "PRESS":
      return `pyautogui.press('${a.key}')`;
    case "TYPING":
      return `pyautogui.write(${JSON.stringify(a.text)})`;
    default:
      throw new Error(`no pyautogui form for ${a.type} in this test`);
  }
}
const answer = (a: Action) => ({ text: `Next step.\n\`\`\`python\n${code(a)}\n\`\`\`` });

describe("LLM components inside the recovery runtime on SimDesk", () => {
  // Overlapped detection asks the forward model for step t+1 while the detector judges step t; when
  // the detector fires, that proposal (here a harmful delete) is discarded and never executed.
  it.each(["sequential", "overlapped"] as const)(
    "detects, selects R with the LLM, summarizes, recovers with the model and finishes the task (%s detection)",
    async (detection) => {
      const task = getSimDeskTask("files-rename-draft");
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      const E = mistake.atStep;
      const blobs = tempBlobs();
      const env = createSimDesk({ blobs });

      // The recoverer's restorative action, from the ground truth on a twin desk (target: s_1).
      const twin = createSimDesk({ blobs });
      await twin.reset(task);
      const ids = [twin.currentStateId()];
      for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
      for (const a of mistake.actions) await twin.step(a);
      const fix = twin.nextRestorativeAction(ids[1]);
      if (!fix || fix === "unreachable") throw new Error("no restorative step");

      const fwd = await scriptedModel(blobs, [
        answer(task.plan[0]),
        answer(task.plan[1]),
        answer(mistake.actions[0]),
        ...(detection === "overlapped" ? [{ text: "```python\npyautogui.press('delete')\n```" }] : []),
        // after recovery to R = 1, with the transition notice:
        {
          ...answer(task.plan[1]),
          expect: (r) => {
            if (!requestText(r.body).includes("the environment has been recovered"))
              throw new Error("the forward agent was not told about the recovery");
          },
        },
        ...task.plan.slice(2).map(answer),
        { text: "DONE" },
      ]);
      const llm = await scriptedModel(blobs, [
        { text: '{"off_track": false, "error_step": null, "reason": "file manager open", "confidence": 0.9}' },
        { text: '{"off_track": false, "error_step": null, "reason": "Documents shown", "confidence": 0.9}' },
        {
          text: `{"off_track": true, "error_step": ${E}, "reason": "selected notes.txt instead of draft.txt", "confidence": 0.95}`,
        },
        { text: '{"recovery_step": 1, "reason": "go back to before opening Documents"}' },
      ]);
      const rec = await scriptedModel(blobs, [
        { text: "TARGET STATE: the file manager is open at Home.\nHOW IT GOT THERE:\n- opened the file manager" },
        answer(fix.action),
        { text: "RESTORED" },
      ]);
      servers.push(fwd.server, llm.server, rec.server);

      const result = await runEpisode({
        task,
        components: {
          policy: createPyautoguiPolicy({ model: fwd.model, historyImages: 1 }),
          env,
          blobs,
          detector: createLlmErrorDetector({ model: llm.model, historyImages: 1 }),
          selector: createLlmStepSelector({ model: llm.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
          summarizer: createLlmSummarizer({ model: rec.model, historyImages: 1 }),
        },
        options: {
          recoveryStep: "llm",
          restoration: "model",
          recoveryContext: "contextualized",
          freezeWindow: 5,
          maxRecoveryIterations: 1,
          recoveryBudget: 4,
          detection,
        },
      });

      expect(result.success).toBe(true);
      expect(result.simulated).toBe(false);
      expect(result.accounting).toMatchObject({
        recoveryAttempts: 1,
        detectorCalls: 3,
        detectorFailures: 0,
        recoverySteps: 1,
      });
      expect(result.accounting.discardedProposals).toBe(detection === "overlapped" ? 1 : 0);
      expect(
        result.trajectory.steps.flatMap((st) => st.actions).some((a) => a.type === "PRESS" && a.key === "delete"),
      ).toBe(false);
      expect(result.accounting.models.recoverer?.calls).toBe(2);
      expect(result.accounting.models.summarizer?.calls).toBe(1);
      expect(result.accounting.models.selector?.calls).toBe(1);
      expect(result.prompts).toEqual(
        expect.arrayContaining([
          "error-detector.system@2+error-detector.user@1",
          "recovery-step-selector@1",
          "recovery-target-contextualizer@2",
          "post-restoration.transition@2",
        ]),
      );
      // The recoverer saw the summary (contextualized) and no history screenshots: target + current only.
      expect(requestText(rec.server.requests[1].body)).toContain(
        "Briefing on the TARGET state:\nTARGET STATE: the file manager is open at Home.",
      );
      expect(rec.server.requests[1].images).toHaveLength(2);
      fwd.server.verify();
      llm.server.verify();
      rec.server.verify();
    },
  );
});
