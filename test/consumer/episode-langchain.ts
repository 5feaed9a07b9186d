/**
 * A consumer episode (consumer-episodes.ts runs it): a LangChain createAgent agent whose one tool
 * executes retrace actions on the desk, with recoveryMiddleware (the LLM detector, and
 * recoverWithPolicy with the LLM recovery sub-agent, over the scripted servers of
 * consumer-scenario.ts). The agent's model is LangChain's own fakeModel answering the scenario's
 * forward actions as tool calls; the middleware cuts the history back to R after the recovery.
 */
import { AIMessage, HumanMessage, createAgent, fakeModel, tool } from "langchain";
import { z } from "zod";
import { ActionSchema, type Action } from "retrace-cua";
import { recoverWithPolicy, recoveryMiddleware, type RecoveryTrack } from "retrace-cua/langchain";
import { check, scenario } from "./consumer-scenario.js";

export async function run(): Promise<void> {
  const s = await scenario();
  const computer = tool(
    async ({ action }: { action: Action }) => {
      await s.env.step(action);
      return `executed ${action.type}`;
    },
    { name: "computer", description: "Execute one desktop action", schema: z.object({ action: ActionSchema }) },
  );
  const mw = recoveryMiddleware({
    detector: s.detector,
    observe: () => s.env.observe(),
    blobs: s.blobs,
    toActions: (c) => [ActionSchema.parse(c.args.action)],
    restore: recoverWithPolicy({ recoverer: s.recoverer, env: s.env, blobs: s.blobs, recoveryBudget: 4 }),
    recoveryStep: "error-minus-1",
    instanceKey: `${s.task.id}/0`,
  });
  const cuts: Array<[number, number]> = [];
  mw.events.on("truncate", (e) => void cuts.push([e.from, e.to]));
  let model = fakeModel();
  s.forward.forEach(
    (a, i) => (model = model.respondWithTools([{ name: "computer", args: { action: a }, id: `call-${i}` }])),
  );
  model = model.respond(new AIMessage("Renamed draft.txt to final.txt."));
  const agent = createAgent({ model, tools: [computer], middleware: [mw] });
  const result = await agent.invoke({ messages: [new HumanMessage(s.task.instruction)] }, { recursionLimit: 100 });
  const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
  const evaluation = await s.env.evaluate();
  check(
    "langchain",
    {
      success: evaluation.score === 1,
      accounting: track.accounting,
      trajectory: { events: cuts.map(([from, to]) => ({ kind: "truncate", detail: { from, to } })) },
    } as unknown as Parameters<typeof check>[1],
    s.E,
    s.R,
  );
}
