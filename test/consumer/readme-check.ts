/**
 * Runs one README snippet (copied into the consumer project as src/<name>.ts by the consumer test)
 * against scripted model servers: the SDK's own endpoint variables (OPENAI_BASE_URL,
 * ANTHROPIC_BASE_URL) and RETRACE_BASE_URL point at servers scripted with SimDesk's
 * files-rename-draft and its wrong-item mistake at E=2, as consumer-episodes.ts runs it. The
 * snippet runs as a user's module would (imported once); every server must see its whole script
 * and nothing else, so the recovery happened as scripted. Prints "<name>: ok".
 */
import { actionToPyautogui, createSimDesk, getSimDeskTask } from "retrace-cua/adapters";
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
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK") throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
  const forward: Action[] = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)].filter((a) => a.type !== "DONE");
  return { E, R, forward, fix: fix.action };
}

const pyautogui = (a: Action): string => `\`\`\`python\n${actionToPyautogui(a)}\n\`\`\``;
const verdict = (offTrack: boolean, step: number | null) => `{"off_track": ${offTrack}, "error_step": ${step}, "reason": "scripted", "confidence": 0.9}`;

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

/** The scripts of each snippet, by the environment variable that points its SDK at the server. */
async function scripts(name: string): Promise<Record<string, ScriptStep[]>> {
  const { E, forward, fix } = await plan();
  const recoverer: ScriptStep[] = [{ endpoint: "chat", text: `Back.\n${pyautogui(fix)}` }, { endpoint: "chat", text: "RESTORED" }];
  const detector: ScriptStep[] = [...Array.from({ length: E }, () => ({ endpoint: "chat" as const, text: verdict(false, null) })), { endpoint: "chat", text: verdict(true, E) }];
  switch (name) {
    case "readme-wrap": {
      // One endpoint for the policy, the detector and the recoverer; detection "sequential": policy, then detector, step by step.
      const steps: ScriptStep[] = [];
      for (let t = 0; t <= E; t++) steps.push({ endpoint: "chat", text: pyautogui(forward[t]) }, detector[t]);
      steps.push(...recoverer, ...forward.slice(E + 1).map((a): ScriptStep => ({ endpoint: "chat", text: pyautogui(a) })), { endpoint: "chat", text: "DONE" });
      return { RETRACE_BASE_URL: steps };
    }
    case "readme-openai-agents":
      return {
        RETRACE_BASE_URL: [...detector, ...recoverer],
        OPENAI_BASE_URL: [
          ...forward.map((a, i): ScriptStep => ({ endpoint: "responses", output: [{ type: "computer_call", id: `cu_${i}`, call_id: `call_${i}`, action: openAIAction(a), pending_safety_checks: [], status: "completed" }] })),
          { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
        ],
      };
    case "readme-ai-sdk":
      return {
        RETRACE_BASE_URL: [...detector, ...recoverer],
        ANTHROPIC_BASE_URL: [
          ...forward.map((a, i): ScriptStep => ({ endpoint: "messages", content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: anthropicInput(a) }] })),
          { endpoint: "messages", text: "Renamed draft.txt to final.txt." },
        ],
      };
    default:
      throw new Error(`readme-check: no script for the snippet ${name}`);
  }
}

/** Import the compiled snippet `name` (beside this file) with its endpoints pointed at scripted servers. */
export async function checkSnippet(name: string): Promise<void> {
  const servers: ScriptedOpenAIServer[] = [];
  try {
    for (const [variable, script] of Object.entries(await scripts(name))) {
      const server = await startScriptedOpenAIServer({ script });
      servers.push(server);
      process.env[variable] = server.url;
    }
    Object.assign(process.env, { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key", OPENAI_AGENTS_DISABLE_TRACING: "1" });
    await import(pathToFileURL(join(import.meta.dirname ?? ".", `${name}.js`)).href);
    for (const s of servers) s.verify();
    process.stdout.write(`${name}: ok\n`);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}
