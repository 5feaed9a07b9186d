/**
 * Test helper: one SimDesk episode played by the real pyautogui policy (OpenAI chat model over
 * HTTP) against a stand-in server, with a plain propose -> step loop.
 */
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createPyautoguiPolicy } from "../../../../packages/models/src/policies/openai/pyautogui-policy.ts";
import type { ObservationType } from "../../../../packages/models/src/policies/observation.ts";
import { createSimDesk, getSimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { formatAction } from "../../../../packages/core/src/action.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import type { BlobStore } from "../../../../packages/core/src/blob-store.ts";

/** Options of {@link playEpisode}. */
export interface EpisodeOptions {
  url: string;
  blobs: BlobStore;
  taskId: string;
  seed?: number;
  temperature?: number;
  observation?: ObservationType;
  maxSteps?: number;
}

/** Play one episode; returns the actions taken (as text) and whether the task succeeded. */
export async function playEpisode(o: EpisodeOptions): Promise<{ actions: string[]; success: boolean; steps: number }> {
  const model = createOpenAIChatModel({
    model: "retrace-stand-in",
    baseURL: o.url,
    blobs: o.blobs,
    settings: { logLevel: "warn", ci: false },
    ...(o.seed !== undefined && { seed: o.seed }),
  });
  const policy = createPyautoguiPolicy({
    model,
    temperature: o.temperature ?? 0.7,
    observation: o.observation ?? "a11y_tree",
  });
  const env = createSimDesk({ blobs: o.blobs });
  const task = getSimDeskTask(o.taskId);
  try {
    let observation = await env.reset(task);
    const history: HistoryEntry[] = [];
    const actions: string[] = [];
    for (let step = 0; step < (o.maxSteps ?? 15); step++) {
      const d = await policy.propose({ task, history, observation, step, tick: step, blobs: o.blobs });
      actions.push(d.actions.map(formatAction).join("; ") || `(failure: ${d.failure?.kind})`);
      if (d.actions.some((a) => a.type === "DONE" || a.type === "FAIL")) break;
      const before = observation;
      for (const a of d.actions) observation = (await env.step(a)).observation;
      history.push({ step, observation: before, actions: d.actions, ...(d.response && { response: d.response }) });
    }
    const evaluation = await env.evaluate();
    return { actions, success: evaluation.score >= 1, steps: actions.length };
  } finally {
    await env.close();
  }
}
