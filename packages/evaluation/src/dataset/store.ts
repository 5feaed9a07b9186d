/**
 * Saving and loading a recovery evaluation set as a versioned folder:
 *
 *   <dir>/dataset.json    manifest: schema, content version, counts per filtering stage, config
 *   <dir>/tasks.json      the tasks the samples refer to (JSON-serialisable Task objects)
 *   <dir>/samples.jsonl   one RecoverySample per line
 *   <dir>/blobs/          screenshots (PNG, content-addressed) every sample references
 *
 * Files are written to a temporary name and renamed, so an interrupted save leaves the old
 * dataset intact.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { sha256Hex } from "@retrace-cua/core/hash";
import type { JsonValue } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import type { DatasetBuildResult } from "./build.ts";
import {
  RECOVERY_DATASET_SCHEMA,
  type RecoveryDataset,
  type RecoveryDatasetManifest,
  type RecoverySample,
} from "./types.ts";
import { redactText } from "@retrace-cua/core/secrets";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";

/** Options of {@link saveRecoveryDataset}. */
export interface SaveDatasetOptions {
  dir: string;
  build: DatasetBuildResult;
  tasks: readonly Task[];
  /** Where the screenshots are now; copied into `<dir>/blobs` unless that is the same folder. */
  blobs: BlobStore;
  /** "simulated: ..." label of the policies, "" for real ones. @default "" */
  simulatedLabel?: string;
  /** Extra settings to record (environment, policy names). */
  config?: Record<string, JsonValue>;
}

/** Every blob reference in a sample. */
export function sampleBlobRefs(s: RecoverySample): string[] {
  const refs = [
    s.target.observation.screenshot,
    s.error.observation.screenshot,
    s.trajectory.final.observation.screenshot,
  ];
  for (const st of [...s.trajectory.steps, ...s.perturbation]) refs.push(st.observation.screenshot);
  if (s.masks?.state) refs.push(s.masks.state);
  if (s.masks?.task) refs.push(s.masks.task);
  for (const c of s.masks?.captures ?? []) refs.push(c);
  return refs;
}

/** Write the dataset folder and return its manifest. */
export function saveRecoveryDataset(options: SaveDatasetOptions): RecoveryDatasetManifest {
  const dir = prepareOutDir(options.dir);
  const blobDir = join(dir, "blobs");
  const target = resolve(options.blobs.dir) === blobDir ? options.blobs : new BlobStore({ dir: blobDir });
  if (target !== options.blobs) {
    for (const s of options.build.samples) for (const ref of sampleBlobRefs(s)) options.blobs.copyTo(ref, target);
  }
  const usedTasks = new Set(options.build.samples.map((s) => s.taskId));
  const tasks = options.tasks.filter((t) => usedTasks.has(t.id));
  const samplesText =
    options.build.samples.map((s) => JSON.stringify(s)).join("\n") + (options.build.samples.length ? "\n" : "");
  const { trajectories } = options.build;
  const manifest: RecoveryDatasetManifest = {
    schema: RECOVERY_DATASET_SCHEMA,
    version: sha256Hex(samplesText).slice(0, 16),
    createdAt: new Date().toISOString(),
    simulatedLabel: options.simulatedLabel ?? "",
    simulated: options.build.simulated,
    seed: options.build.settings.seed,
    config: { ...(options.build.settings as unknown as Record<string, JsonValue>), ...(options.config ?? {}) },
    trajectories,
    retention: trajectories.wellFormed === 0 ? 0 : trajectories.transitionConsistent / trajectories.wellFormed,
    stages: options.build.stages,
    samples: options.build.samples.length,
    files: { tasks: "tasks.json", samples: "samples.jsonl", blobs: "blobs" },
  };
  writeAtomic(join(dir, "samples.jsonl"), samplesText);
  writeAtomic(join(dir, "tasks.json"), JSON.stringify(tasks, null, 2) + "\n");
  writeAtomic(join(dir, "dataset.json"), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

/** Load a dataset folder; a missing or foreign folder throws a ConfigError saying what to do. */
export function loadRecoveryDataset(dirInput: string): RecoveryDataset {
  const dir = resolve(dirInput);
  const manifestPath = join(dir, "dataset.json");
  if (!existsSync(manifestPath))
    throw new ConfigError(
      `no recovery dataset in ${dir} (dataset.json missing): build one with \`retrace dataset build --out ${dirInput}\``,
      { field: "dataset" },
    );
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as RecoveryDatasetManifest;
  if (manifest.schema !== RECOVERY_DATASET_SCHEMA)
    throw new ConfigError(
      `${manifestPath} has schema "${manifest.schema}", expected "${RECOVERY_DATASET_SCHEMA}": rebuild the dataset`,
      { field: "dataset" },
    );
  const tasks = new Map(
    (JSON.parse(readFileSync(join(dir, manifest.files.tasks), "utf8")) as Task[]).map((t) => [t.id, t]),
  );
  const samples = readFileSync(join(dir, manifest.files.samples), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as RecoverySample;
      } catch (cause) {
        throw new ConfigError(
          `${join(dir, manifest.files.samples)} line ${i + 1} is not JSON: the file is damaged, rebuild the dataset`,
          { cause, field: "dataset" },
        );
      }
    });
  for (const s of samples)
    if (!tasks.has(s.taskId))
      throw new ConfigError(
        `sample ${s.id} refers to task "${s.taskId}", which is not in tasks.json: rebuild the dataset`,
        { field: "dataset" },
      );
  return { dir, manifest, tasks, samples };
}

function writeAtomic(file: string, text: string): void {
  writeTextAtomic(file, text);
}
