/**
 * The same scripted episode (ToyDesk, the toy forward policy slipping at tick 2, the toy detector
 * and recovery sub-agent) through the two drivers of the one recovery loop: the LangGraph runtime
 * (`withRecovery`) and the vendor-neutral loop (`StepRecovery` + `recoverWithPolicy`), which is
 * exactly what the LangChain middleware and the three SDK wrappers drive (each only maps its
 * SDK's messages to completed steps and applies the returned cut). Both must take the same
 * decisions: E, R, attempts, confirmation and the cut history. The same comparison through each
 * SDK's own loop (createAgent, run(), generateText, Stagehand) against scripted model servers is
 * test/adapters/sdk/cross-path-simdesk.int.test.ts and cross-path-browser.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { postRestoration } from "../../../packages/core/src/prompts/index.ts";
import { recoverWithPolicy } from "../../../packages/core/src/runtime/recover-with-policy.ts";
import { StepRecovery } from "../../../packages/core/src/runtime/step-recovery.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import {
  TOY_TASK,
  ToyDesk,
  createToyDetector,
  createToyPolicy,
  createToyRecoverer,
  newBlobs,
} from "../../graphs/fixtures/toy.ts";

type Decision = {
  kind: string;
  E?: number;
  R?: number;
  attempt?: number;
  confirmation?: string;
  from?: number;
  to?: number;
};

function record(events: EpisodeEvents, out: Decision[]) {
  events.on("selection", (e) => void out.push({ kind: "selection", E: e.errorStep, R: e.recoveryStep }));
  events.on(
    "recovery-end",
    (e) => void out.push({ kind: "recovery-end", attempt: e.attempt, confirmation: e.confirmation }),
  );
  events.on("truncate", (e) => void out.push({ kind: "truncate", attempt: e.attempt, from: e.from, to: e.to }));
}

describe("one loop, two drivers", () => {
  it("the graph and the vendor-neutral loop take the same decisions on the same episode", async () => {
    // The graph.
    const graphSide: Decision[] = [];
    const agent = withRecovery(createToyPolicy({ slipTicks: [2] }), {
      detector: createToyDetector(),
      recoverer: createToyRecoverer(),
    });
    const blobs = newBlobs();
    const events = new EpisodeEvents();
    record(events, graphSide);
    const restorations: Array<Record<string, string>> = [];
    events.on(
      "recovery-start",
      (e) => void restorations.push({ event: "recovery-start", restoration: e.restoration, mode: e.mode }),
    );
    events.on(
      "recovery-end",
      (e) => void restorations.push({ event: "recovery-end", restoration: e.restoration, mode: e.mode }),
    );
    const g = await agent.graph({ env: new ToyDesk(blobs), blobs, events });
    const state = await g.invoke({ task: TOY_TASK }, { recursionLimit: 200 });
    expect(state.result?.success).toBe(true);

    // The vendor-neutral loop, driven step by step like an SDK wrapper.
    const loopSide: Decision[] = [];
    const blobs2 = newBlobs();
    const env = new ToyDesk(blobs2);
    const policy = createToyPolicy({ slipTicks: [2] });
    const loop = new StepRecovery(
      {
        detector: createToyDetector(),
        blobs: blobs2,
        env,
        restore: recoverWithPolicy({ recoverer: createToyRecoverer(), env, blobs: blobs2 }),
        postRestoration,
        freezeWindow: 5,
        maxRecoveryIterations: 3,
        recoveryStep: "error-minus-1",
        minConfidence: 0,
        transition: "short",
        unconfirmedRestoration: "disclose-and-keep",
        seed: 0,
        settleMs: 0,
        restoration: "model",
        detectorTimeoutMs: 0,
      },
      { id: TOY_TASK.id, instruction: TOY_TASK.instruction },
    );
    record(loop.events, loopSide);
    let observation = await env.reset(TOY_TASK);
    loop.start(observation);
    let notice: string | undefined;
    for (let i = 0; i < 30; i++) {
      const d = await policy.propose({
        task: TOY_TASK,
        history: loop.state.history,
        observation,
        step: loop.state.history.length,
        tick: loop.state.tick,
        ...(notice ? { notice } : {}),
        blobs: blobs2,
      });
      if (d.actions.some((a) => a.type === "DONE")) break;
      for (const a of d.actions) observation = (await env.step(a)).observation;
      const cut = await loop.afterSteps([{ actions: d.actions, response: d.response }], observation);
      notice = cut?.notice;
      if (cut) observation = cut.observation;
    }
    expect((await env.evaluate()).score).toBe(1);

    expect(graphSide.length).toBeGreaterThan(0);
    expect(graphSide).toEqual([
      { kind: "selection", E: 2, R: 1 },
      { kind: "recovery-end", attempt: 1, confirmation: "claimed" },
      { kind: "truncate", attempt: 1, from: 3, to: 1 },
    ]);
    expect(loopSide).toEqual(graphSide);
    // The restoration kind goes by its option's name (\`restoration\`); \`mode\`, its old name, stays one release.
    expect(restorations).toEqual([
      { event: "recovery-start", restoration: "model", mode: "model" },
      { event: "recovery-end", restoration: "model", mode: "model" },
    ]);
    expect(loop.state.accounting.recoveryAttempts).toBe(state.result!.accounting.recoveryAttempts);
    expect(loop.state.accounting.recoverySteps).toBe(state.result!.accounting.recoverySteps);
  });
});
