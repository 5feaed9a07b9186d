/**
 * End to end on SimDesk: a createAgent CUA whose one tool executes computer actions on SimDesk,
 * the LLM detector and the LLM recovery sub-agent (recoverWithPolicy) each over real HTTP against
 * a scripted OpenAI-compatible server. The agent makes the task's wrong-item mistake, the
 * detector blames it, the recoverer restores the target state, the history is truncated, and the
 * agent finishes the task.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recoveryMiddleware, type RecoveryTrack } from "../../../packages/langchain/src/recovery-middleware.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { ActionSchema, type Action } from "../../../packages/core/src/action.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { requestText, scriptedModel, tempBlobs } from "../llm/fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("recoveryMiddleware on SimDesk with LLM detector and recoverer over HTTP", () => {
  it("recovers from a wrong-item mistake and the agent completes the task", async () => {
    const task = getSimDeskTask("files-rename-draft");
    const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
    const E = mistake.atStep; // 2: selected notes.txt instead of draft.txt
    const R = E - 1;
    const blobs = tempBlobs();
    const env = createSimDesk({ blobs });
    await env.reset(task);

    // What the recoverer will say: the ground truth's restorative action from the error state (computed on a twin
    // desk).
    const twin = createSimDesk({ blobs });
    await twin.reset(task);
    const twinIds = [twin.currentStateId()];
    for (let i = 0; i < E; i++) twinIds.push((await twin.step(task.plan[i])).observation.stateId!);
    for (const a of mistake.actions) await twin.step(a);
    const fix = twin.nextRestorativeAction(twinIds[R]);
    if (!fix || fix === "unreachable" || fix.action.type !== "CLICK")
      throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
    const fixCode = `The file manager should show Home again.\n\`\`\`python\npyautogui.click(${fix.action.x}, ${fix.action.y})\n\`\`\``;

    const det = await scriptedModel(blobs, [
      { text: '{"off_track": false, "error_step": null, "reason": "opened the file manager", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "in Documents", "confidence": 0.8}' },
      {
        text: `{"off_track": true, "error_step": ${E}, "reason": "selected notes.txt, the task is about draft.txt", "confidence": 0.92}`,
      },
    ]);
    const rec = await scriptedModel(blobs, [
      { text: fixCode },
      { text: "The screen now matches the target.\nRESTORED" },
    ]);
    servers.push(det.server, rec.server);

    const observations: Observation[] = [];
    const computer = tool(
      async ({ action }: { action: Action }) => {
        const out = await env.step(action);
        observations.push(out.observation);
        return `executed ${action.type}`;
      },
      { name: "computer", description: "Execute one desktop action", schema: z.object({ action: ActionSchema }) },
    );
    const mw = recoveryMiddleware({
      detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
      observe: () => env.observe(),
      blobs,
      toActions: (c) => [ActionSchema.parse(c.args.action)],
      restore: recoverWithPolicy({
        recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
        env,
        blobs,
        recoveryBudget: 4,
        recoveryContext: "0-E",
      }),
      recoveryStep: "error-minus-1",
      instanceKey: `${task.id}/0`,
    });
    const truncations: Array<[number, number]> = [];
    const targets: Observation[] = [];
    mw.events.on("recovery-start", (e) => void targets.push(e.target));
    mw.events.on("truncate", (e) => void truncations.push([e.from, e.to]));

    const call = (a: Action, i: number) => [{ name: "computer", args: { action: a }, id: `call-${i}` }];
    let model = fakeModel();
    const forward = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)];
    forward.forEach((a, i) => (model = model.respondWithTools(call(a, i))));
    model = model.respond(new AIMessage("Renamed draft.txt to final.txt."));
    const agent = createAgent({ model, tools: [computer], middleware: [mw] });
    const result = await agent.invoke({ messages: [new HumanMessage(task.instruction)] }, { recursionLimit: 100 });

    expect(await env.evaluate()).toMatchObject({ score: 1 });
    expect(truncations).toEqual([[E + 1, R]]);
    // The forward call right after the recovery sees the task, step 0 and the transition string only.
    const after = model.calls[E + 1].messages as BaseMessage[];
    expect(after.map((m) => m.getType())).toEqual(["human", "ai", "tool", "human"]);
    expect(after[3].content).toMatch(/state it had at step 1\b/);

    // The recoverer got the target screenshot (o_R, recorded before step R) first, and the 0-E context.
    expect(targets).toHaveLength(1);
    expect(targets[0].stateId).toBe(observations[R - 1].stateId);
    expect(rec.server.requests[0].images[0].sha256).toBe(targets[0].screenshot);
    expect(requestText(rec.server.requests[0].body)).toContain("history up to the current screen (3 step(s)"); // 0-E = entries 0..t-1 (here t-1 = E)
    // Transition consistency: redoing step R from the restored state reproduces s_{R+1} of the original run.
    expect(env.semanticHash(observations[E + 1].stateId!)).toBe(env.semanticHash(observations[R].stateId!));
    expect(env.semanticHash(observations[E].stateId!)).not.toBe(env.semanticHash(observations[R].stateId!));

    const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
    expect(track.accounting).toMatchObject({
      detectorCalls: 3,
      recoveryAttempts: 1,
      recoverySteps: 1,
      frozenSkipped: 5,
      forwardSteps: forward.length,
    });
    expect(track.accounting.models.recoverer?.calls).toBe(2);
    expect(track.prompts).toContain(
      "recovery.system-prefix@1+recovery.instruction-prefix@2+forward.pyautogui.system@2+forward.pyautogui.step@2",
    );
    det.server.verify();
    rec.server.verify();
  });
});
