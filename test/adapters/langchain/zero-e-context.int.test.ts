/**
 * The LangChain middleware path gives the recovery sub-agent the same 0-E context as the runtime:
 * every agent step 0..t-1 held when the detector fired at step t. A createAgent CUA makes the
 * wrong-item mistake at E = 2, takes three more steps, and the LLM detector (scripted server on
 * 127.0.0.1) fires only at t = 6; the LLM recoverer's request must show steps 3..5 as well.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recoveryMiddleware, type RecoveryTrack } from "../../../packages/langchain/src/recovery-middleware.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { ActionSchema, type Action } from "../../../packages/core/src/action.ts";
import { requestText, scriptedModel, tempBlobs } from "../llm/fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const onTrack = { text: '{"off_track": false, "error_step": null, "reason": "fine so far", "confidence": 0.9}' };

describe("recoveryMiddleware: the recovery sub-agent's 0-E context (E < t-1)", () => {
  it.each(["short", "detailed"] as const)(
    "shows the wrong step and every step after it, and truncates to R (%s transition)",
    async (transition) => {
      const task = getSimDeskTask("files-rename-draft");
      const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
      expect(mistake.atStep).toBe(2);
      const blobs = tempBlobs();
      const env = createSimDesk({ blobs });
      await env.reset(task);
      const later: Action[] = [3, 4, 5].map((i) => ({ type: "MOVE_TO", x: 30 + i, y: 40 + i }) as Action);

      const det = await scriptedModel(blobs, [
        onTrack,
        onTrack,
        onTrack,
        onTrack,
        onTrack,
        { text: '{"off_track": true, "error_step": 2, "reason": "selected notes.txt", "confidence": 0.9}' },
      ]);
      const rec = await scriptedModel(blobs, [{ text: "RESTORED" }]);
      servers.push(det.server, rec.server);

      const computer = tool(
        async ({ action }: { action: Action }) => (await env.step(action), `executed ${action.type}`),
        {
          name: "computer",
          description: "Execute one desktop action",
          schema: z.object({ action: ActionSchema }),
        },
      );
      const mw = recoveryMiddleware({
        detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
        observe: () => env.observe(),
        blobs,
        toActions: (c) => [ActionSchema.parse(c.args.action)],
        restore: recoverWithPolicy({
          recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 10 }),
          env,
          blobs,
          recoveryBudget: 2,
          recoveryContext: "0-E",
        }),
        recoveryStep: "error-minus-1",
        maxRecoveryIterations: 1,
        transition,
      });
      const truncations: Array<[number, number]> = [];
      mw.events.on("truncate", (e) => void truncations.push([e.from, e.to]));
      let model = fakeModel();
      [task.plan[0], task.plan[1], mistake.actions[0], ...later].forEach(
        (a, i) => (model = model.respondWithTools([{ name: "computer", args: { action: a }, id: `call-${i}` }])),
      );
      model = model.respond(new AIMessage("Stopping here."));
      const agent = createAgent({ model, tools: [computer], middleware: [mw] });
      const result = await agent.invoke({ messages: [new HumanMessage(task.instruction)] }, { recursionLimit: 100 });

      det.server.verify();
      rec.server.verify();
      expect(truncations).toEqual([[6, 1]]);
      const text = requestText(rec.server.requests[0].body);
      expect(text).toContain("Earlier run, steps 0 to 5:");
      expect(text).toMatch(/Step 2 action: CLICK\(/);
      for (const [i, a] of later.entries())
        expect(text).toContain(`Step ${i + 3} action: MOVE_TO(${a.type === "MOVE_TO" ? `${a.x},${a.y}` : ""})`);
      expect(rec.server.requests[0].images).toHaveLength(8); // target, six history screenshots, current

      // The forward call after the recovery got the chosen transition string.
      const notice = String(model.calls[6].messages.at(-1)!.content);
      if (transition === "short")
        expect(notice).toBe("Note: the environment has been recovered to the state it had at step 1.");
      else expect(notice).toMatch(/do not assume anything you did after step 1 still holds/);
      const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
      expect(track.prompts).toContain(
        transition === "short" ? "post-restoration.transition@2" : "post-restoration.transition-detailed@1",
      );
    },
  );
});
