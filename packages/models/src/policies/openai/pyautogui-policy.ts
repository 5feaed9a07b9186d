/**
 * The generic screenshot-in, pyautogui-code-out agent for any OpenAI-compatible chat model (the
 * OSWorld default agent style used for Qwen, EvoCUA and similar models). Prompts come from
 * prompts/forward-pyautogui-*.ts; the answer is read by the pyautogui converter, never executed.
 */
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import forwardSystem from "@retrace-cua/core/prompts/forward-pyautogui-system";
import forwardStep from "@retrace-cua/core/prompts/forward-pyautogui-step";
import { pyautoguiResponseToActions } from "../../actions/pyautogui/convert.ts";
import { createChatPolicy, type ChatPolicy, type ChatPolicyOptions } from "./chat-policy.ts";
import { observationNoun, type ObservationType } from "../observation.ts";

/** The system prompt's paragraph on the observation type (empty for screenshots: prompt text unchanged). */
export const OBSERVATION_NOTES: Record<ObservationType, string> = {
  screenshot: "",
  a11y_tree:
    "\n\nIn this setup you do not get screenshots. Instead, each step shows the screen's accessibility tree, one element per line with tab-separated columns: role, name, value, states, position (top-left x&y) and size (w&h), in screen pixels. Read coordinates off it: to click an element, click its centre (x + w/2, y + h/2).",
  screenshot_a11y_tree:
    "\n\nWith each screenshot you also get the screen's accessibility tree, one element per line with tab-separated columns: role, name, value, states, position (top-left x&y) and size (w&h), in screen pixels. Use it to find elements and their exact coordinates: an element's centre is (x + w/2, y + h/2).",
};

/** Options for {@link createPyautoguiPolicy}. */
export interface PyautoguiPolicyOptions extends ChatPolicyOptions {
  /**
   * Size of the image the model's coordinates refer to, when it differs from the screen (e.g. a
   * model that answers in its resized-image space). @default the screen size (no scaling)
   */
  modelScreen?: { width: number; height: number };
}

/** Create the generic pyautogui agent. */
export function createPyautoguiPolicy(options: PyautoguiPolicyOptions): ChatPolicy {
  const observation = options.observation ?? "screenshot";
  return createChatPolicy(
    options,
    {
      prompt: `${promptRef(forwardSystem)}+${promptRef(forwardStep)}`,
      system: (input) =>
        renderPrompt(forwardSystem, {
          screen_width: input.observation.width,
          screen_height: input.observation.height,
          observation_note: OBSERVATION_NOTES[observation],
        }),
      stepText: (input) =>
        renderPrompt(forwardStep, { instruction: input.task.instruction, observation: observationNoun(observation) }),
      parse: (response, input) => {
        const { width, height } = input.observation;
        const m = options.modelScreen;
        return pyautoguiResponseToActions(response, {
          screen: m ?? { width, height },
          ...(m && { scaleX: width / m.width, scaleY: height / m.height }),
        });
      },
    },
    "pyautogui",
  );
}
