/**
 * OSWorld without a VM: which shared OSWorld tasks run fully offline on a retrace container
 * desktop, and for those, each task's own set-up run through the control API and then its
 * evaluator on the resulting state. Used by `retrace osworld-check` and `retrace tasks --env docker`.
 * A task is scored 0 or 1; a set-up that cannot be done is reported as such (never scored), and an
 * exception is a crash of this runtime.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { describeError } from "@retrace-cua/core/errors";
import { OsworldClient } from "@retrace-cua/desktops/osworld/client";
import { startOsworldControlServer } from "@retrace-cua/desktops/osworld/control-server";
import { OsworldPythonBridge } from "@retrace-cua/desktops/osworld/python-bridge";
import {
  evaluateOsworldBridged,
  evaluateOsworldNative,
  runOsworldSetup,
  setupProblem,
} from "@retrace-cua/desktops/osworld/runner";
import { loadOsworldTasks, offlineBlockers, type OsworldTask } from "@retrace-cua/desktops/osworld/tasks";
import { ConfigError } from "@retrace-cua/core/errors";
import {
  APPS_IMAGE_PROGRAMS,
  DESKTOP_IMAGE_PROGRAMS,
  knownImagePrograms,
  probeImagePrograms,
} from "@retrace-cua/desktops/docker/image-programs";
import type { DesktopEnvironment } from "@retrace-cua/desktops/x11/desktop-environment";
import { createRng } from "@retrace-cua/core/rng";

/** One task's line of the offline listing. */
export interface OfflineRow {
  id: string;
  domain: string;
  offline: boolean;
  /** Why not (empty when offline). */
  blockers: string[];
}

/**
 * Every task of `dir` with whether it runs offline on a container desktop whose image has
 * `programs` (default: the default image's), and why not.
 */
export async function offlineListing(
  dir: string,
  python = false,
  programs: ReadonlySet<string> = DESKTOP_IMAGE_PROGRAMS,
): Promise<OfflineRow[]> {
  const report = await loadOsworldTasks(dir);
  return report.tasks.map((t) => {
    const blockers = offlineBlockers(t, { programs, python });
    return { id: t.id, domain: t.domain, offline: blockers.length === 0, blockers };
  });
}

/**
 * The programs of a desktop image: known for retrace's own images, otherwise asked of a container
 * of that image (then `docker` is needed).
 */
export async function desktopImagePrograms(
  image: string,
  docker?: () => Promise<Parameters<typeof probeImagePrograms>[0] | undefined>,
): Promise<ReadonlySet<string>> {
  const known = knownImagePrograms(image);
  if (known) return known;
  const d = await docker?.();
  if (!d)
    throw new ConfigError(
      `image "${image}" is not one of retrace's (retrace-desktop:3, retrace-desktop-apps:1): its programs are probed in a container, which needs a Docker engine (set DOCKER_HOST)`,
      { field: "--image" },
    );
  try {
    return await probeImagePrograms(d, image, [...APPS_IMAGE_PROGRAMS, "code"]);
  } catch (err) {
    throw new ConfigError(`image "${image}" did not start to list its programs: ${(err as Error).message}`, {
      field: "--image",
    });
  }
}

/** The outcome of one checked task. */
export interface CheckedTask {
  id: string;
  domain: string;
  /** `getter-none`: a getter gave None (no value where the task expects one), so the score means nothing. */
  outcome: "scored" | "setup-failed" | "getter-none" | "crashed";
  score?: number;
  detail: string;
  ms: number;
}

/** Options of {@link checkOsworldTasks}. */
export interface OsworldCheckOptions {
  dir: string;
  /** Start a fresh desktop (a container) for a task. */
  desktop: () => DesktopEnvironment;
  /** Check only the offline tasks with these ids (default: all). */
  ids?: readonly string[];
  /** Check only these many offline tasks, drawn with `seed` (default: all). */
  sample?: number;
  seed?: number;
  /** OSWorld checkout for its Python evaluators (optional). */
  osworldPath?: string;
  /** The desktops' image name, for the report. */
  image?: string;
  /** Programs of the desktops' image (packages/desktops/src/docker/image-programs.ts). @default the default image's */
  programs?: ReadonlySet<string>;
  onTask?: (t: CheckedTask) => void;
}

/** The counts of a check. */
export interface OsworldCheckReport {
  /** The desktops' image, when the caller named it. */
  image?: string;
  tasks: number;
  offline: number;
  checked: CheckedTask[];
  /** Not-offline tasks per reason kind. */
  blocked: Record<string, number>;
}

const reasonKind = (r: string): string => r.replace(/ \(.*$/, "").replace(/: .*$/, "");

/** Run the set-up and the evaluator of each offline task on a fresh container desktop. */
export async function checkOsworldTasks(o: OsworldCheckOptions): Promise<OsworldCheckReport> {
  const bridge = o.osworldPath ? new OsworldPythonBridge({ osworldDir: o.osworldPath }) : undefined;
  const metricsOk = bridge ? (await bridge.available()).ok : false;
  const python = { metrics: metricsOk, full: bridge && metricsOk ? (await bridge.available("full")).ok : false };
  const report = await loadOsworldTasks(o.dir);
  const blocked: Record<string, number> = {};
  const runnable: OsworldTask[] = [];
  for (const t of report.tasks) {
    const b = offlineBlockers(t, { programs: o.programs ?? DESKTOP_IMAGE_PROGRAMS, python });
    if (b.length === 0) runnable.push(t);
    for (const k of new Set(b.map(reasonKind))) blocked[k] = (blocked[k] ?? 0) + 1;
  }
  let chosen = o.ids ? runnable.filter((t) => o.ids!.includes(t.id)) : runnable;
  if (o.sample !== undefined && o.sample < chosen.length) {
    const rng = createRng(o.seed ?? 0, "osworld-check");
    const order = chosen.map((t) => ({ t, k: rng.next() })).sort((a, b) => a.k - b.k);
    const pool = chosen;
    chosen = order
      .slice(0, o.sample)
      .map((x) => x.t)
      .sort((a, b) => pool.indexOf(a) - pool.indexOf(b));
  }
  const checked: CheckedTask[] = [];
  for (const t of chosen) {
    const row = await checkOne(t, o.desktop(), bridge && python.metrics ? bridge : undefined, python.full);
    checked.push(row);
    o.onTask?.(row);
  }
  return { image: o.image, tasks: report.tasks.length, offline: runnable.length, checked, blocked };
}

async function checkOne(
  t: OsworldTask,
  env: DesktopEnvironment,
  bridge?: OsworldPythonBridge,
  ownCode = false,
): Promise<CheckedTask> {
  const t0 = Date.now();
  const work = mkdtempSync(join(tmpdir(), "retrace-oswcheck-"));
  const row = (outcome: CheckedTask["outcome"], detail: string, score?: number): CheckedTask => ({
    id: t.id,
    domain: t.domain,
    outcome,
    score,
    detail,
    ms: Date.now() - t0,
  });
  let server: Awaited<ReturnType<typeof startOsworldControlServer>> | undefined;
  try {
    await env.resetBlank(t.id);
    server = await startOsworldControlServer({ env });
    // 120 s a request, as OSWorld's server allows a command (a pyautogui script settles after each action).
    const client = new OsworldClient({
      baseUrl: server.url,
      chromiumUrl: server.chromiumUrl,
      retryIntervalMs: 200,
      timeoutMs: 120_000,
    });
    const screen = await client.screenSize();
    if (bridge && ownCode && (t.support.unsupportedSetup.length > 0 || t.support.unsupportedGetters.length > 0)) {
      // OSWorld's own SetupController and DesktopEnv.evaluate, pointed at this desktop's control server.
      const where = { url: server.url, chromiumPort: server.chromiumPort, screen, cacheDir: work };
      if (t.support.unsupportedSetup.length > 0) {
        const failed = await bridge.setup(t.setup, where, t.id).then(
          () => undefined,
          (err: Error) => err.message,
        );
        if (failed) return row("setup-failed", failed);
      } else {
        const problem = setupProblem(t.id, await runOsworldSetup(client, t.setup, screen));
        if (problem) return row("setup-failed", problem);
      }
      const score = await bridge.evaluate({ id: t.id, evaluator: t.evaluator }, where);
      return row("scored", "OSWorld's own evaluation (DesktopEnv.evaluate)", score > 0 ? 1 : 0);
    }
    const setup = await runOsworldSetup(client, t.setup, screen);
    const problem = setupProblem(t.id, setup);
    if (problem) return row("setup-failed", problem);
    const post = await runOsworldSetup(client, (t.evaluator.postconfig ?? []) as typeof t.setup, screen);
    const postProblem = setupProblem(t.id, post);
    if (postProblem) return row("setup-failed", `post-config: ${postProblem}`);
    const none: string[] = [];
    const ev =
      t.support.unsupportedMetrics.length && bridge
        ? await evaluateOsworldBridged(client, t, bridge, work)
        : await evaluateOsworldNative(client, t, false, (type, v) => v == null && none.push(type));
    if (none.length)
      return row("getter-none", `getter ${[...new Set(none)].join(", ")} gave None (${ev.detail ?? ""})`);
    return row("scored", ev.detail ?? "", ev.score > 0 ? 1 : 0);
  } catch (err) {
    return row("crashed", describeError(err));
  } finally {
    await server?.close().catch(() => undefined);
    await env.close().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}
