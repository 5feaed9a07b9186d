import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../../../packages/testing/src/stand-in/server.ts";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createLlmRecoveryPolicy } from "../../../../packages/models/src/llm/recoverer.ts";
import { createSimDesk, getSimDeskTask, SIMDESK_TASKS } from "../../../../packages/simdesk/src/simdesk.ts";
import type { Action } from "../../../../packages/core/src/action.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import type { RecoveryContext } from "../../../../packages/core/src/recovery.ts";
import { tempBlobs } from "../fixtures.ts";
import { playEpisode } from "./episode.ts";

let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer({ errorRate: 0.3 });
});
afterAll(async () => {
  await server?.close();
});

describe("stand-in model server: sampling", () => {
  it("answers GET /v1/models under its own simulated name", async () => {
    const res = await fetch(`${server.url}/models`);
    const body = (await res.json()) as { data: Array<{ id: string; owned_by: string }> };
    expect(body.data[0].id).toBe("retrace-stand-in");
    expect(body.data[0].owned_by).toMatch(/simulated/);
  });

  it("says when a request shows only a screenshot: the reply and the log entry are marked blind, and it warns once on stderr", async () => {
    const task = SIMDESK_TASKS[0];
    const ask = (content: unknown) =>
      fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "retrace-stand-in",
          temperature: 0,
          messages: [
            { role: "system", content: "Answer with pyautogui code." },
            { role: "user", content },
          ],
        }),
      }).then((r) => r.json() as Promise<{ stand_in?: { blind: boolean; note: string } }>);
    const writes: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (
      writes.push(String(chunk)),
      true
    )) as typeof process.stderr.write;
    try {
      const from = server.log.length;
      const shot = [
        { type: "text", text: `Task: ${task.instruction}` },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ];
      const blind = await ask(shot);
      await ask(shot);
      const seeing = await ask([{ type: "text", text: `Task: ${task.instruction}` }]);
      expect(blind.stand_in).toMatchObject({
        blind: true,
        note: expect.stringContaining("follows its plan by step count"),
      });
      expect(seeing.stand_in?.blind).toBeUndefined();
      expect(server.log.slice(from).map((l) => [l.role, l.blind ?? false])).toEqual([
        ["forward", true],
        ["forward", true],
        ["forward", false],
      ]);
      expect(writes.filter((w) => w.includes("cannot see images"))).toHaveLength(1);
    } finally {
      process.stderr.write = write;
    }
  });

  it("gives the same trajectory for the same seed, different ones across seeds, and one answer at temperature 0", async () => {
    const blobs = tempBlobs();
    const taskId = "cross-tidy-downloads"; // 29 plan steps: many draws per episode
    const run = (seed: number, temperature: number) =>
      playEpisode({ url: server.url, blobs, taskId, seed, temperature, maxSteps: 12 });
    const a = await run(3, 0.7);
    const again = await run(3, 0.7);
    expect(again.actions).toEqual(a.actions);
    const others = [a, await run(4, 0.7), await run(5, 0.7)].map((r) => r.actions.join(" | "));
    expect(new Set(others).size).toBe(3);
    const greedy = [await run(1, 0), await run(2, 0)];
    expect(greedy[1].actions).toEqual(greedy[0].actions);
    // Argmax is the correct, centred action at every step even at errorRate 0.3.
    expect(server.log.filter((l) => l.temperature === 0).every((l) => l.kind === "correct" || l.kind === "done")).toBe(
      true,
    );
  }, 60_000);

  it("completes a good fraction of SimDesk tasks at error rate 0 through the real pyautogui policy", async () => {
    const clean = await startStandInServer({ errorRate: 0 });
    try {
      const blobs = tempBlobs();
      const tasks = SIMDESK_TASKS.filter((_, i) => i % 4 === 0);
      let ok = 0;
      for (const t of tasks)
        if (
          (
            await playEpisode({
              url: clean.url,
              blobs,
              taskId: t.id,
              seed: 7,
              temperature: 0.7,
              maxSteps: t.plan.length + 4,
            })
          ).success
        )
          ok++;
      expect(ok / tasks.length).toBeGreaterThanOrEqual(0.8);
    } finally {
      await clean.close();
    }
  }, 60_000);

  it("makes mistakes at roughly the configured rate at temperature 1", async () => {
    const blobs = tempBlobs();
    const from = server.log.length;
    for (const seed of [11, 12, 13, 14])
      await playEpisode({ url: server.url, blobs, taskId: "cross-tidy-downloads", seed, temperature: 1, maxSteps: 10 });
    const fwd = server.log.slice(from).filter((l) => l.role === "forward");
    const mistakes = fwd.filter((l) => !["correct", "done", "lost"].includes(l.kind)).length / fwd.length;
    expect(mistakes).toBeGreaterThan(0.1);
    expect(mistakes).toBeLessThan(0.55);
  }, 60_000);
});

describe("stand-in model server: recovery decisions come from the prompt text", () => {
  /** notes.txt open (plan steps 0-2), then a hidden slip: Ctrl+Alt+D toggles Do not disturb (step 3). */
  async function scene(slip: Action[] = [{ type: "HOTKEY", keys: ["ctrl", "alt", "d"] }]) {
    const blobs = tempBlobs();
    const env = createSimDesk({ blobs });
    const task = getSimDeskTask("editor-append-notes");
    let obs = await env.reset(task);
    const history: HistoryEntry[] = [];
    const steps: Action[] = [...task.plan.slice(0, 3), ...slip];
    let target = obs;
    for (const [i, a] of steps.entries()) {
      if (i === 3) target = obs;
      history.push({ step: i, observation: obs, actions: [a] });
      obs = (await env.step(a)).observation;
    }
    await env.close();
    return { blobs, task, history, target, current: obs };
  }

  async function decide(s: Awaited<ReturnType<typeof scene>>, context: RecoveryContext, seed: number) {
    const model = createOpenAIChatModel({
      model: server.model,
      baseURL: server.url,
      blobs: s.blobs,
      settings: { logLevel: "warn", ci: false },
      seed,
    });
    const policy = createLlmRecoveryPolicy({
      agent: { format: "pyautogui", model, observation: "a11y_tree", temperature: 0.7 },
    });
    const d = await policy.propose({
      task: s.task,
      target: { step: 3, observation: s.target },
      errorStep: 3,
      context,
      recoveryHistory: [],
      observation: s.current,
      budget: { used: 0, max: 5 },
      tick: 0,
      blobs: s.blobs,
    });
    const entry = server.log[server.log.length - 1];
    expect(entry.role).toBe("recovery");
    return { d, entry };
  }

  it("gives the same decision for the same prompt text, and undoes the hidden slip only when the context shows it", async () => {
    const s = await scene();
    const full: RecoveryContext = { kind: "0-E", history: s.history };
    const first = await decide(s, full, 21);
    const again = await decide(s, full, 21);
    expect(again.entry.text).toBe(first.entry.text);
    expect(first.entry.undoing).toEqual([3]);
    expect(first.d.restored).toBeFalsy();
    expect(first.d.actions.length).toBeGreaterThan(0);
    // The same screens, but the context stops before the slip: nothing on screen differs, so it declares the TARGET
    // reached.
    const cut = await decide(s, { kind: "0-R", history: s.history.slice(0, 3) }, 21);
    expect(cut.entry.undoing).toEqual([]);
    expect(cut.d.restored).toBe(true);
    const none = await decide(s, { kind: "none", history: [] }, 21);
    expect(none.d.restored).toBe(true);
    // Across seeds the full context mostly undoes (slips are rare), the cut one mostly stops.
    let undone = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) if (!(await decide(s, full, seed)).d.restored) undone++;
    expect(undone).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it("without a context still fixes what differs on screen: an edited document is undone", async () => {
    const s = await scene([{ type: "TYPING", text: "oops" }]);
    const none = await decide(s, { kind: "none", history: [] }, 4);
    expect(none.entry.kind).toBe("visible");
    expect(none.d.actions).toEqual([{ type: "HOTKEY", keys: ["ctrl", "z"] }]);
  }, 30_000);
});
