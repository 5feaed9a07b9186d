/** The SimDesk task suite. */
import { ConfigError } from "../../../../src/errors.ts";
import type { SimDeskTask } from "../ground-truth.ts";
import { FILES_TASKS } from "./files-tasks.ts";
import { EDITOR_TASKS } from "./editor-tasks.ts";
import { SETTINGS_TASKS } from "./settings-tasks.ts";
import { SHEET_TASKS } from "./sheet-tasks.ts";
import { CROSS_TASKS } from "./cross-tasks.ts";

/** Every SimDesk task, in a stable order. */
export const SIMDESK_TASKS: readonly SimDeskTask[] = [...FILES_TASKS, ...EDITOR_TASKS, ...SETTINGS_TASKS, ...SHEET_TASKS, ...CROSS_TASKS];

/** A task by id; a ConfigError lists close ids when it is unknown. */
export function getSimDeskTask(id: string): SimDeskTask {
  const t = SIMDESK_TASKS.find((x) => x.id === id);
  if (t) return t;
  const words = id.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const scored = SIMDESK_TASKS.map((x) => ({ id: x.id, score: words.filter((w) => x.id.includes(w)).length - distance(x.id, id) / 100 }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .map((x) => x.id);
  throw new ConfigError(`unknown SimDesk task "${id}"; close matches: ${scored.join(", ")} (run \`retrace tasks\` for the full list)`, { field: "task" });
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
