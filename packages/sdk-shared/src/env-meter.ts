/**
 * Environment time and the latest observation of one environment, shared by retrace's SDK
 * computers (`RetraceComputer`, `retraceComputerTool`) and the SDK wrappers. The computer records
 * the time of each action it executes and the observation after it; the wrapper hands the
 * detector that observation instead of observing again (one screenshot fewer per agent step),
 * and reports the summed time as `accounting.envMs`, as the graph does (step and observation
 * time; recovery steps included). A computer of the user's own that calls `env.step` directly
 * records nothing: the wrapper then observes once per agent step, as before.
 */
import type { Action } from "@retrace-cua/core/action";
import type { Environment, StepOutcome } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { checkedEnvironment } from "@retrace-cua/core/runtime/user-results";
import { screenshotBase64 } from "./screenshot.ts";

/** Time and latest observation of one environment. */
export class EnvMeter {
  /** Milliseconds spent in the environment's step, observe, restore and snapshot calls made through this meter. */
  ms = 0;
  private latest: Observation | undefined;
  /** The verdict the next action waits for (overlapped detection): true = execute it, false = drop it. */
  private hold: Promise<boolean> | undefined;
  /**
   * True once a computer that honours holds ({@link admit}) acted through this meter: only then may detection overlap.
   */
  holding = false;
  /**
   * A screenshot of the user's environment that retrace's computer refused (0 bytes, not an image):
   * the SDKs catch a computer's error and carry on (the Agents SDK sends an empty screenshot, the AI
   * SDK a tool error), so the recovery wrappers rethrow it at the next model call and at finish().
   */
  refused: Error | undefined;
  /** Called before each admitted action; throws to refuse it (a recovery whose hook the SDK never called). */
  onAction: (() => void) | undefined;

  private readonly env: Environment;

  constructor(env: Environment) {
    this.env = checkedEnvironment(env); // the user's environment: its results are checked (packages/core/src/runtime/user-results.ts)
  }

  /** Time `call` as environment time. */
  async time<T>(call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await call();
    } finally {
      this.ms += performance.now() - started;
    }
  }

  /** Execute `action`; its observation becomes the latest. */
  async step(action: Action): Promise<StepOutcome> {
    this.latest = undefined;
    const out = await this.time(() => this.env.step(action));
    this.latest = out.observation;
    return out;
  }

  /** Observe now; the observation becomes the latest. */
  async observe(): Promise<Observation> {
    this.latest = undefined;
    this.latest = await this.time(() => this.env.observe());
    return this.latest;
  }

  /**
   * The observation after the last recorded action, once (the next call observes unless another action was recorded).
   */
  async current(): Promise<Observation> {
    const latest = this.latest;
    this.latest = undefined;
    return latest ?? this.observe();
  }

  /**
   * Called by retrace's computers before they execute a model action: runs `onAction`, then waits
   * for the verdict on the previous step when one is pending. False: the action must not run
   * (the previous step was judged off track and recovery has restored an earlier state).
   */
  async admit(): Promise<boolean> {
    this.holding = true;
    this.onAction?.();
    return this.hold ? this.hold : true;
  }

  /** Hold every action until `verdict` resolves (it must not reject): true lets them run, false drops them. */
  holdUntil(verdict: Promise<boolean>): void {
    this.hold = verdict;
  }

  /**
   * The observation's screenshot as base64 for the SDK's model; a refused one is kept in {@link refused} and thrown.
   */
  async screenshotBase64(blobs: BlobReader, observation: Observation, fn: string): Promise<string> {
    try {
      return await screenshotBase64(blobs, observation, fn);
    } catch (err) {
      this.refused ??= err as Error;
      throw err;
    }
  }

  /** Throw the refused screenshot's error, once (the wrappers call this before each model call and in finish()). */
  throwRefused(): void {
    const err = this.refused;
    this.refused = undefined;
    if (err) throw err;
  }

  /** Stop holding actions (the wrapper has taken in the verdict). */
  release(): void {
    this.hold = undefined;
  }

  /** Forget the latest observation (the environment changed outside this meter, e.g. a restore). */
  invalidate(): void {
    this.latest = undefined;
  }
}

const METERS = new WeakMap<Environment, EnvMeter>();

/** The meter of `env` (one per environment object). */
export function envMeter(env: Environment): EnvMeter {
  let m = METERS.get(env);
  if (!m) METERS.set(env, (m = new EnvMeter(env)));
  return m;
}

const TIMED = new Set<PropertyKey>(["step", "observe", "restore", "snapshot", "reset"]);

/**
 * `env` with its step, observe, restore, snapshot and reset calls timed into its meter (what the
 * recovery sub-agent and the wrapper itself call); any other member is the environment's own.
 * A timed call also forgets the latest observation, since the state may have changed.
 */
export function meteredEnvironment(env: Environment): Environment {
  const meter = envMeter(env);
  return new Proxy(checkedEnvironment(env), {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      if (!TIMED.has(key)) return (value as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        meter.invalidate();
        return meter.time(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      };
    },
  });
}
