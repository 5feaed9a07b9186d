/**
 * A UI-TARS-style forward policy over any chat model: the UI-TARS prompt, the last N screenshots
 * (UI-TARS keeps 5), answers `Thought: ... Action: click(start_box='(x,y)')` read by the UI-TARS
 * converter with 0-1000 (UI-TARS-1) or image-pixel (UI-TARS-1.5) coordinates.
 */
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import { uiTarsToActions, type UiTarsCoordinates } from "../../actions/uitars/convert.ts";
import { createChatPolicy, type ChatPolicy, type ChatPolicyOptions } from "../openai/chat-policy.ts";
import uiTarsPrompt from "./prompt.ts";

/** Options for {@link createUiTarsPolicy}. */
export interface UiTarsPolicyOptions extends ChatPolicyOptions {
  /** How the model's coordinates map to the screen. @default "relative-1000" */
  coordinates?: UiTarsCoordinates;
  /** Language of the Thought part. @default "English" */
  language?: string;
  /** Wheel clicks per scroll. @default 5 */
  scrollAmount?: number;
}

/** Create a UI-TARS-style policy (historyImages defaults to 5 as in UI-TARS). */
export function createUiTarsPolicy(options: UiTarsPolicyOptions): ChatPolicy {
  const stepPrompt = (instruction: string) =>
    renderPrompt(uiTarsPrompt, { instruction, language: options.language ?? "English" });
  return createChatPolicy(
    { historyImages: 5, temperature: 0, ...options },
    {
      prompt: promptRef(uiTarsPrompt),
      system: () => "You are a helpful assistant.",
      stepText: (input) => stepPrompt(input.task.instruction),
      parse: (response, input) =>
        uiTarsToActions(response, {
          screen: { width: input.observation.width, height: input.observation.height },
          coordinates: options.coordinates ?? "relative-1000",
          scrollAmount: options.scrollAmount,
        }).actions,
    },
    "uitars",
  );
}
