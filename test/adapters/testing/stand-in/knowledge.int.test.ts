/**
 * The stand-in knows only what a model would know: its skill book and the request. Its module
 * graph holds none of SimDesk's state, engine, ground truth or restore planner, and given a
 * request whose history contradicts the environment's hidden state, it follows the request.
 * Also: it reports usage as a model server would (a BPE tokenizer, OpenAI's image tile rule) and
 * declares itself simulated in `system_fingerprint`, which retrace's model client turns into
 * `simulated: true` on every call.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startStandInServer,
  STAND_IN_FINGERPRINT,
  type StandInServer,
} from "../../../../packages/testing/src/stand-in/server.ts";
import { imageTokens } from "../../../../packages/testing/src/stand-in/tokens.ts";
import { buildSkillBook } from "../../../../experiments/stand-in/skill-book.ts";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createLlmErrorDetector } from "../../../../packages/models/src/llm/detector.ts";
import { createSimDesk, getSimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import type { Action } from "../../../../packages/core/src/action.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import { tempBlobs } from "../fixtures.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Every module a file reaches through relative imports (type-only ones included). */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (spec.endsWith(".ts")) visit(resolve(dirname(file), spec));
    }
  };
  visit(entry);
  return seen;
}

let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer({ errorRate: 0.2 });
});
afterAll(async () => {
  await server?.close();
});

describe("the stand-in knows only its skill book and the request", () => {
  it("imports none of SimDesk: no state, engine, setup, ground truth or restore planner", () => {
    const files = [...moduleGraph(join(root, "packages/testing/src/stand-in/index.ts"))].map((f) =>
      f.slice(root.length + 1),
    );
    expect(files).toContain("packages/testing/src/stand-in/skills.ts");
    expect(files.filter((f) => f.startsWith("packages/environments/src/"))).toEqual([]);
    expect(files.filter((f) => /ground-truth|restore|setup|engine|hashing|simdesk/.test(f))).toEqual([]);
  });

  it("ships the skill book the catalogue gives (rebuild with `npx tsx --conditions=retrace-dev experiments/stand-in/skill-book.ts`)", () => {
    const shipped = readFileSync(join(root, "packages/testing/src/stand-in/skills.json"), "utf8");
    expect(shipped).toBe(JSON.stringify(buildSkillBook()) + "\n");
  });

  /**
   * editor-append-notes through plan steps 0-2; at step 2 the environment gets `executed`, the request lists `listed`.
   */
  async function detect(executed: Action[], listed: Action[]) {
    const blobs = tempBlobs();
    const env = createSimDesk({ blobs });
    const task = getSimDeskTask("editor-append-notes");
    let obs = await env.reset(task);
    const history: HistoryEntry[] = [];
    for (let i = 0; i < 4; i++) {
      const actions = i === 2 ? executed : [task.plan[i]];
      history.push({ step: i, observation: obs, actions: i === 2 ? listed : actions });
      for (const a of actions) obs = (await env.step(a)).observation;
    }
    await env.close();
    const model = createOpenAIChatModel({
      model: server.model,
      baseURL: server.url,
      blobs,
      settings: { logLevel: "warn", ci: false },
    });
    const detector = createLlmErrorDetector({ model, observation: "a11y_tree", temperature: 0 });
    const d = await detector.detect({ task, history, observation: obs, step: 4, tick: 4, blobs });
    return { d, entry: server.log[server.log.length - 1] };
  }

  it("follows a history that hides a silent change the environment made: on track", async () => {
    const task = getSimDeskTask("editor-append-notes");
    // The environment toggled Do not disturb at step 2; the request shows only the planned click.
    const { d, entry } = await detect([{ type: "HOTKEY", keys: ["ctrl", "alt", "d"] }, task.plan[2]], [task.plan[2]]);
    expect(entry.role).toBe("detector");
    expect(d.isError).toBe(false);
  }, 30_000);

  it("follows a history that lists a silent change the environment never made: off track at that step", async () => {
    const task = getSimDeskTask("editor-append-notes");
    const { d, entry } = await detect([task.plan[2]], [{ type: "HOTKEY", keys: ["ctrl", "alt", "d"] }, task.plan[2]]);
    expect(entry.kind).toBe("hit-silent");
    expect(d.isError).toBe(true);
    expect(d.errorStep).toBe(2);
  }, 30_000);
});

describe("the stand-in reports usage as a model server would, and says it is simulated", () => {
  it("counts text with a BPE tokenizer and each image by OpenAI's tile rule; its fingerprint makes every call simulated", async () => {
    const png = await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 10, g: 20, b: 30 } } })
      .png()
      .toBuffer();
    const url = `data:image/png;base64,${png.toString("base64")}`;
    const ask = async (content: unknown) => {
      const res = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "x", messages: [{ role: "user", content }] }),
      });
      return (await res.json()) as {
        system_fingerprint: string;
        usage: { prompt_tokens: number; completion_tokens: number };
      };
    };
    const text = await ask("hello world");
    // 3 (reply priming) + 3 (message) + 1 ("user") + 2 ("hello world" in o200k_base)
    expect(text.usage.prompt_tokens).toBe(9);
    expect(text.system_fingerprint).toBe(STAND_IN_FINGERPRINT);
    const withImage = await ask([
      { type: "text", text: "hello world" },
      { type: "image_url", image_url: { url, detail: "high" } },
    ]);
    // 1280x800 -> 1229x768 -> 3x2 tiles of 512: 85 + 6 * 170 = 1105, whatever the PNG's byte size.
    expect(imageTokens({ width: 1280, height: 800 })).toBe(1105);
    expect(withImage.usage.prompt_tokens - text.usage.prompt_tokens).toBe(1105);
    const low = await ask([
      { type: "text", text: "hello world" },
      { type: "image_url", image_url: { url, detail: "low" } },
    ]);
    expect(low.usage.prompt_tokens - text.usage.prompt_tokens).toBe(85);

    const blobs = tempBlobs();
    const model = createOpenAIChatModel({
      model: server.model,
      baseURL: server.url,
      blobs,
      settings: { logLevel: "warn", ci: false },
    });
    const r = await model.complete({ role: "policy", messages: [{ role: "user", content: "hello world" }] });
    expect(r.usage.simulated).toBe(true);
    expect(r.usage.inputTokens).toBe(9);
  }, 30_000);
});
