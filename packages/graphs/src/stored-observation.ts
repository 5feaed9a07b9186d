/**
 * Accessibility trees never sit in checkpointed state: before an observation goes into the graph
 * state (the current observation, or inside a history entry) its `axTree` is written to the blob
 * store (`<blobs.dir>/ax`, content-addressed JSON, written once) and replaced by `axTreeRef`. The
 * graph wiring expands the state again before a node runs, so nodes, components and restoration
 * modes see plain Observations. Expanded values are cached per graph instance, so the cost per
 * step does not grow with the episode.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { AxNode, Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import { redactText } from "@retrace-cua/core/secrets";

/** An observation as kept in graph state: the accessibility tree only by reference. */
export type StoredObservation = Omit<Observation, "axTree"> & { axTreeRef?: string };
/** A history entry as kept in graph state. */
export type StoredHistoryEntry = Omit<HistoryEntry, "observation"> & { observation: StoredObservation };

const axStores = new WeakMap<BlobStore, BlobStore>();

/**
 * Content-addressed JSON store for accessibility trees, in `<blobs.dir>/ax`: the blob store's
 * `child`, so a shared store (PostgreSQL) shares the trees too and a worker that resumes another
 * worker's episode can read the trees its checkpoints name.
 */
export function axTreeStore(blobs: BlobStore): BlobStore {
  let store = axStores.get(blobs);
  if (!store) {
    store = blobs.child("ax", ".json");
    axStores.set(blobs, store);
  }
  return store;
}

/**
 * Bring every accessibility tree that `state` (any JSON: checkpointed values, pending writes) names
 * into the local store, so the synchronous expansion finds it. A worker resuming another worker's
 * episode has the checkpoint but not the trees; a shared store's `get` fetches and caches them.
 */
export async function prefetchAxTrees(blobs: BlobStore, state: unknown): Promise<number> {
  const store = axTreeStore(blobs);
  let fetched = 0;
  for (const m of new Set(JSON.stringify(state ?? null).match(/"axTreeRef":"[0-9a-f]{64}"/g) ?? [])) {
    const ref = m.slice(-65, -1);
    try {
      store.getSync(ref);
    } catch {
      await store.get(ref);
      fetched++;
    }
  }
  return fetched;
}

/** Per-graph-instance caches of expanded values. */
export class ObservationCodec {
  private readonly trees = new Map<string, AxNode>();
  private readonly stored = new WeakMap<Observation, StoredObservation>();
  private readonly expanded = new WeakMap<object, Observation>();
  private readonly entries = new WeakMap<StoredHistoryEntry, HistoryEntry>();

  constructor(private readonly blobs: BlobStore) {}

  /** The observation without its tree (the tree goes to the blob store). */
  store(obs: Observation): StoredObservation;
  store(obs: Observation | null): StoredObservation | null;
  store(obs: Observation | null): StoredObservation | null {
    if (!obs || obs.axTree === undefined) return obs;
    const hit = this.stored.get(obs);
    if (hit) return hit;
    const { axTree, ...rest } = obs;
    // Redacted like every file retrace writes: a key typed into a page shows in its tree's text.
    const text = JSON.stringify(axTree);
    const clean = redactText(text);
    const ref = axTreeStore(this.blobs).putSync(Buffer.from(clean));
    this.trees.set(ref, clean === text ? axTree : (JSON.parse(clean) as typeof axTree));
    const out: StoredObservation = { ...rest, axTreeRef: ref };
    this.stored.set(obs, out);
    this.expanded.set(out, obs);
    return out;
  }

  /** A history entry with its observation stored. */
  storeEntry(entry: HistoryEntry): StoredHistoryEntry {
    const out = { ...entry, observation: this.store(entry.observation) };
    this.entries.set(out, entry);
    return out;
  }

  /** The full observation again. */
  expand(obs: StoredObservation): Observation;
  expand(obs: StoredObservation | null): Observation | null;
  expand(obs: StoredObservation | null): Observation | null {
    if (!obs || obs.axTreeRef === undefined) return obs as Observation | null;
    const hit = this.expanded.get(obs);
    if (hit) return hit;
    const { axTreeRef, ...rest } = obs;
    let tree = this.trees.get(axTreeRef);
    if (!tree) {
      tree = JSON.parse(axTreeStore(this.blobs).getSync(axTreeRef).toString("utf8")) as AxNode;
      this.trees.set(axTreeRef, tree);
    }
    const out: Observation = { ...rest, axTree: tree };
    this.expanded.set(obs, out);
    return out;
  }

  /** The full history entry again (cached: one expansion per entry per graph instance). */
  expandEntry(entry: StoredHistoryEntry): HistoryEntry {
    let out = this.entries.get(entry);
    if (!out) {
      out =
        entry.observation.axTreeRef === undefined
          ? (entry as HistoryEntry)
          : { ...entry, observation: this.expand(entry.observation) };
      this.entries.set(entry, out);
    }
    return out;
  }
}

const codecs = new WeakMap<object, ObservationCodec>();

/** The codec of one graph instance (keyed by its runtime context). */
export function codecFor(ctx: { components: { blobs: BlobStore } }): ObservationCodec {
  let c = codecs.get(ctx);
  if (!c) {
    c = new ObservationCodec(ctx.components.blobs);
    codecs.set(ctx, c);
  }
  return c;
}
