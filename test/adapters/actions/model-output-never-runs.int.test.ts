/**
 * Security (issue 12): model output is data. For every action format, answers written to run code
 * on the host (shell substitutions, os.system, __import__, exec, subprocess) are either refused
 * or become plain retrace Actions (typed text stays text), validated by ActionSchema, and
 * executing them on SimDesk creates no file on the host. One end-to-end run per chat format
 * (pyautogui, UI-TARS) sends such answers from a real HTTP server through the real policies.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ActionSchema, type Action } from "../../../packages/core/src/action.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { parsePyautogui } from "../../../packages/models/src/actions/pyautogui/convert.ts";
import { uiTarsToActions } from "../../../packages/models/src/actions/uitars/convert.ts";
import { openAIComputerActionToActions } from "../../../packages/models/src/actions/openai-cua/convert.ts";
import { anthropicComputerInputToActions } from "../../../packages/models/src/actions/anthropic/convert.ts";
import { createSimDesk } from "../../../packages/simdesk/src/simdesk.ts";
import { getSimDeskTask } from "../../../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { runModelTask } from "../../../experiments/model-run.ts";
import { planAnswers } from "../testing/plan-answers.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-noexec-"));
const MARK = join(dir, "pwned");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SCREEN = { width: 1280, height: 800 };
const SHELL = [
  `$(touch ${MARK})`,
  `\`touch ${MARK}\``,
  `; touch ${MARK}`,
  `'); import os; os.system('touch ${MARK}'); ('`,
];

/** Actions from model text, or the refusal message. */
function convert(f: () => Action[]): Action[] | string {
  try {
    return f();
  } catch (err) {
    return (err as Error).message;
  }
}

const CASES: Array<[format: string, payload: string, run: () => Action[] | string]> = [
  ...[
    `import os\nos.system('touch ${MARK}')`,
    `__import__('os').system('touch ${MARK}')`,
    `exec("open('${MARK}','w')")`,
    `eval("__import__('os').system('touch ${MARK}')")`,
    `import subprocess\nsubprocess.run(['touch', '${MARK}'])`,
    `open('${MARK}', 'w').write('x')`,
    `pyautogui.click(100, 200); os.system('touch ${MARK}')`,
    `getattr(pyautogui, '__class__')`,
    ...SHELL.map((s) => `pyautogui.typewrite(${JSON.stringify(s)})`),
  ].map(
    (p) =>
      ["pyautogui", p, () => convert(() => parsePyautogui(p, { screen: SCREEN }))] as [
        string,
        string,
        () => Action[] | string,
      ],
  ),
  ...[
    ...SHELL.map((s) => `Action: type(content=${JSON.stringify(s)})`),
    `Action: os.system('touch ${MARK}')`,
    `Action: click(start_box='(1,1)'); __import__('os')`,
  ].map(
    (p) =>
      ["uitars", p, () => convert(() => uiTarsToActions(p, { screen: SCREEN }).actions)] as [
        string,
        string,
        () => Action[] | string,
      ],
  ),
  ...[
    ...SHELL.map((s) => ({ type: "type", text: s })),
    { type: "exec", command: `touch ${MARK}` },
    { type: "keypress", keys: [`$(touch ${MARK})`] },
  ].map(
    (p) =>
      ["openai-cua", JSON.stringify(p), () => convert(() => openAIComputerActionToActions(p as never))] as [
        string,
        string,
        () => Action[] | string,
      ],
  ),
  ...[
    ...SHELL.map((s) => ({ action: "type", text: s })),
    { action: "bash", command: `touch ${MARK}` },
    { action: "key", text: `ctrl+$(touch ${MARK})` },
  ].map(
    (p) =>
      [
        "anthropic",
        JSON.stringify(p),
        () => convert(() => anthropicComputerInputToActions(p as never, { screen: SCREEN } as never)),
      ] as [string, string, () => Action[] | string],
  ),
];

describe("model output never runs as code on the host", () => {
  it.each(CASES)("%s: %s", async (_format, _payload, run) => {
    const out = run();
    if (typeof out === "string") {
      expect(out.split("\n")).toHaveLength(1); // refused, with a one-line reason
    } else {
      for (const a of out) expect(ActionSchema.safeParse(a).success, JSON.stringify(a)).toBe(true);
      const desk = createSimDesk({ blobs: new BlobStore({ dir: join(dir, "blobs") }) });
      try {
        await desk.reset(getSimDeskTask("files-trash-menu"));
        for (const a of out) await desk.step(a);
      } finally {
        await desk.close();
      }
    }
    expect(existsSync(MARK)).toBe(false);
  });

  it.each(["openai", "uitars"] as const)(
    "a %s policy fed code-running answers over HTTP records failed steps and runs nothing",
    async (policy) => {
      const task = "files-trash-menu";
      const evil =
        policy === "openai"
          ? [
              `\`\`\`python\nimport os\nos.system('touch ${MARK}')\n\`\`\``,
              `\`\`\`python\n__import__('subprocess').run(['touch', '${MARK}'])\n\`\`\``,
            ]
          : [`Thought: run it\nAction: os.system('touch ${MARK}')`, `Thought: x\nAction: exec(code='touch ${MARK}')`];
      const plan = getSimDeskTask(task).plan!;
      const good = policy === "openai" ? planAnswers(plan) : [];
      server = await startScriptedOpenAIServer({
        script: [...evil, ...good].map((text) => ({ endpoint: "chat" as const, text })),
      });
      const r = await runModelTask({
        policy,
        model: "m",
        taskId: task,
        baseURL: server.url,
        apiKey: "local",
        out: join(dir, `run-${policy}`),
        maxRetries: 0,
        maxSteps: evil.length + good.length,
      });
      expect(r.result.accounting.policyFailures).toBeGreaterThanOrEqual(evil.length);
      expect(server.requests.length).toBeGreaterThanOrEqual(evil.length);
      expect(existsSync(MARK)).toBe(false);
    },
  );
});
