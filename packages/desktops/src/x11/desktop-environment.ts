/**
 * An `Environment` over a real desktop (host X11 or container): actions through xdotool,
 * screenshots as PNG blobs, settling by polling frames, oracles over files and AT-SPI.
 */
import type { Action } from "@retrace-cua/core/action";
import { formatAction } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment, EnvironmentCapabilities, StepOutcome } from "@retrace-cua/core/environment";
import { EnvironmentError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import type { Observation } from "@retrace-cua/core/observation";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import { parseDesktopTask, type DesktopEvaluator } from "../desktop-tasks/types.ts";
import { dumpAxTree } from "./accessibility.ts";
import type { DesktopBackend } from "./backend.ts";
import { frameToPng, type Frame } from "./frame.ts";
import { evaluateDesktop } from "./oracle.ts";
import { probeDesktop } from "./probe.ts";
import type { ProbeReport } from "@retrace-cua/core/probes/report";
import { settle, type SettleOptions } from "./settle.ts";
import { planXdotool, type XdoOptions } from "./xdotool.ts";

/** Options of {@link DesktopEnvironment}. */
export interface DesktopEnvironmentOptions {
  backend: DesktopBackend;
  /** Where screenshots go. */
  blobs: BlobStore;
  /** Attach an accessibility tree to every observation (costs ~0.2 s per step). @default false */
  accessibility?: boolean;
  /** Settling after each action. */
  settle?: SettleOptions;
  /** xdotool details (typing delay...). */
  xdotool?: XdoOptions;
  /** State probes (`probe()`): include AT-SPI digests when the backend has AT-SPI. @default true */
  probeAccessibility?: boolean;
}

/** Timings of the last step, for measurement and reports. */
export interface DesktopStepTimings {
  /** Running the xdotool command. */
  actMs: number;
  /** Polling until the screen was stable. */
  settleMs: number;
  /** Frames taken while settling. */
  polls: number;
  /** PNG encoding + blob write. */
  encodeMs: number;
  /** The whole step. */
  totalMs: number;
}

/** A real desktop as a retrace Environment. */
export class DesktopEnvironment implements Environment {
  readonly kind: string;
  readonly capabilities: EnvironmentCapabilities;
  /** Timings of the most recent step. */
  lastTimings?: DesktopStepTimings;
  private readonly backend: DesktopBackend;
  private readonly blobs: BlobStore;
  private readonly options: DesktopEnvironmentOptions;
  private evaluator?: DesktopEvaluator;
  private task?: Task;
  private lastFrame?: Frame;

  constructor(options: DesktopEnvironmentOptions) {
    this.backend = options.backend;
    this.blobs = options.blobs;
    this.options = options;
    this.kind = options.backend.kind;
    this.capabilities = {
      reset: true,
      snapshot: false,
      groundTruth: false,
      accessibility: !!options.accessibility && options.backend.accessibility,
      probes: true,
    };
  }

  /** The backend (for tests and the OSWorld control server). */
  get desktop(): DesktopBackend {
    return this.backend;
  }

  async reset(task: Task): Promise<Observation> {
    const { setup, evaluator } = parseDesktopTask(task);
    this.task = task;
    this.evaluator = evaluator;
    await this.backend.freshSession(setup.files);
    for (const app of setup.launch) await this.backend.launch(app);
    const settled = await settle(() => this.backend.captureFrame(), {
      ...this.options.settle,
      quietMs: Math.max(400, this.options.settle?.quietMs ?? 0),
    });
    this.lastFrame = settled.frame;
    return this.observation(settled.frame);
  }

  /**
   * A fresh session with nothing started and no evaluator: the empty desktop that an OSWorld
   * task's own set-up steps configure through the control server (adapters/environments/osworld).
   */
  async resetBlank(id: string): Promise<Observation> {
    this.task = { id, instruction: "", env: this.kind, setup: undefined, evaluator: undefined };
    this.evaluator = undefined;
    await this.backend.freshSession({});
    const settled = await settle(() => this.backend.captureFrame(), {
      ...this.options.settle,
      quietMs: Math.max(400, this.options.settle?.quietMs ?? 0),
    });
    this.lastFrame = settled.frame;
    return this.observation(settled.frame);
  }

  async step(action: Action): Promise<StepOutcome> {
    this.requireTask();
    const t0 = Date.now();
    const plan = planXdotool(action, this.options.xdotool);
    const info: Record<string, unknown> = {};
    if (plan.kind === "invalid") {
      info.noop = true;
      info.reason = plan.reason;
    } else if (plan.kind === "xdotool") {
      for (const argv of plan.argvs) {
        const r = await this.backend.exec(argv, { asUser: false });
        if (r.code !== 0)
          throw new EnvironmentError(`xdotool failed for ${formatAction(action)} (${r.code}): ${r.stderr.trim()}`);
      }
    } else if (plan.kind === "wait") {
      await new Promise((r) => setTimeout(r, plan.ms));
    }
    const t1 = Date.now();
    let frame = this.lastFrame;
    let settled = { ms: 0, polls: 0, stable: true };
    if (plan.kind !== "none" && plan.kind !== "invalid") {
      const s = await settle(() => this.backend.captureFrame(), this.options.settle);
      frame = s.frame;
      settled = s;
      if (!s.stable) logger.warn({ action: formatAction(action), ms: s.ms }, "screen still changing at the settle cap");
    }
    frame ??= await this.backend.captureFrame();
    this.lastFrame = frame;
    const t2 = Date.now();
    const observation = await this.observation(frame);
    const t3 = Date.now();
    this.lastTimings = {
      actMs: t1 - t0,
      settleMs: settled.ms,
      polls: settled.polls,
      encodeMs: t3 - t2,
      totalMs: t3 - t0,
    };
    return { observation, info: { ...info, settled: settled.stable, settleMs: settled.ms } };
  }

  async observe(): Promise<Observation> {
    this.requireTask();
    const frame = await this.backend.captureFrame();
    this.lastFrame = frame;
    return this.observation(frame);
  }

  async evaluate(): Promise<Evaluation> {
    this.requireTask();
    if (!this.evaluator)
      throw new EnvironmentError(
        "this desktop session was started blank (resetBlank) and has no evaluator: score it with the OSWorld task's own evaluator",
        { retryable: false },
      );
    return evaluateDesktop(this.backend, this.evaluator);
  }

  /** Read-only state probes: files under home (size, hash), focused window, AT-SPI digests. */
  async probe(): Promise<ProbeReport> {
    this.requireTask();
    return probeDesktop(this.backend, { accessibility: this.options.probeAccessibility });
  }

  async close(): Promise<void> {
    await this.backend.close();
  }

  private requireTask(): void {
    if (!this.task)
      throw new EnvironmentError(`${this.kind} desktop: call reset(task) before acting`, { retryable: false });
  }

  private async observation(frame: Frame): Promise<Observation> {
    const png = await frameToPng(frame);
    const screenshot = await this.blobs.put(png);
    const obs: Observation = { screenshot, width: frame.width, height: frame.height };
    if (this.capabilities.accessibility) obs.axTree = await dumpAxTree(this.backend);
    return obs;
  }
}
