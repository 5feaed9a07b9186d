/** Shared fixtures for SimDesk tests: a desk on temp blob folders, plan runners. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Action } from "../../../../packages/core/src/action.ts";
import type { AxNode } from "../../../../packages/core/src/observation.ts";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import {
  createSimDesk,
  type SimDesk,
  type SimDeskOptions,
  type SimDeskTask,
} from "../../../../packages/simdesk/src/simdesk.ts";

/** A fresh SimDesk writing to a new temp folder. */
export function makeDesk(options: Partial<SimDeskOptions> = {}): { desk: SimDesk; blobs: BlobStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "simdesk-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  return { desk: createSimDesk({ blobs, ...options }), blobs, dir };
}

/** The plan with mistake `m` in place of its step. */
export function perturbedPlan(task: SimDeskTask, m: SimDeskTask["mistakes"][number]): Action[] {
  return task.plan.flatMap((a, i) => (i === m.atStep ? m.actions : [a]));
}

/** Centre of the first accessibility node with this role and name (throws when absent). */
export function centerOf(root: AxNode, role: string, name: string): { x: number; y: number } {
  const find = (n: AxNode): AxNode | undefined =>
    n.role === role && n.name === name ? n : n.children?.map(find).find(Boolean);
  const n = find(root);
  if (!n?.bounds) throw new Error(`no ${role} "${name}" on screen`);
  const [x, y, w, h] = n.bounds;
  return { x: Math.round(x + w / 2), y: Math.round(y + h / 2) };
}
