import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../../../packages/core/src/action.ts";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { DESKTOP_TASKS, desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import { createPlanDivergenceDetector } from "../../../../packages/desktops/src/desktop-tasks/plan-detector.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import type { HostX11Backend } from "../../../../packages/desktops/src/x11/host-backend.ts";
import { createSimForwardPolicy } from "../../../../packages/simdesk/src/agents/index.ts";
import type { SimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { runEpisode } from "../../../../packages/graphs/src/run-episode.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the X11 desktop tests", X11_TOOLS);

const dir = mkdtempSync(join(tmpdir(), "retrace-x11-test-"));
const blobs = new BlobStore({ dir: join(dir, "blobs") });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie still answers kill(0); count it as gone
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function runPlan(env: DesktopEnvironment, plan: Action[]): Promise<string[]> {
  const shots = [(await env.observe()).screenshot];
  for (const a of plan) shots.push((await env.step(a)).observation.screenshot);
  return shots;
}

describe.runIf(tools.run)("X11 desktop (Xvfb + matchbox + real apps)", () => {
  let env: DesktopEnvironment;
  const timings: Record<string, number[]> = { step: [], settle: [], act: [], capture: [] };

  beforeAll(() => {
    tools.assert();
    env = createX11Desktop({ blobs });
  });
  afterAll(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
    // measured numbers for the report (stderr, not asserted)
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    process.stderr.write(
      `x11 timings (median ms): step ${med(timings.step)}, settle ${med(timings.settle)}, act ${med(timings.act)}, capture ${med(timings.capture)}\n`,
    );
  });

  it("edits a file in mousepad, saves it with Ctrl+S and the file on disk changes", async () => {
    const task = desktopTask("mousepad-append-line")!;
    await env.reset(task);
    expect((await env.evaluate()).score).toBe(0);
    for (const a of task.plan) {
      await env.step(a);
      timings.step.push(env.lastTimings!.totalMs);
      timings.settle.push(env.lastTimings!.settleMs);
      timings.act.push(env.lastTimings!.actMs);
    }
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      await env.desktop.captureFrame();
      timings.capture.push(Date.now() - t);
    }
    const bytes = await env.desktop.readHomeFile("notes.txt");
    expect(bytes?.toString()).toBe("Shopping list\n- milk\n- eggs\n- bread\n");
    expect(await env.evaluate()).toMatchObject({ score: 1 });
  });

  it("replays the same actions from a fresh start and gets pixel-identical screenshots", async () => {
    const task = desktopTask("mousepad-delete-first-line")!;
    await env.reset(task);
    const first = await runPlan(env, task.plan);
    await env.reset(task);
    const second = await runPlan(env, task.plan);
    expect(new Set(first).size).toBeGreaterThan(2); // the actions really changed the screen
    expect(second).toEqual(first);
  });

  it("resets by restoring the user's files from the pristine copy", async () => {
    const task = desktopTask("mousepad-clear-file")!;
    await env.reset(task);
    await runPlan(env, task.plan);
    expect((await env.desktop.readHomeFile("scratch.txt"))?.toString()).toBe("");
    await env.reset(task);
    expect((await env.desktop.readHomeFile("scratch.txt"))?.toString()).toBe("tmp 1\ntmp 2\ntmp 3\n");
    expect((await env.evaluate()).score).toBe(0);
  });

  it("solves every real-app task with its reference plan", async () => {
    const failures: string[] = [];
    for (const task of DESKTOP_TASKS) {
      await env.reset(task);
      for (const a of task.plan) await env.step(a);
      const ev = await env.evaluate();
      if (ev.score !== 1) failures.push(`${task.id}: ${ev.detail}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);

  it("runs a recovery episode with simulated policies on mousepad and succeeds after recovering", async () => {
    const task = desktopTask("mousepad-append-line")!;
    const policy = createSimForwardPolicy({
      task: task as unknown as SimDeskTask,
      seed: 5,
      slipRate: 0.35,
      slipMix: { typo: 1 },
      noticeRate: 0,
    });
    const result = await runEpisode({
      task,
      components: { policy, env, blobs, detector: createPlanDivergenceDetector({ task }) },
      options: {
        restoration: "replay",
        recoveryStep: "error-minus-1",
        maxForwardSteps: 12,
        freezeWindow: 0,
        maxRecoveryIterations: 3,
        seed: 5,
      },
    });
    expect(result.simulated).toBe(true);
    expect(result.accounting.recoveryAttempts).toBeGreaterThanOrEqual(1);
    expect(result.success).toBe(true);
    expect((await env.desktop.readHomeFile("notes.txt"))?.toString()).toContain("- bread");
  }, 120_000);
});

describe.runIf(tools.run)("X11 desktop process hygiene", () => {
  it("ends Xvfb, the D-Bus daemon, the window manager and the apps on close", async () => {
    const env = createX11Desktop({ blobs });
    await env.reset(desktopTask("galculator-add")!);
    const pids = (env.desktop as HostX11Backend).pids();
    expect(pids.length).toBeGreaterThanOrEqual(4); // Xvfb, matchbox, dbus-daemon, galculator
    expect(pids.every(alive)).toBe(true);
    await env.close();
    await env.close(); // twice is fine
    expect(pids.filter(alive)).toEqual([]);
  });

  it("leaves no Xvfb or dbus-daemon behind when the host process gets SIGTERM", async () => {
    const script = `
      import { createX11Desktop } from ${JSON.stringify(new URL("../../../../packages/desktops/src/x11/create.ts", import.meta.url).pathname)};
      import { BlobStore } from ${JSON.stringify(new URL("../../../../packages/core/src/blob-store.ts", import.meta.url).pathname)};
      import { DESKTOP_TASKS } from ${JSON.stringify(new URL("../../../../packages/desktops/src/desktop-tasks/tasks.ts", import.meta.url).pathname)};
      const env = createX11Desktop({ blobs: new BlobStore({ dir: ${JSON.stringify(join(dir, "child-blobs"))} }) });
      await env.reset(DESKTOP_TASKS[0]);
      process.stdout.write(JSON.stringify(env.desktop.pids()) + "\\n");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(
      process.execPath,
      ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", script],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const pids: number[] = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]));
      });
      child.once("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    expect(pids.every(alive)).toBe(true);
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await new Promise((r) => setTimeout(r, 300));
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});
