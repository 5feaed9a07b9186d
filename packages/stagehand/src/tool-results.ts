/**
 * The tool results a Stagehand hybrid agent (`@browserbasehq/stagehand` 3.7) would have got, for
 * the forward policy (./forward-policy.ts), which offers Stagehand's tools without their
 * `execute` and lets retrace's environment carry out the actions. Each result is the object the
 * tool's own `execute` returns on success (its public shape, read from Stagehand's tools), with
 * the screenshot taken by the environment after the step, and goes through the tool's own
 * `toModelOutput` where it has one (as Stagehand's AI SDK loop does), else the AI SDK's JSON
 * output. Read-only tools (`screenshot`, `ariaTree`, `think`) are answered from the observation
 * they were called on.
 */
import type { Observation } from "@retrace-cua/core/observation";
import { linearizeAxTree } from "@retrace-cua/models/policies/observation";

/** The tools whose calls the forward policy answers inside a step (they change nothing on the page). */
export const STAGEHAND_ANSWERED_TOOLS: readonly string[] = ["screenshot", "ariaTree", "think"];

/** The tools whose calls are steps (the environment executes them). */
export const STAGEHAND_ACTING_TOOLS: readonly string[] = [
  "click",
  "type",
  "keys",
  "scroll",
  "dragAndDrop",
  "clickAndHold",
  "fillFormVision",
  "wait",
];

/** An AI SDK tool as far as the results need it (`toModelOutput` of `ai` 5). */
export interface ToolWithOutput {
  toModelOutput?: (output: unknown) => unknown;
}

/** The page URL an observation of the browser environment names (its `text` is "URL: ...\nTitle: ..."). */
export function observedUrl(obs: Observation): string {
  return /^URL: (\S+)/m.exec(obs.text ?? "")?.[1] ?? "about:blank";
}

type Input = Record<string, unknown>;

/** What the tool's `execute` returns on success; `png` is the screenshot (base64) after the call. */
function successResult(name: string, input: Input, png: string, obs: Observation): Record<string, unknown> {
  switch (name) {
    case "click":
      return { success: true, describe: input.describe, coordinates: input.coordinates, screenshotBase64: png };
    case "type":
      return { success: true, describe: input.describe, text: input.text, screenshotBase64: png };
    case "dragAndDrop":
      return { success: true, describe: input.describe, screenshotBase64: png };
    case "clickAndHold":
      return { success: true, describe: input.describe };
    case "keys":
      return {
        success: true,
        method: input.method,
        value: input.value,
        times: typeof input.repeat === "number" ? input.repeat : 1,
      };
    case "scroll": {
      const pct = typeof input.percentage === "number" ? input.percentage : 80;
      const at = Array.isArray(input.coordinates) ? ` at (${input.coordinates[0]}, ${input.coordinates[1]})` : "";
      return { success: true, message: `Scrolled ${pct}% ${String(input.direction)}${at}`, screenshotBase64: png };
    }
    case "fillFormVision":
      return { success: true, playwrightArguments: input.fields, screenshotBase64: png };
    case "wait":
      return { success: true, waited: input.timeMs, screenshotBase64: png };
    case "screenshot":
      return { success: true, base64: png, timestamp: 0, pageUrl: observedUrl(obs) };
    case "ariaTree":
      return obs.axTree
        ? { success: true, content: linearizeAxTree(obs.axTree), pageUrl: observedUrl(obs) }
        : {
            content: "",
            error: "the environment gives no accessibility tree",
            success: false,
            pageUrl: observedUrl(obs),
          };
    case "think":
      return { acknowledged: true, message: input.reasoning };
    default:
      return { success: false, error: `${name} is not available when retrace drives the agent` };
  }
}

/**
 * The AI SDK tool-result output of one call: the tool's `toModelOutput` of its success result
 * (after-step screenshot `png`, observation `obs`), or the result as JSON.
 */
export function toolOutput(
  tool: ToolWithOutput | undefined,
  name: string,
  input: unknown,
  png: string,
  obs: Observation,
): unknown {
  const result = successResult(name, (input && typeof input === "object" ? input : {}) as Input, png, obs);
  // JSON round trip: drops undefined fields, as the AI SDK's message schema requires.
  const clean = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
  return tool?.toModelOutput ? tool.toModelOutput(clean) : { type: "json", value: clean };
}
