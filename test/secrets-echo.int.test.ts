/**
 * Defect 5 of issue 12: a key that does not look like one (no `sk-` prefix) echoed by the server
 * inside a model's answer must not reach traj.jsonl, run.json or the model-cache files. The
 * redaction is central (packages/core/src/secrets.ts): clients register their keys, every write point redacts.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getSimDeskTask } from "../packages/simdesk/src/tasks/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../packages/testing/src/scripted-openai-server.ts";
import { runModelTask } from "../experiments/model-run.ts";
import { redactText } from "../packages/core/src/secrets.ts";
import { planAnswers } from "./adapters/testing/plan-answers.ts";

const KEY = "vllm-local-7f3a9c2e11d4";
const TASK = "files-trash-menu";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) =>
    statSync(join(dir, n)).isDirectory() ? allFiles(join(dir, n)) : [join(dir, n)],
  );
}

describe("key redaction at every write point", () => {
  it("a key the server echoes in a successful answer is in no written file, and the run still finishes", async () => {
    const plan = getSimDeskTask(TASK).plan!;
    const root = mkdtempSync(join(tmpdir(), "retrace-echo-"));
    const answers = planAnswers(plan);
    // the first answer echoes the key in prose (unparseable: a failed step whose text is recorded)
    server = await startScriptedOpenAIServer({
      script: [
        { endpoint: "chat", text: `I was called with api key ${KEY} and will not act.` },
        ...answers.map((text) => ({ endpoint: "chat" as const, text })),
      ],
    });
    const run = await runModelTask({
      policy: "openai",
      model: "qwen-test",
      taskId: TASK,
      baseURL: server.url,
      apiKey: KEY,
      out: join(root, "run"),
      cache: "readwrite",
      maxRetries: 0,
      maxSteps: 14,
    });
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(run.result.accounting.policyFailures).toBeGreaterThanOrEqual(1);
    const files = allFiles(root);
    expect(files.some((f) => f.includes("model-cache"))).toBe(true);
    expect(files.some((f) => f.endsWith("traj.jsonl"))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(KEY), f).toBe(false);
    // the echoed text itself was kept, redacted
    const texts = files
      .filter((f) => f.endsWith("traj.jsonl") || f.includes("model-cache"))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    expect(texts).toContain("called with api key [redacted]");
  });

  it("redactText removes registered keys and key-shaped strings but keeps JSON valid", () => {
    const line = JSON.stringify({
      text: `key ${KEY}; header Bearer abcdefgh123; sk-abcdef123456; api_key: "zzzzzzzz9"`,
    });
    const out = redactText(line);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(out).not.toContain("sk-abcdef123456");
    expect(out).not.toContain("abcdefgh123");
    expect(out).not.toContain("zzzzzzzz9");
  });
});
