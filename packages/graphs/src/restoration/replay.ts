/**
 * `replay` restoration: reset the environment and replay the saved forward action prefix up to R
 * (the paper's ideal recovery, App. B.1), up to `replayRetries` times. A replay counts as
 * reproduced when the ground-truth state hash equals the one recorded at o_R (environments with
 * ground truth); otherwise the verifier's verdict when one is given (an abstention confirms
 * nothing unless `onAbstain: "ssim"`), else SSIM >= 0.99 between the screenshot and o_R: the one
 * confirmation rule (packages/core/src/runtime/confirm.ts). R = 0 is a reset.
 */
import type { Observation } from "@retrace-cua/core/observation";
import { addUsage, bump } from "@retrace-cua/core/runtime/accounting";
import { describeError } from "@retrace-cua/core/errors";
import { DEFAULT_SSIM_THRESHOLD } from "@retrace-cua/core/image/similarity";
import { isRestored, type RestorationConfirmation } from "@retrace-cua/core/runtime/confirm";
import type { StepRecord, TrajectoryEvent } from "@retrace-cua/core/trajectory";
import type { RuntimeContext } from "../context.ts";
import { currentStateHash, executeActions } from "../env-step.ts";
import type { GraphState } from "../state.ts";
import { confirmState } from "./confirm.ts";
import type { RestorationOutcome } from "./outcome.ts";

/**
 * SSIM at or above which a replayed screen counts as the target screen (the one threshold of
 * packages/core/src/replay/state-check.ts).
 */
export const REPLAY_SSIM_THRESHOLD = DEFAULT_SSIM_THRESHOLD;

export async function restoreByReplay(
  state: GraphState,
  ctx: RuntimeContext,
  recoveryStep: number,
  attempt: number,
): Promise<RestorationOutcome> {
  const { env, blobs } = ctx.components;
  const target = state.history[recoveryStep].observation;
  const targetHash = state.stateHashes[recoveryStep] ?? null;
  const records: StepRecord[] = [];
  const events: TrajectoryEvent[] = [];
  let accounting = state.accounting;
  let tick = state.tick;
  let observation: Observation = state.observation!;
  let reason = "";
  let confirmation: RestorationConfirmation = "refused";
  for (let tryNo = 1; tryNo <= ctx.options.replayRetries; tryNo++) {
    try {
      observation = await env.reset(state.task);
    } catch (err) {
      return fail(`reset failed: ${describeError(err)}`);
    }
    events.push({
      afterSeq: state.steps.length + records.length - 1,
      kind: "reset",
      detail: { reason: "replay", attempt, try: tryNo, recoveryStep },
    });
    const executed = [];
    for (let j = 0; j < recoveryStep; j++) {
      const before = observation;
      const run = await executeActions(ctx, state.history[j].actions, before);
      observation = run.observation;
      executed.push(...run.executed);
      tick += 1;
      const record: StepRecord = {
        seq: state.steps.length + records.length,
        role: "replay",
        step: j,
        attempt,
        actions: run.executed,
        before: before.screenshot,
        after: observation.screenshot,
        ...(before.stateId ? { beforeState: before.stateId } : {}),
        ...(observation.stateId ? { afterState: observation.stateId } : {}),
        ...(observation.probe ? { probe: observation.probe } : {}),
        info: { try: tryNo },
        envMs: run.envMs,
      };
      records.push(record);
      ctx.events.emit("step", { taskId: state.task.id, record, tick });
      accounting = bump(accounting, { replaySteps: 1, envMs: run.envMs });
      if (run.envError) return fail(`replay step ${j} failed: ${run.envError}`, executed);
    }
    const hash = currentStateHash(ctx);
    const site = { seq: state.steps.length + records.length - 1, phase: "verifier" as const, attempt };
    const c = await confirmState(ctx, target, observation, {
      unchecked: "ssim",
      site,
      oracle: () => (targetHash && hash ? hash === targetHash : null),
    });
    accounting = addUsage(accounting, c.usage, "verifier");
    confirmation = c.confirmation;
    const ok = isRestored(c.confirmation);
    if (targetHash && hash)
      reason = ok
        ? `replayed ${recoveryStep} step(s); state hash matches o_${recoveryStep}`
        : `try ${tryNo}: state hash differs from o_${recoveryStep}`;
    else if (c.verdict === "match" || c.verdict === "mismatch")
      reason = `try ${tryNo}: ${ctx.components.verifier!.name} says ${c.verdict}: ${c.verifierReason}`;
    else if (c.verdict === "abstain") reason = `try ${tryNo}: ${c.reason}`;
    else reason = `try ${tryNo}: SSIM to o_${recoveryStep} = ${c.ssim!.toFixed(4)}`;
    if (!ok) accounting = bump(accounting, { replayDesyncs: 1 });
    if (ok || tryNo === ctx.options.replayRetries)
      return { ...done(ok, reason), envLog: { base: "reset", actions: executed } };
  }
  return fail("no replay attempt was made");

  function done(restored: boolean, why: string): RestorationOutcome {
    return {
      observation,
      restored,
      confirmation: restored ? confirmation : "refused",
      reason: why,
      records,
      events,
      tick,
      envLog: { base: "reset", actions: [] },
      accounting,
      prompts: state.prompts,
    };
  }
  function fail(why: string, executed: RestorationOutcome["envLog"]["actions"] = []): RestorationOutcome {
    return { ...done(false, why), envLog: { base: "reset", actions: executed }, envError: why };
  }
}
