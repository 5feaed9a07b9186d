/**
 * State probes on the real desktop: what a screenshot cannot show (a saved file, a moved caret)
 * is caught by the probe verifier, and a selection left in place shows in the PRIMARY selection
 * and the AT-SPI caret digest. The full
 * measured table is produced by experiments/scripts/measure-probes.ts (README, recovery evaluation).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { loadProbeReport } from "../../../../packages/core/src/probes/report.ts";
import { withProbes } from "../../../../packages/evaluation/src/probes/with-probes.ts";
import { createProbeVerifier } from "../../../../packages/evaluation/src/probes/verifier.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import { createX11Desktop } from "../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../packages/desktops/src/x11/desktop-environment.ts";
import { X11_PROBE_SCENARIOS, runProbeScenario } from "../../../../experiments/probes/x11-scenarios.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";
import { createAgenticLlmVerifier } from "../../../../packages/models/src/llm/agentic-verifier.ts";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { startScriptedOpenAIServer } from "../../../../packages/testing/src/scripted-openai-server.ts";

const tools = systemTools("the X11 probe tests", X11_TOOLS);
const dir = mkdtempSync(join(tmpdir(), "retrace-x11-probes-"));
const blobs = new BlobStore({ dir: join(dir, "blobs") });
const scenario = (id: string) => X11_PROBE_SCENARIOS.find((s) => s.id === id)!;

describe.runIf(tools.run)("state probes on the X11 desktop (real apps)", () => {
  let env: DesktopEnvironment;
  beforeAll(() => {
    tools.assert();
    env = withProbes(createX11Desktop({ blobs }), { blobs });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records files with size and hash, the focused window, the clipboard and AT-SPI digests with each observation", async () => {
    const obs = await env.reset(desktopTask("mousepad-append-line")!);
    const report = await loadProbeReport(blobs, obs.probe!);
    expect(report.env).toBe("x11");
    expect(report.items["file:notes.txt"]).toMatch(/^size=28 sha256=[0-9a-f]{16}$/);
    expect(report.items.focus).toBe("~/notes.txt - Mousepad");
    expect(report.items.clipboard).toBe("empty");
    expect(report.items.selection).toBe("empty");
    expect(report.items["ax:mousepad:caret"]).toMatch(/^\d+ carets 0 with selection [0-9a-f]{16}$/);
    expect(report.items["ax:mousepad:text"]).toMatch(/^\d+ values [0-9a-f]{16}$/);
    expect(report.errors).toBeUndefined();
  }, 60_000);

  it("catches a hidden-file difference after a visually perfect restoration (typo saved, then deleted on screen only)", async () => {
    const r = await runProbeScenario(env, blobs, scenario("mousepad-saved-typo-deleted"));
    expect(r.ssim).toBeGreaterThanOrEqual(0.99); // SSIM calls it restored
    expect(r.ssimRestored).toBe(true);
    expect(r.probe.verdict).toBe("mismatch");
    const file = r.probe.comparison!.differed.find((d) => d.key === "file:notes.txt")!;
    expect(file.target).toMatch(/^size=28 /);
    expect(file.current).toMatch(/^size=29 /);
    expect(r.probe.evidence).toContain(`differs file:notes.txt: target ${file.target} | current ${file.current}`);
    expect((await env.desktop.readHomeFile("notes.txt"))?.toString()).toBe("Shopping list\n- milk\n- eggs\nX");
  }, 90_000);

  it("confirms a true restoration (typo deleted and the file saved again) on both screen and probes", async () => {
    const r = await runProbeScenario(env, blobs, scenario("mousepad-saved-then-undone-and-saved"));
    expect(r.ssimRestored).toBe(true);
    expect(r.probe.verdict).toBe("match");
    expect(r.probe.comparison!.matched).toContain("file:notes.txt");
  }, 90_000);

  it("a selection left in place differs in the PRIMARY selection and the AT-SPI caret digest (SSIM < 0.99 sees it too)", async () => {
    const r = await runProbeScenario(env, blobs, scenario("mousepad-select-all-left"));
    expect(r.ssim).toBeLessThan(0.99);
    expect(r.probe.verdict).toBe("mismatch");
    const differed = r.probe.comparison!.differed;
    expect(differed.map((d) => d.key).sort()).toEqual(["ax:mousepad:caret", "selection"]);
    const sel = differed.find((d) => d.key === "selection")!;
    expect(sel.target).toBe("empty");
    expect(sel.current).toMatch(/^text size=28 sha256=[0-9a-f]{16}$/); // the whole 28-byte document is selected
    expect(differed.find((d) => d.key === "ax:mousepad:caret")!.current).toMatch(
      /^\d+ carets [1-9]\d* with selection /,
    );
  }, 90_000);

  it("a caret moved to the top is invisible to SSIM (>= 0.99) and caught by the caret digest; ignoring ax:*:caret turns it into a match", async () => {
    const r = await runProbeScenario(env, blobs, scenario("mousepad-caret-moved"));
    expect(r.ssimRestored).toBe(true);
    expect(r.probe.verdict).toBe("mismatch");
    expect(r.probe.comparison!.differed.map((d) => d.key)).toEqual(["ax:mousepad:caret"]);
    const target = await env.reset(desktopTask("mousepad-append-line")!);
    await env.step({ type: "HOTKEY", keys: ["ctrl", "home"] });
    const moved = await env.observe();
    const ignoring = await createProbeVerifier({ ignore: ["ax:*:caret"] }).verify({
      target,
      current: moved,
      blobs,
      env,
    });
    expect(ignoring.verdict).toBe("match");
    expect(ignoring.comparison!.ignored).toContain("ax:mousepad:caret");
  }, 90_000);

  it("the agentic LLM verifier opens mousepad's menu to look, closes it again, and the screen is as before", async () => {
    const server = await startScriptedOpenAIServer({
      script: [
        { text: JSON.stringify({ probe: { type: "PRESS", key: "f10" }, why: "check the menu" }) },
        {
          text: JSON.stringify({
            verdict: "match",
            evidence: [
              { source: "probe-1", fact: "File menu open, same document" },
              { source: "report", fact: "file:notes.txt matches" },
            ],
            reason: "same",
          }),
          expect: (req) => expect(req.images).toHaveLength(3),
        },
      ],
    });
    try {
      const model = createOpenAIChatModel({
        model: "scripted-vlm",
        blobs,
        baseURL: server.url,
        apiKey: "test-key",
        maxRetries: 0,
        timeoutMs: 10_000,
      });
      const target = await env.reset(desktopTask("mousepad-append-line")!);
      const v = await createAgenticLlmVerifier({ model }).verify({ target, current: target, blobs, env });
      // the probe really opened a menu (the model saw a different screen) and was undone
      expect(server.requests[1].images[2].sha256).not.toBe(server.requests[1].images[1].sha256);
      expect(v.viewRestored!.restored).toBe(true);
      expect(v).toMatchObject({
        verdict: "match",
        evidence: ["probe-1: File menu open, same document", "report: file:notes.txt matches"],
      });
      server.verify();
    } finally {
      await server.close();
    }
  }, 90_000);
});
