/**
 * The stand-in forward agent's post-cut loss of state (paper Sec. 6.3): on the first decision
 * after a cut (the prompt carries the transition string, the history is truncated to the steps
 * before R) it acts as if its undone actions still held, at its post-cut rate. The short string
 * leaves the full rate; the detailed one says the later actions were removed and not to assume
 * them, which quarters it. Through the real pyautogui policy over HTTP, with the notice the runtime
 * renders (graphs transitionNotice), many request seeds per variant, asserted statistically.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../../../packages/testing/src/stand-in/server.ts";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createPyautoguiPolicy } from "../../../../packages/models/src/policies/openai/pyautogui-policy.ts";
import { createSimDesk, getSimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { transitionNotice } from "../../../../packages/graphs/src/transition-notice.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import type { Observation } from "../../../../packages/core/src/observation.ts";
import { tempBlobs } from "../fixtures.ts";

let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer({ errorRate: 0, postCutErrorRate: 0.4 });
});
afterAll(async () => {
  await server?.close();
});

const SEEDS = Array.from({ length: 120 }, (_, i) => i + 1);

/** Fisher's exact test, two-sided, for a 2x2 table [[a, b], [c, d]]. */
function fisherExact(a: number, b: number, c: number, d: number): number {
  const lf = (n: number) => {
    let s = 0;
    for (let i = 2; i <= n; i++) s += Math.log(i);
    return s;
  };
  const r1 = a + b,
    r2 = c + d,
    c1 = a + c,
    n = r1 + r2;
  const p = (x: number) =>
    Math.exp(lf(r1) + lf(r2) + lf(c1) + lf(n - c1) - lf(n) - lf(x) - lf(r1 - x) - lf(c1 - x) - lf(r2 - c1 + x));
  const observed = p(a);
  let total = 0;
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++) if (p(x) <= observed * (1 + 1e-9)) total += p(x);
  return Math.min(1, total);
}

describe("the stand-in forward agent after a cut", () => {
  it("loses track of the state after the short transition string, and less often after the detailed one", async () => {
    const blobs = tempBlobs();
    const env = createSimDesk({ blobs });
    const task = getSimDeskTask("editor-append-notes");
    // Restored to R = 2: the screen before step 2, the history truncated to steps 0-1.
    let obs: Observation = await env.reset(task);
    const history: HistoryEntry[] = [];
    for (let i = 0; i < 2; i++) {
      history.push({ step: i, observation: obs, actions: [task.plan[i]] });
      obs = (await env.step(task.plan[i])).observation;
    }
    await env.close();
    const lost: Record<"short" | "detailed" | "none", number> = { short: 0, detailed: 0, none: 0 };
    for (const variant of ["short", "detailed", "none"] as const) {
      for (const seed of SEEDS) {
        const model = createOpenAIChatModel({
          model: server.model,
          baseURL: server.url,
          blobs,
          settings: { logLevel: "warn", ci: false },
          seed,
        });
        const policy = createPyautoguiPolicy({ model, temperature: 1, observation: "a11y_tree" });
        await policy.propose({
          task,
          history,
          observation: obs,
          step: 2,
          tick: 2,
          blobs,
          ...(variant !== "none" && { notice: transitionNotice(2, variant) }),
        });
        const entry = server.log[server.log.length - 1];
        expect(entry.role).toBe("forward");
        if (entry.kind === "lost-after-cut") lost[variant]++;
      }
    }
    const n = SEEDS.length;
    const p = fisherExact(lost.short, n - lost.short, lost.detailed, n - lost.detailed);
    console.log(
      `[stand-in post-cut] lost track at rate 0.4: short ${lost.short}/${n}, detailed ${lost.detailed}/${n}, no cut ${lost.none}/${n}; Fisher exact p=${p.toExponential(2)}`,
    );
    // Without a cut nothing is lost; the short string near the configured 0.4, the detailed near 0.1.
    expect(lost.none).toBe(0);
    expect(lost.short / n).toBeGreaterThan(0.25);
    expect(lost.short / n).toBeLessThan(0.55);
    expect(lost.detailed / n).toBeLessThan(0.2);
    expect(p).toBeLessThan(0.001);
  }, 120_000);
});
