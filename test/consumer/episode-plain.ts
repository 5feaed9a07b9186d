/**
 * A consumer episode (consumer-episodes.ts runs it): the plain runtime, a pyautogui chat agent
 * wrapped with withRecovery, on the scenario of consumer-scenario.ts. Umbrella projects only.
 */
import { withRecovery } from "retrace-cua";
import { createPyautoguiPolicy } from "retrace-cua/models";
import { actionToPyautogui } from "retrace-cua/adapters";
import type { ScriptStep } from "retrace-cua/testing";
import { chatModel, check, scenario } from "./consumer-scenario.js";

/** Plain runtime: a pyautogui chat agent wrapped with withRecovery. */
export async function run(): Promise<void> {
  const s = await scenario();
  // The graph asks the detector on step E and the policy for step E+1 at once ("overlapped", docs/runtime.md); the
  // recovery discards that proposal.
  const proposals = [...s.forward.slice(0, s.E + 1), s.forward[s.E + 1], ...s.forward.slice(s.E + 1)];
  const steps: ScriptStep[] = proposals.map((a) => ({
    endpoint: "chat",
    text: `\`\`\`python\n${actionToPyautogui(a)}\n\`\`\``,
  }));
  const policy = createPyautoguiPolicy({
    model: await chatModel(s.blobs, [...steps, { endpoint: "chat", text: "DONE" }]),
    historyImages: 1,
  });
  const agent = withRecovery(policy, {
    detector: s.detector,
    recoverer: s.recoverer,
    freezeWindow: 5,
    maxRecoveryIterations: 4,
  });
  check("withRecovery", await agent.run({ task: s.task, env: s.env, blobs: s.blobs }), s.E, s.R);
}
