/**
 * Model calls leave no listener behind on the episode's long-lived abort signal: vendor SDKs add an
 * "abort" listener to the signal they are given and never remove it, so `callModel` hands them a
 * fresh per-call signal. Without that, the 11th call of an episode printed Node's
 * MaxListenersExceededWarning into the progress bar.
 */
import { getEventListeners } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { callModel } from "../../../packages/models/src/llm/call.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { scriptedModel, tempBlobs } from "./fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterAll(async () => server?.close());

describe("callModel and the episode's abort signal", () => {
  it("adds no lasting listener per call (15 calls through the openai SDK, no warning)", async () => {
    const s = await scriptedModel(
      tempBlobs(),
      Array.from({ length: 15 }, (_, i) => ({ text: `answer ${i}` })),
    );
    server = s.server;
    const episode = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      for (let i = 0; i < 15; i++) {
        const r = await callModel(
          s.model,
          { role: "policy", messages: [{ role: "user", content: `step ${i}` }] },
          { signal: episode.signal },
        );
        expect(r.ok).toBe(true);
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(getEventListeners(episode.signal, "abort").length).toBeLessThanOrEqual(1);
      expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
    s.server.verify();
  });
});
