/**
 * One scripted episode through the LangGraph runtime and through Stagehand's hybrid agent
 * (executeWithRecovery). Stagehand acts only on a browser page over CDP, so it cannot drive SimDesk:
 * its comparison runs the graph and Stagehand on one browser episode (mail-reply-bob with a typo at
 * E=2, R=1, two recovery steps), on the same Chromium, with the same scripted detector and recovery
 * replies, and both must take the same decisions. The SimDesk paths: cross-path-simdesk.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stagehand } from "@browserbasehq/stagehand";
import { executeWithRecovery } from "../../../packages/stagehand/src/index.ts";
import {
  createBrowserEnvironment,
  BROWSER_TASKS,
  type BrowserEnvironment,
} from "../../../packages/browser/src/index.ts";
import { MAIL, centre } from "../../../packages/browser/src/apps/layout.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmRecoveryPolicy } from "../../../packages/models/src/llm/recoverer.ts";
import { startScriptedOpenAIServer, type ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../helpers/system-tools.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";
import {
  type Decisions,
  lastUserText,
  pickAccounting,
  recordEvents,
  servers,
  toolUseIds,
  useServerCleanup,
  viaGraph,
} from "./cross-path-fixtures.ts";

const chromium = systemTools("the Stagehand leg of the cross-path test", CHROMIUM_TOOLS);
useServerCleanup();

describe("one scripted episode through the graph and each integration's own loop", () => {
  describe.runIf(chromium.run)("the browser environment (Stagehand drives only a browser page)", () => {
    let env: BrowserEnvironment;
    let stagehand: Stagehand;
    const blobs = tempBlobs();
    beforeAll(async () => {
      chromium.assert();
      env = await createBrowserEnvironment({ blobs, cdp: true });
      stagehand = new Stagehand({
        env: "LOCAL",
        experimental: true,
        verbose: 0,
        disablePino: true,
        logger: () => undefined,
        localBrowserLaunchOptions: { cdpUrl: env.cdpUrl! },
      });
      await stagehand.init();
    });
    afterAll(async () => {
      await stagehand?.close();
      await env?.close();
    });

    it("the graph and Stagehand's hybrid agent take the same decisions on the typo episode", async () => {
      const task = BROWSER_TASKS.find((t) => t.id === "mail-reply-bob")!;
      const xy = (r: Parameters<typeof centre>[0]) => [centre(r).x, centre(r).y];
      const click = (r: Parameters<typeof centre>[0]): Action => ({
        type: "CLICK",
        ...centre(r),
        button: "left",
        numClicks: 1,
      });
      // Stagehand's tool calls, and the same steps as retrace Actions (a "type" with coordinates clicks, then types).
      const calls: Array<[string, object, Action[]]> = [
        ["click", { describe: "Bob's email", coordinates: xy(MAIL.row(1)) }, [click(MAIL.row(1))]],
        ["click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }, [click(MAIL.view.reply)]],
        [
          "type",
          { describe: "message body", text: "Friday works for me,", coordinates: xy(MAIL.body) },
          [click(MAIL.body), { type: "TYPING", text: "Friday works for me," }],
        ],
        ["click", { describe: "Reply", coordinates: xy(MAIL.view.reply) }, [click(MAIL.view.reply)]],
        [
          "type",
          { describe: "message body", text: "Friday works for me.", coordinates: xy(MAIL.body) },
          [click(MAIL.body), { type: "TYPING", text: "Friday works for me." }],
        ],
        ["click", { describe: "Send", coordinates: xy(MAIL.send) }, [click(MAIL.send)]],
      ];
      const detectorScript: ScriptStep[] = [
        { text: '{"off_track": false, "error_step": null, "reason": "opened Bob\'s email", "confidence": 0.9}' },
        { text: '{"off_track": false, "error_step": null, "reason": "reply form open", "confidence": 0.9}' },
        {
          text: '{"off_track": true, "error_step": 2, "reason": "typed a comma instead of a period", "confidence": 0.9}',
        },
      ];
      const [inbox, bob] = [centre(MAIL.folder.inbox), centre(MAIL.row(1))];
      const recovererScript: ScriptStep[] = [
        { text: `To the inbox.\n\`\`\`python\npyautogui.click(${inbox.x}, ${inbox.y})\n\`\`\`` },
        { text: `Open Bob's email.\n\`\`\`python\npyautogui.click(${bob.x}, ${bob.y})\n\`\`\`` },
        { text: "RESTORED" },
      ];
      const components = async () => {
        const det = await scriptedModel(blobs, detectorScript);
        const rec = await scriptedModel(blobs, recovererScript);
        servers.push(det.server, rec.server);
        return {
          det,
          rec,
          detector: createLlmErrorDetector({ model: det.model, historyImages: 1 }),
          recoverer: createLlmRecoveryPolicy({ model: rec.model, historyImages: 1 }),
        };
      };

      // The graph on the same browser environment.
      const g = await components();
      const graph = await viaGraph({
        env,
        blobs,
        task,
        steps: calls.map((c) => c[2]),
        detector: g.detector,
        recoverer: g.recoverer,
        recoveryBudget: 4,
      });
      g.det.server.verify();
      g.rec.server.verify();

      // Stagehand's own loop.
      await env.reset(task);
      const c = await components();
      const server = await startScriptedOpenAIServer({
        script: [
          ...calls.map(([name, input], i) => ({
            endpoint: "messages" as const,
            content: [{ type: "tool_use", id: `toolu_${i}`, name, input }],
          })),
          { endpoint: "messages", text: "Replied to Bob." },
          {
            endpoint: "messages",
            content: [
              {
                type: "tool_use",
                id: "toolu_done",
                name: "done",
                input: { reasoning: "Replied to Bob.", taskComplete: true },
              },
            ],
          },
        ],
      });
      servers.push(server);
      const events = new EpisodeEvents();
      const seen = recordEvents(events);
      const agent = stagehand.agent({
        mode: "hybrid",
        model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url },
      });
      const result = await executeWithRecovery(
        agent,
        { instruction: task.instruction, maxSteps: 12 },
        { env, blobs, task, recoveryBudget: 4, detector: c.detector, recoverer: c.recoverer, events },
      );
      const after = server.requests[3].body; // the first model call after the cut (E=2)
      const stagehandSide: Decisions = {
        events: seen,
        afterCut: { kept: toolUseIds(after).length, notice: lastUserText(after) },
        accounting: pickAccounting(result.accounting),
        score: result.evaluation.score,
      };
      c.det.server.verify();
      c.rec.server.verify();
      server.verify();

      expect(graph).toEqual({
        events: [
          { kind: "selection", E: 2, R: 1 },
          { kind: "recovery-end", attempt: 1, restored: true, steps: 2, confirmation: graph.events[1]?.confirmation },
          { kind: "truncate", attempt: 1, from: 3, to: 1 },
        ],
        afterCut: { kept: 1, notice: expect.stringMatching(/state it had at step 1\b/) },
        accounting: { detectorCalls: 3, recoveryAttempts: 1, recoverySteps: 2, forwardSteps: 6 },
        score: 1,
      });
      expect(stagehandSide).toEqual(graph);
    });
  });
});
