/**
 * The generic screenshot-in, pyautogui-code-out agent for any OpenAI-compatible chat model (the
 * OSWorld default agent style used for Qwen, EvoCUA and similar models). Prompts come from
 * prompts/forward-pyautogui-*.ts; the answer is read by the pyautogui converter, never executed.
 */
import { promptRef, renderPrompt } from "../../../src/prompt.ts";
import forwardSystem from "../../../prompts/forward-pyautogui-system.ts";
import forwardStep from "../../../prompts/forward-pyautogui-step.ts";
import { pyautoguiResponseToActions } from "../../actions/pyautogui/convert.ts";
import { createChatPolicy, type ChatPolicy, type ChatPolicyOptions } from "./chat-policy.ts";

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
  return createChatPolicy(
    options,
    {
      prompt: `${promptRef(forwardSystem)}+${promptRef(forwardStep)}`,
      system: (input) => renderPrompt(forwardSystem, { screen_width: input.observation.width, screen_height: input.observation.height }),
      stepText: (input) => renderPrompt(forwardStep, { instruction: input.task.instruction }),
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
