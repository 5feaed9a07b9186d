/**
 * Option `onStuck: "stop"` on the LangChain middleware: with the recovery attempts spent (here: none
 * allowed), a `createAgent` CUA that sends the same no-effect key 3 times is stopped before its next
 * model call (the middleware's beforeModel jumps to the end); "continue" (the paper's) asks the model
 * again.
 */
import { describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recoveryMiddleware, type RecoveryTrack } from "../../../packages/langchain/src/recovery-middleware.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { ActionSchema, type Action } from "../../../packages/core/src/action.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import { tempBlobs } from "../llm/fixtures.ts";

const quiet: ErrorDetector = {
  name: "quiet",
  simulated: true,
  async detect() {
    return { isError: false, errorStep: null, reason: "fine", confidence: 0.9 };
  },
};

describe("onStuck on the LangChain middleware", () => {
  for (const onStuck of ["stop", "continue"] as const) {
    it(`the same no-effect key 5 times, onStuck ${onStuck}`, async () => {
      const blobs = tempBlobs();
      const task = getSimDeskTask("files-rename-draft");
      const env = createSimDesk({ blobs });
      await env.reset(task);
      const computer = tool(
        async ({ action }: { action: Action }) => {
          await env.step(action);
          return `executed ${action.type}`;
        },
        { name: "computer", description: "Execute one desktop action", schema: z.object({ action: ActionSchema }) },
      );
      const mw = recoveryMiddleware({
        observe: () => env.observe(),
        blobs,
        task,
        toActions: (c: { args: Record<string, unknown> }) => [ActionSchema.parse(c.args.action)],
        restore: async () => ({ restored: true, steps: 0 }),
        detector: quiet,
        maxRecoveryIterations: 0,
        onStuck,
      });
      const key: Action = { type: "PRESS", key: "f13" };
      let model = fakeModel();
      for (let i = 0; i < 5; i++)
        model = model.respondWithTools([{ name: "computer", args: { action: key }, id: `c${i}` }]);
      model = model.respond(new AIMessage("I cannot get further."));
      const agent = createAgent({ model, tools: [computer], middleware: [mw] });
      const result = await agent.invoke({ messages: [new HumanMessage(task.instruction)] }, { recursionLimit: 40 });
      const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
      expect(track.accounting.forwardSteps).toBe(onStuck === "stop" ? 3 : 5);
      expect(model.calls).toHaveLength(onStuck === "stop" ? 3 : 6);
      if (onStuck === "stop") expect(track.stuck).toMatch(/same actions 3 times/);
      else expect(track.stuck).toBeUndefined();
    });
  }
});
