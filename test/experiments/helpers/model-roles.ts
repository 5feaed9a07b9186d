/**
 * A scripted OpenAI-compatible server shared by every model-backed role of an experiment: each
 * request is classified by its prompt (forward, detector, selector, summarizer, recoverer) and
 * answered from that role's queue, so the script does not depend on how roles interleave. The
 * queues come from SimDesk's ground truth: the forward agent follows the task's plan but makes
 * the task's scripted mistake, the detector flags it once, the selector picks R = 1, the
 * summarizer briefs, the recoverer takes the restorative action and declares RESTORED.
 */
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptStep,
  type ScriptedOpenAIServer,
  type ScriptedUsage,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { main } from "../../../experiments/cli.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type ScriptRole = "forward" | "detector" | "selector" | "summarizer" | "recoverer";

/** Which role a request comes from, by its prompt. */
export function roleOf(r: RecordedRequest): ScriptRole {
  const text = JSON.stringify(r.body ?? "");
  if (text.includes("RECOVERY MODE.")) return "recoverer";
  if (text.includes("You review the work of a computer-use agent")) return "detector";
  if (text.includes("has gone off track. Its first wrong action")) return "selector";
  if (text.includes("You write briefing notes")) return "summarizer";
  return "forward";
}

/** pyautogui code for the actions SimDesk plans use. */
export function pyautoguiOf(a: Action): string {
  switch (a.type) {
    case "CLICK":
      return `pyautogui.click(${a.x}, ${a.y})`;
    case "PRESS":
      return `pyautogui.press('${a.key}')`;
    case "TYPING":
      return `pyautogui.write(${JSON.stringify(a.text)})`;
    case "HOTKEY":
      return `pyautogui.hotkey(${a.keys.map((k) => `'${k}'`).join(", ")})`;
    default:
      throw new Error(`no pyautogui form for ${a.type} in this test`);
  }
}
/** A forward/recovery answer performing `a` (DONE/FAIL as the special answers). */
export const answer = (a: Action): ScriptStep =>
  a.type === "DONE" || a.type === "FAIL"
    ? { text: a.type }
    : { text: `Next step.\n\`\`\`python\n${pyautoguiOf(a)}\n\`\`\`` };

/** The recovery sub-agent's answers in another action format: the restorative action, then RESTORED. */
export function recovererAnswers(format: "uitars" | "anthropic", a: Action): ScriptStep[] {
  if (format === "uitars") {
    const call =
      a.type === "CLICK"
        ? `click(start_box='(${a.x},${a.y})')`
        : a.type === "PRESS"
          ? `hotkey(key='${a.key}')`
          : a.type === "TYPING"
            ? `type(content=${JSON.stringify(a.text)})`
            : null;
    if (!call) throw new Error(`no UI-TARS form for ${a.type}`);
    return [
      { endpoint: "chat", text: `Thought: undo the wrong step.\nAction: ${call}` },
      { endpoint: "chat", text: "Thought: the screen matches the TARGET screenshot.\nRESTORED" },
    ];
  }
  const input =
    a.type === "CLICK"
      ? { action: "left_click", coordinate: [a.x, a.y] }
      : a.type === "PRESS"
        ? { action: "key", text: a.key === "enter" ? "Return" : a.key === "escape" ? "Escape" : a.key }
        : a.type === "TYPING"
          ? { action: "type", text: a.text }
          : null;
  if (!input) throw new Error(`no Anthropic form for ${a.type}`);
  return [
    { endpoint: "messages", content: [{ type: "tool_use", id: "toolu_1", name: "computer", input }] },
    { endpoint: "messages", text: "RESTORED" },
  ];
}

/** The restorative action of the scripted mistake of `taskId` (back to R = 1). */
export async function restorativeAction(taskId = "files-rename-draft"): Promise<Action> {
  const task = getSimDeskTask(taskId);
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  const twin = createSimDesk({ blobs: new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-twin-")) }) });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < mistake.atStep; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[1]);
  if (!fix || fix === "unreachable") throw new Error("no restorative step");
  return fix.action;
}

/** Queues for a no-recovery episode then a recovery episode of `taskId` (in that order). */
export async function ablationQueues(taskId = "files-rename-draft"): Promise<Record<ScriptRole, ScriptStep[]>> {
  const task = getSimDeskTask(taskId);
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  const E = mistake.atStep;
  const twin = createSimDesk({ blobs: new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-twin-")) }) });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[1]);
  if (!fix || fix === "unreachable") throw new Error("no restorative step");
  const before = task.plan.slice(0, E).map(answer);
  return {
    forward: [
      // no-recovery episode: the mistake, then the agent gives up
      ...before,
      ...mistake.actions.map(answer),
      { text: "FAIL" },
      // recovery episode: the same start, then (after recovery to R = 1) the rest of the plan
      ...before,
      ...mistake.actions.map(answer),
      ...task.plan.slice(1).map(answer),
      { text: "DONE" },
    ],
    detector: [
      ...before.map(() => ({
        text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
      })),
      { text: `{"off_track": true, "error_step": ${E}, "reason": "selected the wrong file", "confidence": 0.95}` },
    ],
    selector: [{ text: '{"recovery_step": 1, "reason": "before the file list was used"}' }],
    summarizer: [
      { text: "TARGET STATE: the file manager is open at Home.\nHOW IT GOT THERE:\n- opened the file manager" },
    ],
    recoverer: [answer(fix.action), { text: "RESTORED" }],
  };
}

/** A server answering each role from its queue; the detector says "on track" once its queue is empty. */
export async function startRoleServer(
  queues: Record<ScriptRole, ScriptStep[]>,
  options: {
    model?: string;
    modelsStatus?: number[];
    modelsRetryAfterMs?: number;
    /** Usage every answer of a role reports (e.g. cached tokens). */ usage?: Partial<
      Record<ScriptRole, ScriptedUsage>
    >;
  } = {},
): Promise<ScriptedOpenAIServer & { byRole: Record<ScriptRole, number> }> {
  const q = Object.fromEntries(Object.entries(queues).map(([k, v]) => [k, [...v]])) as Record<ScriptRole, ScriptStep[]>;
  const byRole: Record<ScriptRole, number> = { forward: 0, detector: 0, selector: 0, summarizer: 0, recoverer: 0 };
  const server = await startScriptedOpenAIServer({
    model: options.model,
    modelsStatus: options.modelsStatus,
    modelsRetryAfterMs: options.modelsRetryAfterMs,
    responder(r) {
      const role = roleOf(r);
      byRole[role]++;
      const usage = options.usage?.[role];
      const next =
        q[role].shift() ??
        (role === "detector"
          ? { text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}' }
          : undefined);
      return next && usage ? { ...next, usage } : next;
    },
  });
  return Object.assign(server, { byRole });
}

/** The shipped preset, narrowed to one task, one seed and cap 1 (everything else as shipped). */
export function narrowedPreset(file: string, patch: (c: Record<string, any>) => void = () => {}): string {
  const config = parseYaml(
    readFileSync(new URL("../../../experiments/configs/models/end-to-end.yaml", import.meta.url), "utf8"),
  ) as Record<string, any>;
  config.env = { ...config.env, tasks: ["files-rename-draft"] };
  config.seeds = [0];
  config.maxRecoveryIterations = [1];
  patch(config);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Run the CLI in-process; returns exit code, stdout and stderr. */
export async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string) => (out.push(String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => (err.push(String(c)), true)) as typeof process.stderr.write;
  process.exitCode = 0;
  try {
    await main(["node", "retrace", ...args]);
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { code, stdout: out.join(""), stderr: err.join("") };
}
