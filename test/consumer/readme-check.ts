/**
 * Runs one README snippet (copied into the consumer project as src/<name>.ts by the consumer test)
 * against scripted model servers: the SDK's own endpoint variables (OPENAI_BASE_URL,
 * ANTHROPIC_BASE_URL), RETRACE_BASE_URL and the snippets' JUDGE_BASE_URL point at servers
 * scripted with SimDesk's files-rename-draft and its wrong-item mistake at E=2, as
 * consumer-episodes.ts runs it, or (Stagehand) the browser apps' mail-reply-bob with its typo at
 * E=2. The snippet runs as a user's module would (imported once); every server must see its whole
 * script and nothing else, so the recovery happened as scripted. Prints "<name>: ok".
 */
import { createSimDesk, getSimDeskTask } from "retrace-cua/simdesk";
import { BROWSER_TASKS, actionToPyautogui } from "retrace-cua/adapters";
import { startScriptedOpenAIServer, type ScriptStep, type ScriptedOpenAIServer } from "retrace-cua/testing";
import { BlobStore, type Action } from "retrace-cua";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The scenario's actions: forward steps (with the mistake at E), the restorative click, E and R. */
async function plan() {
  const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-readme-")) });
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item")!;
  const E = mistake.atStep;
  const R = E - 1;
  const twin = createSimDesk({ blobs });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[R]);
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK")
    throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
  const forward: Action[] = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)].filter(
    (a) => a.type !== "DONE",
  );
  return { E, R, forward, fix: fix.action };
}

const pyautogui = (a: Action): string => `\`\`\`python\n${actionToPyautogui(a)}\n\`\`\``;
const verdict = (offTrack: boolean, step: number | null) =>
  `{"off_track": ${offTrack}, "error_step": ${step}, "reason": "scripted", "confidence": 0.9}`;

function openAIAction(a: Action): Record<string, unknown> {
  if (a.type === "CLICK") return { type: "click", x: a.x, y: a.y, button: a.button ?? "left" };
  if (a.type === "TYPING") return { type: "type", text: a.text };
  if (a.type === "PRESS") return { type: "keypress", keys: [a.key] };
  throw new Error(`no OpenAI action for ${a.type}`);
}

function anthropicInput(a: Action): Record<string, unknown> {
  if (a.type === "CLICK") return { action: "left_click", coordinate: [a.x, a.y] };
  if (a.type === "TYPING") return { action: "type", text: a.text };
  if (a.type === "PRESS") return { action: "key", text: a.key === "f2" ? "F2" : a.key === "enter" ? "Return" : a.key };
  throw new Error(`no Anthropic action for ${a.type}`);
}

/**
 * Stagehand's hybrid agent on mail-reply-bob (its tools click and type at coordinates): it types
 * the reply with a comma at E=2, the detector blames that step, the recovery sub-agent clicks the
 * inbox and Bob's email (the state of R=1) and says RESTORED, and the agent replies again, sends,
 * and closes with Stagehand's "done" tool. One judge endpoint serves the detector and the
 * recoverer in the order they are called.
 */
function stagehandScripts(): Record<string, ScriptStep[]> {
  const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
  const at = (i: number): [number, number] => {
    const a = task.plan[i];
    if (a.type !== "CLICK" || a.x === undefined || a.y === undefined)
      throw new Error(`mail-reply-bob: step ${i} is not a click`);
    return [a.x, a.y];
  };
  const [bob, reply, body, send] = [at(0), at(1), at(2), at(4)];
  const inbox: [number, number] = [105, 77]; // the mail app's Inbox folder (MAIL.folder.inbox's centre)
  const click = ([x, y]: [number, number]) => `\`\`\`python\npyautogui.click(${x}, ${y})\n\`\`\``;
  const call = (id: number, tool: string, input: object): ScriptStep => ({
    endpoint: "messages",
    content: [{ type: "tool_use", id: `toolu_${id}`, name: tool, input }],
  });
  return {
    RETRACE_BASE_URL: [
      { endpoint: "chat", text: verdict(false, null) },
      { endpoint: "chat", text: verdict(false, null) },
      { endpoint: "chat", text: verdict(true, 2) },
      { endpoint: "chat", text: `To the inbox.\n${click(inbox)}` },
      { endpoint: "chat", text: `Open Bob's email.\n${click(bob)}` },
      { endpoint: "chat", text: "RESTORED" },
    ],
    ANTHROPIC_BASE_URL: [
      call(0, "click", { describe: "Bob's email", coordinates: bob }),
      call(1, "click", { describe: "Reply", coordinates: reply }),
      call(2, "type", { describe: "message body", text: "Friday works for me,", coordinates: body }),
      call(3, "click", { describe: "Reply", coordinates: reply }),
      call(4, "type", { describe: "message body", text: "Friday works for me.", coordinates: body }),
      call(5, "click", { describe: "Send", coordinates: send }),
      { endpoint: "messages", text: "Replied to Bob." },
      call(6, "done", { reasoning: "Replied to Bob.", taskComplete: true }),
    ],
  };
}

/** The scripts of each snippet, by the environment variable that points its SDK at the server. */
async function scripts(name: string): Promise<Record<string, ScriptStep[]>> {
  if (name === "readme-stagehand") return stagehandScripts();
  const { E, forward, fix } = await plan();
  const recoverer: ScriptStep[] = [
    { endpoint: "chat", text: `Back.\n${pyautogui(fix)}` },
    { endpoint: "chat", text: "RESTORED" },
  ];
  const detector: ScriptStep[] = [
    ...Array.from({ length: E }, () => ({ endpoint: "chat" as const, text: verdict(false, null) })),
    { endpoint: "chat", text: verdict(true, E) },
  ];
  switch (name) {
    case "readme-wrap": {
      // One endpoint for the policy, the detector and the recoverer; detection "sequential": policy, then detector,
      // step by step.
      const steps: ScriptStep[] = [];
      for (let t = 0; t <= E; t++) steps.push({ endpoint: "chat", text: pyautogui(forward[t]) }, detector[t]);
      steps.push(
        ...recoverer,
        ...forward.slice(E + 1).map((a): ScriptStep => ({ endpoint: "chat", text: pyautogui(a) })),
        { endpoint: "chat", text: "DONE" },
      );
      return { RETRACE_BASE_URL: steps };
    }
    case "readme-openai-agents":
      return {
        RETRACE_BASE_URL: [...detector, ...recoverer],
        OPENAI_BASE_URL: [
          ...forward.map((a, i): ScriptStep => ({
            endpoint: "responses",
            output: [
              {
                type: "computer_call",
                id: `cu_${i}`,
                call_id: `call_${i}`,
                action: openAIAction(a),
                pending_safety_checks: [],
                status: "completed",
              },
            ],
          })),
          { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
          // The snippet's next turn ("Anything else?"): a text answer, no computer call, no detector call.
          { endpoint: "responses", text: "Nothing else." },
        ],
      };
    case "readme-ai-sdk":
    case "readme-ai-sdk-agent":
      return {
        JUDGE_BASE_URL: [...detector, ...recoverer],
        ANTHROPIC_BASE_URL: [
          ...forward.map((a, i): ScriptStep => ({
            endpoint: "messages",
            content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: anthropicInput(a) }],
          })),
          { endpoint: "messages", text: "Renamed draft.txt to final.txt." },
        ],
      };
    default:
      throw new Error(`readme-check: no script for the snippet ${name}`);
  }
}

/**
 * Import the compiled snippet `name` (beside this file) with its endpoints pointed at scripted
 * servers; the process environment is restored afterwards, so several snippets can run one after
 * another in one process, each with only its own variables set.
 */
export async function checkSnippet(name: string): Promise<void> {
  const servers: ScriptedOpenAIServer[] = [];
  const saved = { ...process.env };
  try {
    for (const [variable, script] of Object.entries(await scripts(name))) {
      const server = await startScriptedOpenAIServer({ script });
      servers.push(server);
      process.env[variable] = server.url;
    }
    Object.assign(process.env, {
      OPENAI_API_KEY: "test-key",
      ANTHROPIC_API_KEY: "test-key",
      OPENAI_AGENTS_DISABLE_TRACING: "1",
    });
    await import(pathToFileURL(join(import.meta.dirname ?? ".", `${name}.js`)).href);
    for (const s of servers) s.verify();
    process.stdout.write(`${name}: ok\n`);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Check each snippet in turn (one process, one import each); stops at the first that fails. */
export async function checkSnippets(names: string[]): Promise<void> {
  for (const name of names) await checkSnippet(name);
}
