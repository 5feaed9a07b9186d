/**
 * `RetraceComputer`: the OpenAI Agents SDK's `Computer` over any retrace environment (SimDesk,
 * X11, containers, OSWorld, browser). Each SDK action is converted with the OpenAI computer-use
 * converter (packages/models/src/actions/openai-cua/convert.ts) to retrace Actions and executed with
 * `env.step`; each action and the observation after it are kept in `log` (screenshots live in
 * the environment's BlobStore, referenced by hash). `screenshot()` answers with the observation
 * the last action produced, or a fresh `observe()`. The display size it declares is the
 * environment's real one: the SDK calls `initRun` before a run's first model call, which observes
 * the screen, and each later observation updates it (the SDK reads `dimensions` every turn).
 */
import type { Computer } from "@openai/agents";
import type { Action } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import {
  openAIComputerActionToActions,
  type OpenAIComputerAction,
} from "@retrace-cua/models/actions/openai-cua/convert";
import { envMeter } from "@retrace-cua/sdk-shared/env-meter";
import { checkDimensions } from "@retrace-cua/sdk-shared/sdk-values";

type Button = Parameters<Computer["click"]>[2];

/** One executed action. */
export interface ComputerLogEntry {
  /** The SDK action as the model sent it (e.g. `{ type: "click", x, y, button }`). */
  sdkAction: OpenAIComputerAction;
  actions: Action[];
  observation: Observation;
}

/** Options of {@link RetraceComputer}. */
export interface RetraceComputerOptions {
  env: Environment;
  blobs: BlobReader;
  /**
   * Display size declared to the model. @default the width and height of the latest observation (1280x720 before any)
   */
  dimensions?: [number, number];
  /** Declared display environment. @default "browser" for env.kind "browser", else "ubuntu" */
  environment?: "mac" | "windows" | "ubuntu" | "browser";
}

/** A `Computer` for `computerTool({ computer })` that acts on a retrace environment. */
export class RetraceComputer implements Computer {
  readonly environment: "mac" | "windows" | "ubuntu" | "browser";
  /** Every executed action with the observation after it, in order. */
  readonly log: ComputerLogEntry[] = [];
  private fresh: Observation | undefined;
  private size: [number, number];

  constructor(private readonly options: RetraceComputerOptions) {
    this.environment = options.environment ?? (options.env.kind === "browser" ? "browser" : "ubuntu");
    this.size = checkDimensions("RetraceComputer", "dimensions", options.dimensions) ?? [1280, 720];
  }

  /** The display size declared to the model: `options.dimensions`, else the latest observation's. */
  get dimensions(): [number, number] {
    return this.size;
  }
  set dimensions(value: [number, number]) {
    this.size = value;
  }

  /**
   * Called by the SDK before a run's first model call: look at the screen, so the first turn declares its real size.
   */
  async initRun(): Promise<void> {
    this.fresh = await envMeter(this.options.env).observe();
    this.syncDimensions(this.fresh);
  }

  /** The retrace environment this computer acts on. */
  get env(): Environment {
    return this.options.env;
  }

  /** Declare the display size from an observation (call after `env.reset`). */
  syncDimensions(observation: Observation): void {
    if (!this.options.dimensions && observation.width > 0 && observation.height > 0)
      this.size = [observation.width, observation.height];
  }

  async screenshot(): Promise<string> {
    const obs = this.fresh ?? (await envMeter(this.options.env).observe());
    this.fresh = undefined;
    return envMeter(this.options.env).screenshotBase64(this.options.blobs, obs, "environment.observe()"); // 0 bytes or no image: one line, not sent
  }

  click(x: number, y: number, button: Button): Promise<void> {
    return this.act({ type: "click", x, y, button });
  }
  doubleClick(x: number, y: number): Promise<void> {
    return this.act({ type: "double_click", x, y });
  }
  scroll(x: number, y: number, scrollX: number, scrollY: number): Promise<void> {
    return this.act({ type: "scroll", x, y, scroll_x: scrollX, scroll_y: scrollY });
  }
  type(text: string): Promise<void> {
    return this.act({ type: "type", text });
  }
  wait(): Promise<void> {
    return this.act({ type: "wait" });
  }
  move(x: number, y: number): Promise<void> {
    return this.act({ type: "move", x, y });
  }
  keypress(keys: string[]): Promise<void> {
    return this.act({ type: "keypress", keys });
  }
  drag(path: [number, number][]): Promise<void> {
    return this.act({ type: "drag", path: path.map(([x, y]) => ({ x, y })) });
  }

  /**
   * Convert and execute; an unusable action throws (the SDK reports it to the model as a failed
   * tool call). With recovery's overlapped detection the action first waits for the verdict on
   * the previous step; when that step was judged off track the action is not executed (recovery
   * has restored an earlier state; the wrapper discards this model output) and is not logged.
   */
  private async act(sdkAction: OpenAIComputerAction): Promise<void> {
    const actions = openAIComputerActionToActions(sdkAction);
    const meter = envMeter(this.options.env); // times the action and keeps its observation for runWithRecovery
    if (!(await meter.admit())) {
      this.fresh = undefined; // the next screenshot observes the restored screen
      return;
    }
    let observation: Observation | undefined;
    for (const a of actions) observation = (await meter.step(a)).observation;
    observation ??= await meter.observe();
    this.fresh = observation;
    this.syncDimensions(observation);
    this.log.push({ sdkAction, actions, observation });
  }
}

/** A {@link RetraceComputer} over `env`. */
export function retraceComputer(options: RetraceComputerOptions): RetraceComputer {
  return new RetraceComputer(options);
}
