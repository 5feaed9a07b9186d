/** The SimDesk task suite. */
import { ConfigError } from "@retrace-cua/core/errors";
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { filesTasks } from "./files-tasks.ts";
import { editorTasks } from "./editor-tasks.ts";
import { settingsTasks } from "./settings-tasks.ts";
import { sheetTasks } from "./sheet-tasks.ts";
import { crossTasks } from "./cross-tasks.ts";

let built: readonly SimDeskTask[] | undefined;

/**
 * Every SimDesk task, in a stable order, built on the first call (each plan is recorded by running the engine: ~100
 * ms).
 */
export function simDeskTasks(): readonly SimDeskTask[] {
  return (built ??= Object.freeze([
    ...filesTasks(),
    ...editorTasks(),
    ...settingsTasks(),
    ...sheetTasks(),
    ...crossTasks(),
  ]));
}

/**
 * A read-only array that is `build()`'s result, built on first access (any index, `length`,
 * iteration, an array method), so that importing the module costs nothing.
 */
function lazyArray<T>(build: () => readonly T[]): readonly T[] {
  const target: T[] = [];
  const real = (): readonly T[] => build();
  return new Proxy(target, {
    get(_, key) {
      const a = real();
      const v = Reflect.get(a, key, a) as unknown;
      return typeof v === "function" ? (v as (...args: unknown[]) => unknown).bind(a) : v;
    },
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor(_, key) {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // `length` is non-configurable on the (empty) target: report it as the target's kind of property.
      return d && key === "length" ? { ...d, writable: true } : d && { ...d, configurable: true };
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  }) as readonly T[];
}

/** Every SimDesk task, in a stable order (built on first access: see {@link simDeskTasks}). */
export const SIMDESK_TASKS: readonly SimDeskTask[] = lazyArray(simDeskTasks);

/** A task by id; a ConfigError lists close ids when it is unknown. */
export function getSimDeskTask(id: string): SimDeskTask {
  const t = simDeskTasks().find((x) => x.id === id);
  if (t) return t;
  const words = id
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const scored = simDeskTasks()
    .map((x) => ({ id: x.id, score: words.filter((w) => x.id.includes(w)).length - distance(x.id, id) / 100 }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .map((x) => x.id);
  throw new ConfigError(
    `unknown SimDesk task "${id}"; close matches: ${scored.join(", ")} (run \`retrace tasks\` for the full list)`,
    { field: "task" },
  );
}

function distance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}
