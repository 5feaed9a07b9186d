/**
 * The experiment runtime on OSWorld: tasks from an OSWorld `evaluation_examples` folder
 * (`env.tasksDir`, default ../shared/osworld-tasks), episodes against an OSWorld control server
 * (`env.url`: a VM from the docker provider, or retrace's local control server), scored by the
 * evaluators retrace runs natively. Tasks whose setup steps, getters or metrics only OSWorld's own
 * Python code can run are skipped with the reason and counted in the summary, never scored 0.
 * Agents come from the registry; there is no ground truth, so `sim` detectors and selectors are
 * the heuristic stand-ins of real desktops, and a sim recovery sub-agent is refused.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@retrace-cua/core/errors";
import type { Task } from "@retrace-cua/core/task";
import { OsworldClient } from "@retrace-cua/desktops/osworld/client";
import { OsworldEnvironment } from "@retrace-cua/desktops/osworld/environment";
import { parseOsworldTask, type OsworldTask } from "@retrace-cua/desktops/osworld/tasks";
import { OsworldPythonBridge } from "@retrace-cua/desktops/osworld/python-bridge";
import { checkConfigAgents } from "../config/agents.ts";
import type { EnvSpec } from "../config/schema.ts";
import type { ExperimentRuntime, SkippedTask } from "../runner/runtime.ts";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import { writeOsworldFolder } from "./osworld-output.ts";
import { registryAgents } from "./simdesk.ts";

/** The shared OSWorld task folder of this project. */
export const DEFAULT_OSWORLD_TASKS = resolve(fileURLToPath(new URL("../../../shared/osworld-tasks", import.meta.url)));

/**
 * Tasks of a folder, split into runnable ones and skipped ones (with the reason). `python` says
 * whether OSWorld's Python evaluators are importable (then tasks whose setup and getters are native
 * but whose metrics are not become runnable, scored through the bridge), or why not.
 */
export function osworldTaskSplit(
  dir: string,
  python: { ok: boolean; reason?: string; full?: boolean } = { ok: false },
): { tasks: OsworldTask[]; skipped: SkippedTask[] } {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (err) {
    throw new ConfigError(
      `config.env.tasksDir: cannot read ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give an OSWorld evaluation_examples folder`,
      { field: "env.tasksDir" },
    );
  }
  const files: Array<{ file: string; domain: string }> = [];
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory())
      for (const f of readdirSync(p).sort()) f.endsWith(".json") && files.push({ file: join(p, f), domain: name });
    else if (name.endsWith(".json")) files.push({ file: p, domain: basename(dir) });
  }
  const tasks: OsworldTask[] = [];
  const skipped: SkippedTask[] = [];
  for (const { file, domain } of files) {
    const t = parseOsworldTask(readFileSync(file, "utf8"), file, domain);
    if ("reason" in t) {
      skipped.push({ task: basename(file, ".json"), reason: `task file rejected: ${t.reason}` });
      continue;
    }
    const s = t.support;
    const onlyMetrics = !s.unsupportedSetup.length && !s.unsupportedGetters.length;
    if (s.fullyNative || (onlyMetrics && python.ok) || (python.ok && python.full)) tasks.push(t);
    else {
      const needs = [
        ...s.unsupportedSetup.map((x) => `setup ${x}`),
        ...s.unsupportedGetters.map((x) => `getter ${x}`),
        ...s.unsupportedMetrics.map((x) => `metric ${x}`),
      ];
      const why = python.reason
        ? ` (${python.reason})`
        : onlyMetrics
          ? " (set env.osworldPath to an OSWorld checkout to run its metrics through the Python bridge)"
          : python.ok
            ? " (OSWorld's metrics import, its environment code does not: install OSWorld's full requirements)"
            : " (set env.osworldPath to an OSWorld checkout to run them through the Python bridge)";
      skipped.push({ task: t.id, reason: `needs OSWorld's Python code for ${[...new Set(needs)].join(", ")}${why}` });
    }
  }
  return { tasks, skipped };
}

/** The OSWorld runtime for an env spec. */
export function createOsworldRuntime(
  env: Pick<EnvSpec, "tasksDir" | "url" | "osworldPath" | "python" | "osworldEvaluator" | "chromiumPort">,
): ExperimentRuntime {
  const dir = resolve(env.tasksDir ?? DEFAULT_OSWORLD_TASKS);
  const bridge = env.osworldPath
    ? new OsworldPythonBridge({ osworldDir: resolve(env.osworldPath), python: env.python })
    : undefined;
  let python: { ok: boolean; reason?: string; full?: boolean } | undefined;
  // Metrics first (the common case); then whether OSWorld's environment code imports too.
  const pythonOk = (): { ok: boolean; reason?: string; full?: boolean } => {
    if (python) return python;
    if (!bridge) return (python = { ok: false });
    const metrics = bridge.availableSync();
    return (python = metrics.ok ? { ...metrics, full: bridge.availableSync("full").ok } : metrics);
  };
  let split: ReturnType<typeof osworldTaskSplit> | undefined;
  const load = () => (split ??= osworldTaskSplit(dir, pythonOk()));
  return {
    ...registryAgents("osworld"),
    checkConfig(config) {
      if (!config.env.url)
        throw new ConfigError("config.env.url: give the OSWorld control server's URL (e.g. http://127.0.0.1:5000)", {
          field: "env.url",
        });
      if (config.env.osworldEvaluator === "osworld" && !config.env.osworldPath)
        throw new ConfigError(
          'config.env.osworldEvaluator: "osworld" needs env.osworldPath (an OSWorld checkout with its requirements)',
          { field: "env.osworldEvaluator" },
        );
      checkConfigAgents(config, "osworld");
    },
    tasks: (): Task[] => load().tasks,
    skipped: () => load().skipped,
    async createEnv(spec, blobs) {
      if (!spec.url)
        throw new ConfigError("config.env.url: give the OSWorld control server's URL", { field: "env.url" });
      const p = pythonOk();
      if (env.osworldEvaluator === "osworld" && !p.full)
        throw new ConfigError(
          `config.env.osworldEvaluator: OSWorld's own evaluation needs its code importable: ${bridge?.availableSync("full").reason ?? "set env.osworldPath"}`,
          { field: "env.osworldEvaluator" },
        );
      return new OsworldEnvironment({
        blobs,
        client: new OsworldClient({ baseUrl: spec.url }),
        ...(bridge && p.ok && { bridge }),
        ...(bridge &&
          p.full && {
            osworldCode: env.osworldEvaluator === "osworld" ? "always" : "where-needed",
            bridgeDesktop: { chromiumPort: env.chromiumPort },
          }),
      });
    },
    // Batch episodes: no per-superstep checkpoint copies unless `--checkpoint` asked for durability.
    runEpisode: (input) => runEpisode({ ...input, checkpointer: input.checkpointer ?? false }),
    writeEpisode: writeOsworldFolder,
  };
}
