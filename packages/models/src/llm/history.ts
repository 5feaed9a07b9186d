/**
 * Renders an observation-action history as chat content parts: one text line per step with its
 * actions, and the screenshot it acted on for the most recent `images` steps. Screenshots stay
 * blob references; the model backend loads the bytes.
 */
import { formatAction } from "@retrace-cua/core/action";
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import { observationParts, type ObservationType } from "../policies/observation.ts";

/** How a history is rendered. */
export interface HistoryRenderOptions {
  /** Attach the screenshots of this many most recent steps (0 = text only). */
  images: number;
  /** Image detail hint for the API. @default "auto" */
  detail?: "low" | "high" | "auto";
  /** Include up to this many characters of each step's raw model response. @default 0 */
  responseChars?: number;
  /**
   * What is shown of each observation that gets an image: screenshot, accessibility tree or both. @default "screenshot"
   */
  observation?: ObservationType;
}

/** The image part for an observation's screenshot. */
export function screenshotPart(obs: Observation, detail: "low" | "high" | "auto" = "auto"): ChatContentPart {
  return { type: "image", blob: obs.screenshot, detail };
}

/** One step's actions as text, e.g. `CLICK(10,20); TYPING("hi")`. */
export function describeActions(entry: Pick<HistoryEntry, "actions">): string {
  return entry.actions.length === 0 ? "(no usable action)" : entry.actions.map(formatAction).join("; ");
}

/** Content parts for a history, oldest first. */
export function historyParts(history: readonly HistoryEntry[], opts: HistoryRenderOptions): ChatContentPart[] {
  const parts: ChatContentPart[] = [];
  const firstWithImage = Math.max(0, history.length - Math.max(0, opts.images));
  history.forEach((entry, i) => {
    if (i >= firstWithImage) {
      const noun = (opts.observation ?? "screenshot") === "a11y_tree" ? "Screen" : "Screenshot";
      parts.push({ type: "text", text: `${noun} before step ${entry.step}:` });
      parts.push(...observationParts(entry.observation, opts.observation, opts.detail));
    }
    let line = `Step ${entry.step} action: ${describeActions(entry)}`;
    const chars = opts.responseChars ?? 0;
    if (chars > 0 && entry.response) {
      const text = entry.response.length > chars ? `${entry.response.slice(0, chars)}...` : entry.response;
      line += `\nStep ${entry.step} agent said: ${text}`;
    }
    parts.push({ type: "text", text: line });
  });
  return parts;
}
