/**
 * Shared setup of the cross-path tests (cross-path-simdesk and cross-path-browser .int.test.ts): what
 * each path decided (events, the history after the cut, the accounting), the graph run that replays
 * the scripted forward steps, the message-shape readers of each SDK's requests, and the scripted
 * servers, closed after each test by useServerCleanup().
 */
import { afterEach } from "vitest";
import { setTracingDisabled } from "@openai/agents";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { type ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Environment } from "../../../packages/core/src/environment.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import type { ForwardPolicy, PolicyInput } from "../../../packages/core/src/policy.ts";
import type { RecoveryPolicy } from "../../../packages/core/src/recovery.ts";
import type { Task } from "../../../packages/core/src/task.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";

setTracingDisabled(true);
export const servers: ScriptedOpenAIServer[] = [];

/** Closes the scripted servers the calling file's tests started, after each test. */
export function useServerCleanup(): void {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
}

/** What each path decided, in event order, plus what the agent saw right after the cut. */
export interface Decisions {
  events: Array<Record<string, unknown>>;
  /** Steps of the agent's own history kept after the cut, and the transition string it was shown. */
  afterCut: { kept: number; notice: string };
  accounting: { detectorCalls: number; recoveryAttempts: number; recoverySteps: number; forwardSteps: number };
  score: number;
}

export function recordEvents(events: EpisodeEvents): Decisions["events"] {
  const out: Decisions["events"] = [];
  events.on("selection", (e) => void out.push({ kind: "selection", E: e.errorStep, R: e.recoveryStep }));
  events.on(
    "recovery-end",
    (e) =>
      void out.push({
        kind: "recovery-end",
        attempt: e.attempt,
        restored: e.restored,
        steps: e.steps,
        confirmation: e.confirmation,
      }),
  );
  events.on("truncate", (e) => void out.push({ kind: "truncate", attempt: e.attempt, from: e.from, to: e.to }));
  return out;
}

export const pickAccounting = (a: Decisions["accounting"]): Decisions["accounting"] => ({
  detectorCalls: a.detectorCalls,
  recoveryAttempts: a.recoveryAttempts,
  recoverySteps: a.recoverySteps,
  forwardSteps: a.forwardSteps,
});

/** A ForwardPolicy replaying the agent's scripted steps in order (whatever the history), then DONE. */
export function replayPolicy(steps: Action[][]): ForwardPolicy & { inputs: PolicyInput[] } {
  const inputs: PolicyInput[] = [];
  return {
    name: "scripted-steps",
    inputs,
    async propose(input) {
      const actions = steps[inputs.length] ?? [{ type: "DONE" }];
      inputs.push(input);
      return { actions, response: JSON.stringify(actions) };
    },
  };
}

/** The graph on `env` (reset by the graph's start node) with the same components. */
export async function viaGraph(a: {
  env: Environment;
  blobs: BlobStore;
  task: Task;
  steps: Action[][];
  detector: ErrorDetector;
  recoverer: RecoveryPolicy;
  recoveryBudget: number;
}): Promise<Decisions> {
  const policy = replayPolicy(a.steps);
  const events = new EpisodeEvents();
  const seen = recordEvents(events);
  // Sequential detection on every path: an overlapped proposal (the graph's, and the Agents/AI SDK
  // integrations' default) is thrown away when the detector fires, which would shift a replayed
  // script by one call. That overlapped and sequential runs decide alike is pinned per SDK in
  // sdk-overlap.int.test.ts and for the graph in the overlap tests of test/graphs.
  const agent = withRecovery(policy, {
    detector: a.detector,
    recoverer: a.recoverer,
    recoveryBudget: a.recoveryBudget,
    detection: "sequential",
  });
  const g = await agent.graph({ env: a.env, blobs: a.blobs, events });
  const state = await g.invoke({ task: a.task }, { recursionLimit: 400 });
  const first = policy.inputs.find((i) => i.notice !== undefined)!;
  // The graph counts its closing DONE as a forward step; the SDK loops end on the model's final
  // text, which is no step. Compared without it.
  const done = state.result!.trajectory.steps.at(-1)?.actions.some((x) => x.type === "DONE") ? 1 : 0;
  const accounting = pickAccounting(state.result!.accounting);
  return {
    events: seen,
    afterCut: { kept: first.history.length, notice: first.notice! },
    accounting: { ...accounting, forwardSteps: accounting.forwardSteps - done },
    score: state.result!.evaluation?.score ?? -1,
  };
}

// Message-shape readers of each SDK's requests.
export const callIds = (body: any): string[] =>
  (body.input as any[]).filter((i) => i.type === "computer_call").map((i) => i.call_id);
export const userTexts = (body: any): string[] =>
  (body.input as any[])
    .filter((i) => i.role === "user")
    .map((i) => (typeof i.content === "string" ? i.content : i.content.map((p: any) => p.text ?? "").join("")));
export const blocks = (body: any): any[] =>
  (body.messages as any[]).flatMap((m) =>
    typeof m.content === "string"
      ? [{ type: "text", text: m.content, role: m.role }]
      : m.content.map((b: any) => ({ ...b, role: m.role })),
  );
export const toolUseIds = (body: any): string[] =>
  blocks(body)
    .filter((b) => b.type === "tool_use")
    .map((b) => b.id);
export const lastUserText = (body: any): string =>
  blocks(body)
    .filter((b) => b.type === "text" && b.role === "user")
    .at(-1)?.text ?? "";
