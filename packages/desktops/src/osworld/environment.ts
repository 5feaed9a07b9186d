/**
 * An OSWorld control server (a real OSWorld VM, or retrace's local control server) as a retrace
 * `Environment`: actions become pyautogui code for /execute, screenshots come from /screenshot
 * with OSWorld's retries, `evaluate()` runs the task's metrics natively or through the Python
 * bridge. With a `provider`, reset starts a fresh VM (OSWorld's docker provider reverts that way).
 */
import type { Action } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment, EnvironmentCapabilities, StepOutcome } from "@retrace-cua/core/environment";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import { pngToFrame } from "../x11/frame.ts";
import { settle, type SettleOptions } from "../x11/settle.ts";
import type { OsworldClient } from "./client.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OsworldBridgeDesktop, OsworldPythonBridge } from "./python-bridge.ts";
import {
  evaluateOsworldBridged,
  evaluateOsworldNative,
  runOsworldSetup,
  setupProblem,
  type SetupOutcome,
} from "./runner.ts";
import type { OsworldTask } from "./tasks.ts";
import { probeOsworld, watchedPaths } from "./probe.ts";
import type { ProbeReport } from "@retrace-cua/core/probes/report";
import type { DownloadPolicy } from "./control-http.ts";

/** Options of {@link OsworldEnvironment}. */
export interface OsworldEnvironmentOptions {
  blobs: BlobStore;
  /** A client of a running control server (when no `provider`). */
  client?: OsworldClient;
  /** Starts a fresh VM per reset and stops it on close (e.g. wrapping `startOsworldVm`). */
  provider?: () => Promise<{ client: OsworldClient; stop(): Promise<void> }>;
  /** Settling after each action (polls /screenshot). @default { pollMs: 100, quietMs: 300, maxMs: 5000 } */
  settle?: SettleOptions;
  /**
   * OSWorld's own Python evaluators, for tasks whose metrics retrace does not run natively (their
   * setup and getters must be native). Without it such tasks cannot be evaluated. @default none
   */
  bridge?: OsworldPythonBridge;
  /**
   * OSWorld's own environment code through the bridge (its `SetupController`, getters and
   * `DesktopEnv.evaluate`; check with `bridge.available("full")`): `"where-needed"` runs a task's
   * set-up or evaluation there only when retrace cannot run it natively, `"always"` scores every
   * task by OSWorld's own evaluation. Needs `bridge`. @default none (native, metrics bridged)
   */
  osworldCode?: "where-needed" | "always";
  /** What OSWorld's code is told of the desktop besides the control server (ports, password). */
  bridgeDesktop?: Omit<OsworldBridgeDesktop, "url" | "cacheDir" | "screen">;
  /**
   * Where `vm_file` results are fetched for Python metrics (and OSWorld's cache folder). @default a folder under the OS
   * temp dir
   */
  evalDir?: string;
  /** VM paths `probe()` reads through /file, besides the task's `vm_file` result paths. @default [] */
  probeFiles?: string[];
  /**
   * What the task config's `download` set-up steps may fetch: public addresses only (the rule of the
   * control server's `/setup/download_file`, ./download-guard.ts); `allowLoopback` opts in to 127.0.0.1.
   * @default public addresses only
   */
  downloads?: DownloadPolicy;
}

const q = (s: string): string => JSON.stringify(s);

/** pyautogui code for one action (our own generator; strings are quoted as JSON, valid Python). */
export function actionToPyautogui(a: Action): string | undefined {
  const at = (x?: number, y?: number) =>
    x === undefined || y === undefined ? "" : `${Math.round(x)}, ${Math.round(y)}`;
  switch (a.type) {
    case "MOVE_TO":
      return `pyautogui.moveTo(${at(a.x, a.y)})`;
    case "CLICK":
      return `pyautogui.click(${[at(a.x, a.y), `button=${q(a.button ?? "left")}`, `clicks=${a.numClicks ?? 1}`].filter(Boolean).join(", ")})`;
    case "RIGHT_CLICK":
      return `pyautogui.rightClick(${at(a.x, a.y)})`;
    case "DOUBLE_CLICK":
      return `pyautogui.doubleClick(${at(a.x, a.y)})`;
    case "MOUSE_DOWN":
      return `pyautogui.mouseDown(button=${q(a.button ?? "left")})`;
    case "MOUSE_UP":
      return `pyautogui.mouseUp(button=${q(a.button ?? "left")})`;
    case "DRAG_TO":
      return `pyautogui.dragTo(${at(a.x, a.y)}, button="left")`;
    case "SCROLL": {
      const pos = at(a.x, a.y);
      const parts = [];
      if (a.dy) parts.push(`pyautogui.scroll(${a.dy}${pos ? `, ${pos}` : ""})`);
      if (a.dx) parts.push(`pyautogui.hscroll(${a.dx}${pos ? `, ${pos}` : ""})`);
      return parts.join("; ") || undefined;
    }
    case "TYPING":
      return `pyautogui.write(${q(a.text)})`;
    case "PRESS":
      return `pyautogui.press(${q(a.key)})`;
    case "KEY_DOWN":
      return `pyautogui.keyDown(${q(a.key)})`;
    case "KEY_UP":
      return `pyautogui.keyUp(${q(a.key)})`;
    case "HOTKEY":
      return `pyautogui.hotkey(${a.keys.map(q).join(", ")})`;
    case "WAIT":
    case "DONE":
    case "FAIL":
      return undefined;
  }
}

/** OSWorld (VM or local control server) as an Environment. */
export class OsworldEnvironment implements Environment {
  readonly kind = "osworld";
  readonly capabilities: EnvironmentCapabilities;
  /** What the last reset's setup ran, could not run, and what failed. */
  lastSetup?: SetupOutcome;
  private client?: OsworldClient;
  private vm?: { stop(): Promise<void> };
  private task?: OsworldTask;
  private lastAction?: Action;
  private screen?: { width: number; height: number };

  constructor(private readonly options: OsworldEnvironmentOptions) {
    if (!options.client && !options.provider)
      throw new ConfigError("OsworldEnvironment needs a client or a provider", { field: "client" });
    if (options.osworldCode && !options.bridge)
      throw new ConfigError(
        "OsworldEnvironment: osworldCode needs a bridge (an OsworldPythonBridge of an OSWorld checkout)",
        { field: "osworldCode" },
      );
    this.client = options.client;
    this.capabilities = {
      reset: !!options.provider,
      snapshot: false,
      groundTruth: false,
      accessibility: false,
      probes: true,
    };
  }

  async reset(task: Task): Promise<Observation> {
    if (task.env !== "osworld" || !("support" in task))
      throw new ConfigError(`task ${task.id} is not an OSWorld task (load it with loadOsworldTasks)`, {
        field: "task",
      });
    this.task = task as OsworldTask;
    this.lastAction = undefined;
    if (this.options.provider) {
      await this.vm?.stop();
      const vm = await this.options.provider();
      this.vm = vm;
      this.client = vm.client;
    }
    const size = await this.requireClient().screenSize();
    this.screen = size;
    if (this.ownCode() && this.task.support.unsupportedSetup.length > 0) {
      await this.options.bridge!.setup(this.task.setup, this.bridgeDesktop(), this.task.id).catch((err: Error) => {
        throw new EnvironmentError(`task ${this.task!.id}: ${err.message}`, { retryable: false });
      });
      return this.settled();
    }
    this.lastSetup = await runOsworldSetup(this.requireClient(), this.task.setup, {
      screen: size,
      ...(this.options.downloads && { downloads: this.options.downloads }),
    });
    const problem = setupProblem(this.task.id, this.lastSetup);
    if (problem) throw new EnvironmentError(problem, { retryable: false });
    return this.settled();
  }

  async step(action: Action): Promise<StepOutcome> {
    const client = this.requireClient();
    this.lastAction = action;
    const code = actionToPyautogui(action);
    const info: Record<string, unknown> = {};
    if (code) {
      const r = await client.executePython(code);
      if (r.status !== "success") {
        info.noop = true;
        info.reason = r.error ?? r.message ?? r.status;
      }
    } else if (action.type === "WAIT")
      await new Promise((r) => setTimeout(r, Math.min((action.seconds ?? 1) * 1000, 10_000)));
    return { observation: await this.settled(), info };
  }

  async observe(): Promise<Observation> {
    return this.observation(await this.screenshot());
  }

  async evaluate(end?: { terminal?: "DONE" | "FAIL" | null }): Promise<Evaluation> {
    if (!this.task) throw new EnvironmentError("osworld: call reset(task) first", { retryable: false });
    const failed = end?.terminal === "FAIL" || this.lastAction?.type === "FAIL";
    const s = this.task.support;
    if (
      this.ownCode() &&
      (this.options.osworldCode === "always" || s.unsupportedGetters.length > 0 || s.unsupportedSetup.length > 0)
    ) {
      const last = failed ? "FAIL" : end?.terminal === "DONE" || this.lastAction?.type === "DONE" ? "DONE" : undefined;
      const score = await this.options.bridge!.evaluate(
        { id: this.task.id, evaluator: this.task.evaluator },
        this.bridgeDesktop(),
        last,
      );
      return { score, detail: "OSWorld's own evaluation (DesktopEnv.evaluate through the Python bridge)" };
    }
    if (this.options.bridge && this.task.support.unsupportedMetrics.length > 0)
      return evaluateOsworldBridged(
        this.requireClient(),
        this.task,
        this.options.bridge,
        this.options.evalDir ?? join(tmpdir(), "retrace-osworld-eval", this.task.id),
        failed,
      );
    return evaluateOsworldNative(this.requireClient(), this.task, failed);
  }

  /** Read-only probes through the control server: /platform, /accessibility and /file of watched paths. */
  async probe(): Promise<ProbeReport> {
    return probeOsworld(this.requireClient(), [
      ...new Set([...watchedPaths(this.task), ...(this.options.probeFiles ?? [])]),
    ]);
  }

  async close(): Promise<void> {
    await this.vm?.stop();
    this.vm = undefined;
  }

  private ownCode(): boolean {
    return !!this.options.bridge && !!this.options.osworldCode;
  }

  private bridgeDesktop(): OsworldBridgeDesktop {
    const client = this.requireClient();
    const cdpPort = client.chromiumUrl ? Number(new URL(client.chromiumUrl).port) || undefined : undefined;
    return {
      ...(cdpPort && { chromiumPort: cdpPort }),
      ...this.options.bridgeDesktop,
      url: client.baseUrl,
      screen: this.screen,
      cacheDir: this.options.evalDir ?? join(tmpdir(), "retrace-osworld-cache"),
    };
  }

  private requireClient(): OsworldClient {
    if (!this.client) throw new EnvironmentError("osworld: no VM running (call reset first)", { retryable: false });
    return this.client;
  }

  private async screenshot(): Promise<Buffer> {
    const png = await this.requireClient().screenshot();
    if (!png) throw new EnvironmentError("OSWorld server gave no screenshot after its retries");
    return png;
  }

  private async settled(): Promise<Observation> {
    let last: Buffer | undefined;
    await settle(
      async () => {
        last = await this.screenshot();
        return pngToFrame(last);
      },
      { pollMs: 100, quietMs: 300, maxMs: 5000, ...this.options.settle },
    );
    return this.observation(last!);
  }

  private async observation(png: Buffer): Promise<Observation> {
    const frame = await pngToFrame(png);
    return { screenshot: await this.options.blobs.put(png), width: frame.width, height: frame.height };
  }
}
