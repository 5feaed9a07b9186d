/**
 * `retraceComputerTool({ env, blobs })`: Anthropic's computer tool (`computer_20250124` of
 * `@ai-sdk/anthropic`, or the factory given as `computerTool`) for the Vercel AI SDK, executing on
 * any retrace environment. `ai` is this package's one peer: `@ai-sdk/anthropic` loads only when no
 * `computerTool` is given, and no public type names it (a project compiling with skipLibCheck off
 * needs only `ai`). Each tool call
 * is converted with the Anthropic converter (packages/models/src/actions/anthropic/convert.ts) to retrace
 * Actions and executed with `env.step`; the screenshot after it (from the environment's
 * BlobStore) goes back to the model as an image. Actions and observations are kept in `log`.
 */
import type { Tool } from "ai";
import { requireOptional } from "@retrace-cua/core/optional-import";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { Action } from "@retrace-cua/core/action";
import {
  anthropicComputerInputToActions,
  type AnthropicComputerInput,
} from "@retrace-cua/models/actions/anthropic/convert";
import { envMeter } from "@retrace-cua/sdk-shared/env-meter";
import { toolResultImage } from "./tool-result-image.ts";
import { checkPixels } from "@retrace-cua/sdk-shared/sdk-values";

/**
 * A provider's computer-tool factory, as `anthropic.tools.computer_20250124` (or `computer_20251124`)
 * of `@ai-sdk/anthropic` is: the tool the model is told about, whose calls retrace executes.
 */
export type ComputerToolFactory = (options: {
  displayWidthPx: number;
  displayHeightPx: number;
  execute: (input: ProviderInput) => Promise<ComputerToolOutput>;
  toModelOutput: NonNullable<Tool<ProviderInput, ComputerToolOutput>["toModelOutput"]>;
}) => Tool<ProviderInput, ComputerToolOutput>;
/**
 * Each provider's factory types its own input (Anthropic's a union of its actions); retrace reads it
 * as an {@link AnthropicComputerInput} and validates it when converting.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ProviderInput = any;

/** Options of {@link retraceComputerTool}. */
export interface RetraceComputerToolOptions {
  env: Environment;
  blobs: BlobReader;
  /**
   * The provider's computer-tool factory, e.g. `anthropic.tools.computer_20250124` from your own
   * `@ai-sdk/anthropic` (one instance of the provider in your process).
   * @default `anthropic.tools.computer_20250124` of the installed `@ai-sdk/anthropic`
   */
  computerTool?: ComputerToolFactory;
  /** Display size declared to the model. @default 1280x720 */
  displayWidthPx?: number;
  displayHeightPx?: number;
}

/** One executed tool call. */
export interface ComputerToolLogEntry {
  input: AnthropicComputerInput;
  actions: Action[];
  observation: Observation;
}

/** What the tool's execute returns (the screenshot as base64 PNG). */
export interface ComputerToolOutput {
  screenshot: string;
}

/** The tool {@link retraceComputerTool} builds: the AI SDK tool, and `log`, every executed call. */
export type RetraceComputerTool = Tool<ProviderInput, ComputerToolOutput> & { log: ComputerToolLogEntry[] };

function defaultComputerTool(): ComputerToolFactory {
  const { anthropic } = requireOptional<{ anthropic: { tools: { computer_20250124: ComputerToolFactory } } }>(
    "@ai-sdk/anthropic",
    "retraceComputerTool without a computerTool option (Anthropic's computer tool)",
  );
  return anthropic.tools.computer_20250124;
}

/** Build the tool; `tool.log` lists every executed call. */
export function retraceComputerTool(options: RetraceComputerToolOptions): RetraceComputerTool {
  const log: ComputerToolLogEntry[] = [];
  const factory = options.computerTool ?? defaultComputerTool();
  const tool = factory({
    displayWidthPx: checkPixels("retraceComputerTool", "displayWidthPx", options.displayWidthPx) ?? 1280,
    displayHeightPx: checkPixels("retraceComputerTool", "displayHeightPx", options.displayHeightPx) ?? 720,
    execute: async (input): Promise<ComputerToolOutput> => {
      // Unusable model input throws: the SDK reports it to the model as a tool error (a recorded agent mistake).
      const actions =
        input.action === "screenshot" ? [] : anthropicComputerInputToActions(input as AnthropicComputerInput);
      const meter = envMeter(options.env); // times the call and keeps its observation for generateTextWithRecovery
      // Overlapped detection: wait for the verdict on the previous step; an action after an
      // off-track step is not executed (recovery restored an earlier state; the step is discarded).
      if (!(await meter.admit()))
        return {
          screenshot: await meter.screenshotBase64(options.blobs, await meter.observe(), "environment.observe()"),
        };
      let observation: Observation | undefined;
      for (const a of actions) observation = (await meter.step(a)).observation;
      const from = observation ? "environment.step()" : "environment.observe()";
      observation ??= await meter.observe();
      log.push({ input: input as AnthropicComputerInput, actions, observation });
      // 0 bytes or no image: one line naming the function, never sent to the model as an image
      return { screenshot: await meter.screenshotBase64(options.blobs, observation, from) };
    },
    // ai 7's file part there (its "image-data" part is deprecated), ai 6's image-data part on ai 6.
    toModelOutput: ({ output }) =>
      ({
        type: "content",
        value: [toolResultImage((output as ComputerToolOutput).screenshot)],
      }) as never,
  });
  return Object.assign(tool, { log });
}
