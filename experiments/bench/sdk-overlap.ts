/**
 * sdk-overlap (issue 40): the wall time of an OpenAI Agents SDK run wrapped with retrace's
 * recovery (`createAgentsRecovery`, default `detection: "auto"`, which overlaps the judge's
 * verdict on step t with the model's call for step t+1) divided by the same run bare, with a
 * 100 ms model and a 100 ms judge: loopback servers on 127.0.0.1 (adapters/testing) that answer
 * after a fixed delay. The agent is the SDK's own `run()` with its Responses model and a
 * `RetraceComputer` over SimDesk; the judge is the LLM detector over the chat-completions client
 * and says "on track" every step, so the figure is the cost of watching, not of recovering.
 * Target <= 1.10. Details: the sequential flow's ratio (judge in front of every model call), both
 * wall times, the steps per run.
 */
import { loadavg } from "node:os";
import type { BenchResult } from "./result.ts";
import { benchDesk } from "./long-episode.ts";
import { SIMDESK_TASKS } from "@retrace-cua/simdesk/simdesk";
import { startScriptedOpenAIServer, type RecordedRequest } from "@retrace-cua/testing/scripted-openai-server";
import { createLlmErrorDetector } from "@retrace-cua/models/llm/detector";
import { createOpenAIChatModel } from "@retrace-cua/models/models/openai-chat";
import { InternalError } from "@retrace-cua/core/errors";

const STEPS = 15;
const LATENCY_MS = 100;
const REPS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(): Promise<BenchResult[]> {
  const [
    { Agent, OpenAIProvider, computerTool, run: runAgent, setTracingDisabled },
    { createAgentsRecovery },
    { retraceComputer },
  ] = await Promise.all([
    import("@openai/agents"),
    import("@retrace-cua/openai-agents/recovery"),
    import("@retrace-cua/openai-agents/computer"),
  ]);
  setTracingDisabled(true);
  const desk = benchDesk("sdk-overlap");
  // The agent: a computer action per turn until its input holds STEPS of them, then a text answer; 100 ms each.
  let k = 0;
  const model = await startScriptedOpenAIServer({
    responder: (req: RecordedRequest) => {
      const n = (req.body.input as Array<{ type?: string }>).filter((i) => i.type === "computer_call").length;
      if (n >= STEPS) return { endpoint: "responses", text: "Done.", delayMs: LATENCY_MS };
      const id = k++;
      return {
        endpoint: "responses",
        delayMs: LATENCY_MS,
        output: [
          {
            type: "computer_call",
            id: `cu_${id}`,
            call_id: `call_${id}`,
            action: { type: "keypress", keys: ["shift"] },
            pending_safety_checks: [],
            status: "completed",
          },
        ],
      };
    },
  });
  const judgeServer = await startScriptedOpenAIServer({
    responder: () => ({
      endpoint: "chat",
      delayMs: LATENCY_MS,
      text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
    }),
  });
  try {
    const task = SIMDESK_TASKS[0];
    const detector = createLlmErrorDetector({
      model: createOpenAIChatModel({
        model: "judge",
        blobs: desk.blobs,
        baseURL: judgeServer.url,
        apiKey: "bench",
        maxRetries: 0,
      }),
      historyImages: 1,
    });
    const agentModel = await new OpenAIProvider({ baseURL: model.url, apiKey: "bench", useResponses: true }).getModel(
      "computer-use-preview",
    );
    const agentFor = (computer: ReturnType<typeof retraceComputer>) =>
      new Agent({
        name: "bench agent",
        instructions: "Operate the computer.",
        model: agentModel,
        tools: [computerTool({ computer })],
      });
    const once = async (mode: "bare" | "auto" | "sequential"): Promise<number> => {
      await desk.env.reset(task);
      const computer = retraceComputer({ env: desk.env, blobs: desk.blobs });
      const agent = agentFor(computer);
      const t0 = performance.now();
      if (mode === "bare") {
        await runAgent(agent, task.instruction, { maxTurns: STEPS + 2 });
      } else {
        const recovery = createAgentsRecovery({
          env: desk.env,
          blobs: desk.blobs,
          detector,
          task,
          evaluate: false,
          detection: mode,
          restore: async () => ({ restored: true, steps: 0, detail: "unused" }),
        });
        const r = await recovery.finish(
          await runAgent(agent, task.instruction, { ...recovery.runConfig, maxTurns: STEPS + 2 }),
        );
        if (r.accounting.detectorCalls !== STEPS || r.accounting.detectorFailures !== 0)
          throw new InternalError(
            `sdk-overlap: the judge answered ${r.accounting.detectorCalls - r.accounting.detectorFailures} of ${STEPS} steps`,
          );
      }
      const ms = performance.now() - t0;
      if (computer.log.length !== STEPS)
        throw new InternalError(`sdk-overlap: the run executed ${computer.log.length} of ${STEPS} steps`);
      return ms;
    };
    await once("bare"); // warm-up (module loading, first connections)
    await once("auto");
    const bare: number[] = [],
      wrapped: number[] = [],
      sequential: number[] = [];
    for (let i = 0; i < REPS; i++) {
      bare.push(await once("bare"));
      wrapped.push(await once("auto"));
      sequential.push(await once("sequential"));
    }
    const ratio = median(wrapped) / median(bare);
    return [
      {
        name: "sdk-overlap",
        ratioOf: `Agents SDK run wrapped / bare wall time, model and judge ${LATENCY_MS} ms, ${STEPS} steps`,
        ratio,
        value: ratio,
        unit: "x",
        target: "<= 1.10",
        pass: ratio <= 1.1,
        details: {
          bareMs: Math.round(median(bare)),
          wrappedMs: Math.round(median(wrapped)),
          sequentialMs: Math.round(median(sequential)),
          sequentialRatio: median(sequential) / median(bare),
          steps: STEPS,
          loadAvg1m: loadavg()[0],
        },
      },
    ];
  } finally {
    await Promise.all([model.close(), judgeServer.close()]);
    await desk.close();
  }
}
