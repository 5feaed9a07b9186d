import { afterEach, describe, expect, it } from "vitest";
import { createAgenticLlmVerifier } from "../../../packages/models/src/llm/agentic-verifier.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import { createSimDesk, getSimDeskTask, type SimDesk } from "../../../packages/simdesk/src/simdesk.ts";
import type { AxNode, Observation } from "../../../packages/core/src/observation.ts";
import { withProbes } from "../../../packages/evaluation/src/probes/with-probes.ts";
import { requestText, scriptedModel, tempBlobs } from "./fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[]) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script);
  server = s.server;
  const desk = createSimDesk({ blobs });
  return { blobs, model: s.model, desk };
}

function find(root: AxNode | undefined, pred: (n: AxNode) => boolean): AxNode {
  const stack = root ? [root] : [];
  while (stack.length) {
    const n = stack.pop()!;
    if (pred(n)) return n;
    stack.push(...(n.children ?? []));
  }
  throw new Error("node not found");
}
const centre = (n: AxNode) => ({
  x: Math.round(n.bounds![0] + n.bounds![2] / 2),
  y: Math.round(n.bounds![1] + n.bounds![3] / 2),
});
const page = (desk: SimDesk) => desk.getState().windows.find((w) => w.id === "settings")!.view;

describe("createAgenticLlmVerifier on SimDesk over HTTP", () => {
  it("switches to another settings tab to look, switches back, and returns a match backed by what it saw", async () => {
    const { blobs, model, desk } = await setup([]);
    const target = await desk.reset(getSimDeskTask("settings-revert-location"));
    const before = desk.stateHash();
    const privacy = centre(find(target.axTree, (n) => n.role === "tab" && n.name === "Privacy"));
    server!.push(
      {
        text: JSON.stringify({
          probe: { type: "CLICK", ...privacy },
          why: "the Location switch is on the Privacy page",
        }),
      },
      {
        text: JSON.stringify({
          verdict: "match",
          evidence: [
            { source: "probe-1", fact: "Privacy page: Location services on in both" },
            { source: "current", fact: "Appearance page shown as in TARGET" },
          ],
          reason: "same pages and values",
        }),
        expect: (req) => {
          expect(req.images).toHaveLength(3);
          expect(requestText(req.body)).toContain(`probe-1, after CLICK(${privacy.x},${privacy.y}`);
        },
      },
    );
    const current = await desk.observe();
    const v = await createAgenticLlmVerifier({ model }).verify({ target, current, blobs, env: desk });
    expect(v.verdict).toBe("match");
    expect(v.evidence).toEqual([
      "probe-1: Privacy page: Location services on in both",
      "current: Appearance page shown as in TARGET",
    ]);
    expect(v.probes).toEqual([
      { action: expect.stringMatching(/^CLICK\(/), why: "the Location switch is on the Privacy page" },
    ]);
    expect(v.viewRestored).toEqual({ ssim: 1, restored: true });
    expect(v.prompt).toBe("agentic-state-verifier@1");
    expect(v.usage).toHaveLength(2);
    // the probe really ran (the model saw the Privacy page), and was undone
    expect(server!.requests[1].images[2].sha256).not.toBe(server!.requests[1].images[1].sha256);
    expect(page(desk)).toEqual({ app: "settings", settings: { page: "appearance" } });
    expect(desk.stateHash()).toBe(before);
    server!.verify();
  });

  it("refuses a probe that could change the state, runs nothing, and drops findings about captures that never happened", async () => {
    const { blobs, model, desk } = await setup([]);
    const target = await desk.reset(getSimDeskTask("settings-revert-location"));
    const before = desk.stateHash();
    const toggle = centre(find(target.axTree, (n) => /animations/i.test(n.name) && !!n.bounds && !n.children));
    server!.push(
      { text: JSON.stringify({ probe: { type: "CLICK", ...toggle }, why: "flip it to see" }) },
      {
        text: JSON.stringify({ probe: { type: "PRESS", key: "delete" }, why: "x" }),
        expect: (req) => expect(requestText(req.body)).toMatch(/Refused, not run: .* not a menu or a tab/),
      },
      {
        text: JSON.stringify({
          verdict: "mismatch",
          evidence: [{ source: "probe-1", fact: "Location is off" }],
          reason: "differs",
        }),
      },
    );
    const v = await createAgenticLlmVerifier({ model }).verify({ target, current: target, blobs, env: desk });
    expect(v.probes.map((p) => p.refused)).toEqual([
      expect.stringMatching(/not a menu or a tab/),
      expect.stringMatching(/key "delete" may change the state/),
    ]);
    expect(v.verdict).toBe("abstain");
    expect(v.reason).toMatch(/without attested evidence \(1 finding\(s\) cited unknown sources\)/);
    expect(v.viewRestored).toBeUndefined();
    expect(desk.stateHash()).toBe(before);
    server!.verify();
  });

  it("turns a verdict into a mismatch when a probe cannot be undone (Escape closed a menu that was open at the target)", async () => {
    const { blobs, model, desk } = await setup([]);
    let obs: Observation = await desk.reset(getSimDeskTask("settings-revert-location"));
    obs = (
      await desk.step({
        type: "CLICK",
        ...centre(find(obs.axTree, (n) => n.name === "Launch Text Editor")),
        button: "left",
        numClicks: 1,
      })
    ).observation;
    obs = (
      await desk.step({
        type: "CLICK",
        ...centre(find(obs.axTree, (n) => n.role === "menu" && n.name === "File")),
        button: "left",
        numClicks: 1,
      })
    ).observation;
    expect(desk.getState().menu).toMatchObject({ win: "editor", name: "File" });
    server!.push(
      { text: JSON.stringify({ probe: { type: "PRESS", key: "escape" }, why: "close the menu to see the document" }) },
      {
        text: JSON.stringify({
          verdict: "match",
          evidence: [{ source: "probe-1", fact: "document text equal" }],
          reason: "same",
        }),
      },
    );
    const v = await createAgenticLlmVerifier({ model }).verify({ target: obs, current: obs, blobs, env: desk });
    expect(desk.getState().menu).toBeUndefined();
    expect(v.verdict).toBe("mismatch");
    expect(v.viewRestored!.restored).toBe(false);
    expect(v.reason).toMatch(/could not be undone .* the model had said match/);
  });

  it("shows the probe report to the model and accepts findings cited from it", async () => {
    const { blobs, model, desk } = await setup([]);
    const env = withProbes(desk, { blobs });
    const target = await env.reset(getSimDeskTask("settings-revert-location"));
    const s = desk.getState();
    s.fs["/home/user/Documents/notes.txt"] = { type: "file", text: "changed\n" };
    desk.setState(s);
    const current = await env.observe();
    server!.push({
      text: JSON.stringify({
        verdict: "mismatch",
        evidence: [{ source: "report", fact: "notes.txt content hash differs" }],
        reason: "a document changed on disk",
      }),
      expect: (req) =>
        expect(requestText(req.body)).toMatch(
          /PROBE REPORT \(target vs current\):\ndiffers file:\/home\/user\/Documents\/notes.txt: target size=28/,
        ),
    });
    const v = await createAgenticLlmVerifier({ model, maxProbes: 0 }).verify({ target, current, blobs, env });
    expect(v).toMatchObject({ verdict: "mismatch", evidence: ["report: notes.txt content hash differs"], probes: [] });
    server!.verify();
  });

  it("without a live environment it cannot probe: a probe request is an abstention", async () => {
    const { blobs, model, desk } = await setup([
      {
        text: JSON.stringify({ probe: { type: "PRESS", key: "tab" }, why: "look" }),
        expect: (req) => expect(requestText(req.body)).toContain("No probing actions are available here"),
      },
    ]);
    const obs = await desk.reset(getSimDeskTask("settings-revert-location"));
    const v = await createAgenticLlmVerifier({ model }).verify({ target: obs, current: obs, blobs });
    expect(v.verdict).toBe("abstain");
    expect(v.reason).toMatch(/after its 0 probing action/);
    server!.verify();
  });

  it("rejects bad options with a ConfigError naming the field", async () => {
    const { model } = await setup([]);
    expect(() => createAgenticLlmVerifier({ model, maxProbes: -1 })).toThrow(/maxProbes/);
  });
});
