/** SimDesk: the in-process simulated desktop (Environment + SimGroundTruth). */
import type { Action } from "@retrace-cua/core/action";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentSnapshot,
  StepOutcome,
} from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import { sha256Hex, stableStringify } from "@retrace-cua/core/hash";
import type { Observation } from "@retrace-cua/core/observation";
import type { Rng } from "@retrace-cua/core/rng";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import type { RestorativeStep, SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";
import type { DeskState, NoiseState } from "./types.ts";
import { applyAction, type ActionInfo } from "./engine.ts";
import { initialState } from "./setup.ts";
import { evaluateState, type SimDeskEvaluator } from "./evaluate.ts";
import { buildUi, hitNode, uiContext } from "./ui.ts";
import { pngRenderFn, renderSvg, svgToPng } from "./render.ts";
import { toAxTree } from "./ax.ts";
import { fullStateHash, semanticHash, visibleHashOf } from "./hashing.ts";
import { nextRestorativeStep } from "./restore.ts";
import { plausibleWrong } from "./wrong-actions.ts";
import { probeDeskState } from "./probe.ts";
import type { ProbeReport } from "@retrace-cua/core/probes/report";

/** Options for {@link createSimDesk}. */
export interface SimDeskOptions {
  /** Where screenshots (PNG) go. */
  blobs: BlobStore;
  /** Where state snapshots (JSON, keyed by stateId) go. @default a "simdesk-states" folder beside `blobs.dir` */
  stateStore?: BlobStore;
  /** Screen width in pixels (at least 1024). @default 1280 */
  width?: number;
  /** Screen height in pixels (at least 700). @default 800 */
  height?: number;
  /** Seeded noise: notification pop-ups and a ticking taskbar clock. @default off */
  noise?: { seed: number; popups?: boolean; clock?: boolean };
  /** Put an accessibility tree on observations. @default true */
  accessibility?: boolean;
}

const SVG_CACHE_MAX = 256;

/** The simulated desktop. Create with {@link createSimDesk}. */
export class SimDesk implements Environment, SimGroundTruth {
  readonly kind = "simdesk";
  readonly capabilities: EnvironmentCapabilities;
  readonly width: number;
  readonly height: number;
  readonly blobs: BlobStore;
  readonly stateStore: BlobStore;
  private readonly noise: Omit<NoiseState, "tick" | "popup"> | null;
  private state: DeskState;
  private task?: Task;
  private initial?: DeskState;
  private readonly states = new Map<string, DeskState>();
  private readonly pngBySvg = new Map<string, string>();
  private readonly refCache = new Map<string, string[]>();
  private readonly semCache = new Map<string, string>();

  constructor(options: SimDeskOptions) {
    this.width = options.width ?? 1280;
    this.height = options.height ?? 800;
    if (
      !Number.isInteger(this.width) ||
      !Number.isInteger(this.height) ||
      this.width < 1024 ||
      this.height < 700 ||
      this.width > 7680 ||
      this.height > 4320
    )
      throw new ConfigError(
        `simdesk: size ${this.width}x${this.height} is not supported; use integers from 1024x700 up to 7680x4320 (e.g. 1280x800)`,
        { field: "width" },
      );
    this.blobs = options.blobs;
    this.stateStore = options.stateStore ?? options.blobs.sibling("simdesk-states", ".json");
    this.noise = options.noise
      ? { seed: options.noise.seed, popups: options.noise.popups ?? true, clock: options.noise.clock ?? true }
      : null;
    this.capabilities = {
      reset: true,
      snapshot: true,
      groundTruth: true,
      accessibility: options.accessibility ?? true,
      probes: true,
    };
    this.state = initialState({}, this.noise);
  }

  /** The current state (a copy). */
  getState(): DeskState {
    return structuredClone(this.state);
  }

  /** Replace the current state (ground-truth use: tests, oracles). */
  setState(s: DeskState): void {
    this.state = structuredClone(s);
  }

  async reset(task: Task): Promise<Observation> {
    if (task.env !== "simdesk")
      throw new ConfigError(`task ${task.id} is for env "${task.env}", not "simdesk"`, { field: "env" });
    this.task = task;
    this.state = initialState(task.setup, this.noise);
    this.initial = initialState(task.setup, null);
    return this.observe();
  }

  /** Apply an action without rendering (fast path for plans and searches). */
  apply(action: Action): ActionInfo {
    const r = applyAction(this.state, action, this.width, this.height);
    this.state = r.state;
    return r.info;
  }

  async step(action: Action): Promise<StepOutcome> {
    const info = this.apply(action);
    return { observation: await this.observe(), info: { ...info } };
  }

  async observe(): Promise<Observation> {
    const ui = buildUi(this.state, this.width, this.height);
    const hover = hitNode(ui, this.state.pointer.x, this.state.pointer.y);
    const svg = renderSvg(ui, uiContext(this.state, this.width, this.height), hover?.id);
    const key = sha256Hex(svg);
    let ref = this.pngBySvg.get(key);
    if (!ref) {
      // Another worker of this run may have rendered this screen already (shared blob store).
      ref = await this.blobs.derived(await pngRenderFn(), key);
      if (!ref) {
        ref = await this.blobs.putRendered(await svgToPng(svg), svg);
        await this.blobs.remember(await pngRenderFn(), key, ref);
      }
      if (this.pngBySvg.size >= SVG_CACHE_MAX) this.pngBySvg.delete(this.pngBySvg.keys().next().value!);
      this.pngBySvg.set(key, ref);
    }
    const obs: Observation = {
      screenshot: ref,
      width: this.width,
      height: this.height,
      stateId: this.saveState(this.state),
    };
    if (this.capabilities.accessibility) obs.axTree = toAxTree(ui);
    return obs;
  }

  async evaluate(): Promise<Evaluation> {
    if (!this.task || !this.initial) throw new ConfigError("simdesk: evaluate() called before reset(task)");
    return evaluateState(this.task.evaluator as SimDeskEvaluator, this.state, this.initial);
  }

  async close(): Promise<void> {
    this.states.clear();
    this.pngBySvg.clear();
    this.semCache.clear();
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    return { kind: "simdesk", data: structuredClone(this.state) };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    if (snapshot.kind !== "simdesk") throw new ConfigError(`simdesk: cannot restore a "${snapshot.kind}" snapshot`);
    const data = snapshot.data as Partial<DeskState> | null;
    if (!data || data.v !== 1 || typeof data.fs !== "object" || !Array.isArray(data.windows))
      throw new ConfigError("simdesk: snapshot data is not a SimDesk state (expected { v: 1, fs, windows, ... })");
    this.state = structuredClone(snapshot.data as DeskState);
    return this.observe();
  }

  /** Read-only probes of the hidden state (files, settings, Trash, clipboard, windows, accessibility digests). */
  async probe(): Promise<ProbeReport> {
    return probeDeskState(this.state, this.width, this.height);
  }

  /** Full-state hash (hidden state included; pointer and noise excluded). */
  stateHash(): string {
    return fullStateHash(this.state);
  }

  /** Hash of what is on screen (hover included, noise excluded). */
  visibleHash(): string {
    return visibleHashOf(buildUi(this.state, this.width, this.height), this.state.pointer);
  }

  /** Store a state and return its id (sha256 of its canonical JSON). */
  saveState(s: DeskState): string {
    const json = stableStringify(s);
    const id = sha256Hex(json);
    if (!this.states.has(id)) {
      this.stateStore.putSync(Buffer.from(json));
      this.states.set(id, JSON.parse(json) as DeskState);
    }
    return id;
  }

  /**
   * Fetch the state snapshots the checkpointed `state` names that this machine lacks (a shared
   * store's `get` caches them locally). Any 64-hex value may be a state id (observations, step
   * records, recovery targets, policy memos), so each one missing here is asked for; the ones that
   * are not stored states (screen hashes) are simply not found.
   */
  async prepareResume(state: unknown): Promise<void> {
    for (const m of new Set(JSON.stringify(state ?? null).match(/"[0-9a-f]{64}"/g) ?? [])) {
      const id = m.slice(1, -1);
      if (this.states.has(id)) continue;
      try {
        this.stateStore.getSync(id);
      } catch {
        await this.stateStore.get(id).catch(() => undefined);
      }
    }
  }

  /** Load a stored state by id (from memory or the state store). */
  loadState(stateId: string): DeskState {
    const cached = this.states.get(stateId);
    if (cached) return structuredClone(cached);
    const s = JSON.parse(this.stateStore.getSync(stateId).toString("utf8")) as DeskState;
    this.states.set(stateId, s);
    return structuredClone(s);
  }

  /** The id of the current state (stored). */
  currentStateId(): string {
    return this.saveState(this.state);
  }

  // ---- SimGroundTruth ----

  semanticHash(stateId: string): string {
    let h = this.semCache.get(stateId);
    if (h === undefined) {
      h = semanticHash(this.loadState(stateId));
      this.semCache.set(stateId, h);
    }
    return h;
  }

  referenceStates(task: SimDeskTask): string[] {
    const key = `${task.id}:${sha256Hex(stableStringify([task.setup, task.plan]))}`;
    const hit = this.refCache.get(key);
    if (hit) return hit;
    let s = initialState(task.setup, null);
    const ids = [this.saveState(s)];
    for (const a of task.plan) {
      s = applyAction(s, a, this.width, this.height).state;
      ids.push(this.saveState(s));
    }
    this.refCache.set(key, ids);
    return ids;
  }

  planIndexOf(task: SimDeskTask, stateId: string): number {
    const h = this.semanticHash(stateId);
    const refs = this.referenceStates(task);
    for (let k = refs.length - 1; k >= 0; k--) if (this.semanticHash(refs[k]) === h) return k;
    return -1;
  }

  nextRestorativeAction(targetStateId: string): RestorativeStep | null | "unreachable" {
    return nextRestorativeStep(this.state, this.loadState(targetStateId), this.width, this.height);
  }

  plausibleWrongActions(rng: Rng): Action[] {
    let next: Action | undefined;
    const task = this.task as SimDeskTask | undefined;
    if (task?.plan) {
      const k = this.planIndexOf(task, this.currentStateId());
      if (k >= 0) next = task.plan[k];
    }
    return plausibleWrong(this.state, this.width, this.height, rng, next);
  }
}

/** Create a SimDesk. */
export function createSimDesk(options: SimDeskOptions): SimDesk {
  return new SimDesk(options);
}
