/**
 * The consumer test's scenario (copied into the consumer project beside consumer-episodes.ts and
 * otel-ai7.ts, compiled by its tsc, imported by package name only): SimDesk's files-rename-draft
 * with its wrong-item mistake at step E=2, the LLM detector (blames E on its third call) and the
 * LLM recovery sub-agent (clicks back to the state of R=1, says RESTORED) over scripted servers,
 * and the forward actions an agent's scripted model proposes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore, type Action, type EpisodeResult } from "retrace-cua";
import { createLlmErrorDetector, createLlmRecoveryPolicy, createOpenAIChatModel } from "retrace-cua/models";
import { createSimDesk, getSimDeskTask } from "retrace-cua/simdesk";
import { startScriptedOpenAIServer, type ScriptStep, type ScriptedOpenAIServer } from "retrace-cua/testing";

/** Every scripted server started here; the caller verifies and closes them. */
export const servers: ScriptedOpenAIServer[] = [];

/** An OpenAI-compatible chat model over a scripted server answering `script` in order. */
export async function chatModel(blobs: BlobStore, script: ScriptStep[]) {
  const server = await startScriptedOpenAIServer({ script });
  servers.push(server);
  return createOpenAIChatModel({
    model: "scripted-vlm",
    blobs,
    baseURL: server.url,
    apiKey: "test-key",
    maxRetries: 0,
    timeoutMs: 20_000,
  });
}

/** The wrong-item scenario: desk, forward actions, LLM detector and recoverer over scripted servers. */
export async function scenario() {
  const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-consumer-")) });
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item");
  if (!mistake) throw new Error("files-rename-draft has no wrong-item mistake");
  const E = mistake.atStep;
  const R = E - 1;
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const twin = createSimDesk({ blobs });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[R]);
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK")
    throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
  const detector = createLlmErrorDetector({
    historyImages: 1,
    model: await chatModel(blobs, [
      { text: '{"off_track": false, "error_step": null, "reason": "opened the file manager", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "in Documents", "confidence": 0.8}' },
      {
        text: `{"off_track": true, "error_step": ${E}, "reason": "selected notes.txt, the task is about draft.txt", "confidence": 0.92}`,
      },
    ]),
  });
  const recoverer = createLlmRecoveryPolicy({
    historyImages: 1,
    model: await chatModel(blobs, [
      { text: `Back to Home.\n\`\`\`python\npyautogui.click(${fix.action.x}, ${fix.action.y})\n\`\`\`` },
      { text: "The screen now matches the target.\nRESTORED" },
    ]),
  });
  const forward: Action[] = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)].filter(
    (a) => a.type !== "DONE",
  );
  // The SDK integrations judge step E while the model writes step E+1 (detection "auto" with a
  // model detector): that answer is thrown away, never executed, when E is flagged. A scripted
  // model answers in order, so their script carries one extra entry there (the mistake again;
  // that it never executes is pinned in test/adapters/sdk/sdk-overlap.int.test.ts).
  const sdkForward: Action[] = [...forward.slice(0, E + 1), ...mistake.actions, ...forward.slice(E + 1)];
  return { blobs, task, env, E, R, forward, sdkForward, detector, recoverer };
}

/** The Anthropic computer-tool input of an action (the actions of this scenario). */
export function toAnthropicInput(a: Action): Record<string, unknown> {
  switch (a.type) {
    case "CLICK":
      return { action: "left_click", coordinate: [a.x, a.y] };
    case "TYPING":
      return { action: "type", text: a.text };
    case "PRESS":
      return { action: "key", text: a.key === "f2" ? "F2" : a.key === "enter" ? "Return" : a.key };
    default:
      throw new Error(`no Anthropic action for ${a.type}`);
  }
}

/** The checks every episode passes: success, one recovery, the history cut from E+1 back to R. */
export function check(
  name: string,
  result: Pick<EpisodeResult, "success" | "accounting" | "trajectory">,
  E: number,
  R: number,
): void {
  const cuts = result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]);
  const line = {
    episode: name,
    success: result.success,
    stopReason: (result as { stopReason?: unknown }).stopReason,
    recoveryAttempts: result.accounting.recoveryAttempts,
    cuts,
    node: process.version,
  };
  if (
    !result.success ||
    result.accounting.recoveryAttempts !== 1 ||
    JSON.stringify(cuts) !== JSON.stringify([[E + 1, R]])
  )
    throw new Error(
      `${name}: expected a successful episode with one recovery and the cut [[${E + 1}, ${R}]], got ${JSON.stringify(line)}`,
    );
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
