/**
 * The detection presets on every path, against the stand-in (retrace's sampling model server) on
 * 127.0.0.1 behind a recording proxy: the production preset's judge gets fewer calls than there
 * are steps, its requests show only the last-k window with downscaled screenshots, and two
 * consecutive judge requests share a byte-identical prefix (system + task + earlier history).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { createDetectionPreset, PRODUCTION_DETECTION } from "../../../packages/models/src/llm/detection-preset.ts";
import { treeDiffText, windowStart } from "../../../packages/models/src/llm/detector.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import { resolveOptions as resolveMiddlewareOptions } from "../../../packages/langchain/src/options.ts";
import { resolveSdkOptions } from "../../../packages/sdk-shared/src/options.ts";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { createAgent, validateAgentSpec } from "../../../experiments/agents/registry.ts";
import { AgentSpecSchema } from "../../../experiments/agents/spec.ts";
import { checkConfigAgents, configAgents, fillConfigModels } from "../../../experiments/config/agents.ts";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runExperiment } from "../../../experiments/runner/experiment.ts";
import { endToEndConditions, sweepConditions } from "../../../experiments/runner/conditions.ts";
import type { EndToEndConfig, SweepConfig } from "../../../experiments/config/schema.ts";
import { RecoveryOptionsSchema } from "../../../packages/core/src/episode.ts";
import { createSimDeskRuntime } from "../../../experiments/runtime/simdesk.ts";
import { benchConfig } from "../../../experiments/bench/token-overhead.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";
import { ToyDesk, createToyPolicy, createToyRecoverer, newBlobs } from "../../graphs/fixtures/toy.ts";
import { tempBlobs } from "./fixtures.ts";

let standIn: StandInServer;
let proxy: RecordingProxy;
beforeAll(async () => {
  standIn = await startStandInServer({ seed: 0 });
  proxy = await startRecordingProxy(standIn.origin);
});
afterAll(async () => {
  await proxy?.close();
  await standIn?.close();
});

const task = { id: "t-preset", instruction: "Open the Documents folder and rename report.txt to final.txt" };
const judge = (blobs: BlobStore) =>
  createOpenAIChatModel({
    model: "retrace-stand-in",
    blobs,
    baseURL: proxy.url,
    apiKey: "test-key",
    maxRetries: 0,
    timeoutMs: 10_000,
  });
const isJudge = (b: Record<string, any>) => JSON.stringify(b.messages?.[0] ?? "").includes("off_track");
const judgeBodies = (from: number) => proxy.bodies.slice(from).filter(isJudge);
const userParts = (b: Record<string, any>): any[] => b.messages.find((m: any) => m.role === "user").content;
const images = (b: Record<string, any>) => userParts(b).filter((p) => p.type === "image_url");
const pngSize = (dataUrl: string) => {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};
const shownRange = (b: Record<string, any>) => {
  const m = /the screens after steps (\d+) to (\d+) are shown above/.exec(userParts(b).at(-1).text)!;
  return { first: Number(m[1]), last: Number(m[2]) };
};

/** A 1280x800 screenshot of one shade, stored. */
async function screen(blobs: BlobStore, shade: number): Promise<Observation> {
  const png = await sharp({
    create: {
      width: 1280,
      height: 800,
      channels: 3,
      background: { r: shade % 256, g: (shade * 7) % 256, b: (shade * 3) % 256 },
    },
  })
    .png()
    .toBuffer();
  return { screenshot: await blobs.put(png), width: 1280, height: 800 };
}

/** n steps of clicks; the clicks at `noEffect` leave the screen as it was. Returns the history and the n+1 screens. */
async function episode(
  blobs: BlobStore,
  n: number,
  noEffect: number[] = [],
): Promise<{ history: HistoryEntry[]; screens: Observation[] }> {
  const screens: Observation[] = [await screen(blobs, 5)];
  for (let i = 1; i <= n; i++)
    screens.push(noEffect.includes(i - 1) ? screens[i - 1] : await screen(blobs, 5 + 20 * i));
  const history = Array.from({ length: n }, (_, i) => ({
    step: i,
    observation: screens[i],
    actions: [{ type: "CLICK" as const, x: 100 + 10 * i, y: 200, button: "left" as const, numClicks: 1 }],
  }));
  return { history, screens };
}

/** Ask `d` after every step 1..n, as the runtime does. */
async function watch(
  d: ErrorDetector,
  blobs: BlobStore,
  history: HistoryEntry[],
  screens: Observation[],
): Promise<void> {
  for (let t = 1; t <= history.length; t++)
    await d.detect({ task, history: history.slice(0, t), observation: screens[t], step: t, tick: t, blobs });
}

describe("the production detection preset against the stand-in", () => {
  it("asks the judge on fewer steps than there are, shows only the last-k window, downscaled; the paper preset asks every step at full size", async () => {
    const blobs = tempBlobs();
    const { history, screens } = await episode(blobs, 14, [3, 8]);
    const from = proxy.bodies.length;
    await watch(createDetectionPreset({ preset: "production", model: judge(blobs) }), blobs, history, screens);
    const prod = judgeBodies(from);
    expect(prod.length).toBeGreaterThan(0);
    expect(prod.length).toBeLessThan(history.length);
    for (const b of prod) {
      const { first, last } = shownRange(b);
      expect(first).toBe(windowStart(last + 1, PRODUCTION_DETECTION.historySteps));
      expect(last - first + 1).toBeLessThanOrEqual(3); // k..2k-1 steps of screens, k = 2
      expect(images(b)).toHaveLength(last - first + 1);
      for (const p of images(b)) expect(pngSize(p.image_url.url)).toEqual({ width: 768, height: 480 });
      // Every step's action line is there (cheap text); no screen before the window.
      expect(userParts(b).filter((p) => p.type === "text" && /^Step \d+ action: /.test(p.text))).toHaveLength(last + 1);
    }

    const from2 = proxy.bodies.length;
    await watch(createDetectionPreset({ preset: "paper", model: judge(blobs) }), blobs, history, screens);
    const paper = judgeBodies(from2);
    expect(paper).toHaveLength(history.length);
    expect(pngSize(images(paper[0])[0].image_url.url)).toEqual({ width: 1280, height: 800 });
    expect(userParts(paper.at(-1)!)[0].text).toContain("numbered 0 to 13. Below is each step's action"); // the paper prompt (error-detector.user@1)
  });

  it("two consecutive judge requests share a byte-identical prefix: system, task and the earlier history", async () => {
    const blobs = tempBlobs();
    const { history, screens } = await episode(blobs, 9);
    const d = createDetectionPreset({ preset: "production", model: judge(blobs), gates: [{ kind: "every-k", k: 1 }] });
    const from = proxy.bodies.length;
    // two calls inside one window (k = 2: the window's start stays at 6 for 8 and 9 steps)
    expect([8, 9].map((t) => windowStart(t, PRODUCTION_DETECTION.historySteps))).toEqual([6, 6]);
    for (const t of [8, 9])
      await d.detect({ task, history: history.slice(0, t), observation: screens[t], step: t, tick: t, blobs });
    const [a, b] = judgeBodies(from);
    expect(JSON.stringify(b.messages[0])).toBe(JSON.stringify(a.messages[0]));
    const pa = userParts(a);
    const pb = userParts(b);
    const prefix = JSON.stringify(pa.slice(0, -1)); // all but the question
    expect(JSON.stringify(pb.slice(0, pa.length - 1))).toBe(prefix);
    expect(pa.length - 1).toBeGreaterThan(9); // task + 8 action lines + screens of the window
    expect(pb.length).toBeGreaterThan(pa.length); // b appends step 8 (its action and screen), then its question
    expect(
      JSON.stringify(b).startsWith(JSON.stringify(a).slice(0, JSON.stringify(a).indexOf(JSON.stringify(pa.at(-1))))),
    ).toBe(true);
  });

  it("with accessibility trees, a step's screen is the tree's changed lines", async () => {
    const blobs = tempBlobs();
    const obs = (names: string[]): Observation => ({
      screenshot: "0".repeat(64),
      width: 1280,
      height: 800,
      axTree: {
        role: "desktop frame",
        name: "Desktop",
        children: names.map((n) => ({ role: "button", name: n })),
      } as never,
    });
    const s0 = obs(["Files", "Editor"]);
    const s1 = obs(["Files", "Editor", "Save dialog"]);
    const history = [{ step: 0, observation: s0, actions: [{ type: "HOTKEY" as const, keys: ["ctrl", "s"] }] }];
    const from = proxy.bodies.length;
    const d = createDetectionPreset({
      preset: "production",
      model: judge(blobs),
      observation: "a11y_tree",
      gates: [{ kind: "every-k", k: 1 }],
    });
    await d.detect({ task, history, observation: s1, step: 1, tick: 1, blobs });
    const [b] = judgeBodies(from);
    const text = userParts(b)
      .map((p) => p.text)
      .join("\n");
    expect(text).toMatch(/Screen after step 0 \(changed lines of the accessibility tree\):\n\+ button\tSave dialog/);
    expect(text).not.toContain("button\tFiles");
  });

  it("treeDiffMaxLines caps a big screen change at that many changed lines and says how many were left out", async () => {
    const blobs = tempBlobs();
    const obs = (names: string[]): Observation => ({
      screenshot: "0".repeat(64),
      width: 1280,
      height: 800,
      axTree: {
        role: "desktop frame",
        name: "Desktop",
        children: names.map((n) => ({ role: "button", name: n })),
      } as never,
    });
    const before = obs(["Files", ...Array.from({ length: 10 }, (_, i) => `Old ${i}`)]);
    const after = obs(["Files", ...Array.from({ length: 12 }, (_, i) => `New ${i}`)]);
    const history = [
      {
        step: 0,
        observation: before,
        actions: [{ type: "CLICK" as const, x: 10, y: 10, button: "left" as const, numClicks: 1 }],
      },
    ];
    const ask = async (extra: object) => {
      const from = proxy.bodies.length;
      await createDetectionPreset({
        preset: "production",
        model: judge(blobs),
        observation: "a11y_tree",
        gates: [{ kind: "every-k", k: 1 }],
        ...extra,
      }).detect({ task, history, observation: after, step: 1, tick: 1, blobs });
      const [b] = judgeBodies(from);
      return userParts(b)
        .map((p) => p.text ?? "")
        .join("\n");
    };
    const full = await ask({ treeDiffMaxLines: 10_000 });
    const capped = await ask({ treeDiffMaxLines: 6 });
    const preset = await ask({});
    const changed = (t: string) =>
      t
        .split("\n")
        .filter((l) => /^[-+] button\t/.test(l))
        .map((l) => l.trimEnd());
    expect(changed(full)).toHaveLength(22);
    expect(changed(capped)).toEqual([
      "- button\tOld 0",
      "- button\tOld 1",
      "- button\tOld 2",
      "+ button\tNew 0",
      "+ button\tNew 1",
      "+ button\tNew 2",
    ]);
    expect(capped).toContain("(16 more changed lines not shown)");
    // the production preset's default: 4 lines (PRODUCTION_DETECTION.treeDiffMaxLines)
    expect(PRODUCTION_DETECTION.treeDiffMaxLines).toBe(4);
    expect(changed(preset)).toHaveLength(4);
    expect(preset).toContain("(18 more changed lines not shown)");
    expect(capped.length).toBeLessThan(full.length);
    // the stand-in still answers (a judge call that parses), and a paper preset refuses the field
    expect(() => createDetectionPreset({ preset: "paper", model: judge(blobs), treeDiffMaxLines: 6 })).toThrow(
      /^detector\.treeDiffMaxLines: only the production preset takes "treeDiffMaxLines"/,
    );
  });
});

describe("treeDiffText", () => {
  const tree = (lines: string[]) => ["header", ...lines].join("\n");
  it("keeps every changed line without a cap, and says so when nothing changed", () => {
    expect(treeDiffText(tree(["a", "b"]), tree(["a", "c"]))).toBe("- b\n+ c");
    expect(treeDiffText(tree(["a"]), tree(["a"]), 4)).toBe("(no change)");
    expect(treeDiffText(tree(["a", "b"]), tree(["a", "c"]), 2)).toBe("- b\n+ c");
  });
  it("with a cap, shares it between removed and added lines, giving a short side's share to the other", () => {
    const many = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    expect(treeDiffText(tree(many("x", 5)), tree(many("y", 5)), 4).split("\n")).toEqual([
      "- x0",
      "- x1",
      "+ y0",
      "+ y1",
      "(6 more changed lines not shown)",
    ]);
    expect(treeDiffText(tree(["k"]), tree(["k", ...many("y", 6)]), 4).split("\n")).toEqual([
      "+ y0",
      "+ y1",
      "+ y2",
      "+ y3",
      "(2 more changed lines not shown)",
    ]);
    expect(treeDiffText(tree(["x0", "k"]), tree(["k", ...many("y", 6)]), 4).split("\n")).toEqual([
      "- x0",
      "+ y0",
      "+ y1",
      "+ y2",
      "(3 more changed lines not shown)",
    ]);
  });
});

describe("every path takes the preset", () => {
  it("withRecovery (the graph): the judge is asked on fewer steps than the episode has", async () => {
    const blobs = newBlobs();
    const word = "abcdefghijkl";
    const agent = withRecovery(createToyPolicy({ word }), {
      detector: { preset: "production", model: judge(blobs) },
      recoverer: createToyRecoverer(),
    });
    const from = proxy.bodies.length;
    const r = await agent.run({
      task: { id: "toy-long", instruction: `Type ${word}`, env: "toy", setup: { word: "" }, evaluator: { word } },
      env: new ToyDesk(blobs),
      blobs,
    });
    const asked = judgeBodies(from);
    expect(r.accounting.forwardSteps).toBeGreaterThanOrEqual(word.length);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(r.accounting.forwardSteps);
    expect(r.accounting.detectorGates?.asked).toBe(asked.length);
    for (const b of asked) expect(images(b).length).toBeLessThanOrEqual(5);
  });

  it("the LangChain middleware and the SDK integrations' options build the preset's detector", async () => {
    const blobs = tempBlobs();
    const model = judge(blobs);
    const mw = resolveMiddlewareOptions({
      detector: { preset: "production", model },
      observe: async () => screen(blobs, 1),
      restore: async () => ({ restored: true }) as never,
      blobs,
    });
    const sdk = resolveSdkOptions("createAgentsRecovery", {
      env: new ToyDesk(blobs),
      blobs,
      detector: { preset: "production", model, historySteps: 2 },
      restore: async () => ({ restored: true }) as never,
    });
    const { history, screens } = await episode(blobs, 6);
    for (const d of [mw.detector, sdk.detector]) {
      expect(d.name).toMatch(/^cascade\(no-effect,loop,visual-change,every-k,before-done -> llm-detector\)$/);
      const from = proxy.bodies.length;
      await watch(d, blobs, history, screens);
      const asked = judgeBodies(from);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.length).toBeLessThan(history.length);
      expect(userParts(asked[0])[0].text).toContain("Task given to the agent:");
    }
    expect(() =>
      resolveSdkOptions("createAgentsRecovery", {
        env: new ToyDesk(blobs),
        blobs,
        detector: { preset: "fast" } as never,
        restore: async () => ({ restored: true }) as never,
      }),
    ).toThrow(/^createAgentsRecovery: option detector\.preset: expected "paper" or "production", got "fast"$/);
  });

  it("experiment configs: `detector: { preset, model }` is a kind of its own, with its judge's model spec", async () => {
    const spec = AgentSpecSchema.parse({
      preset: "production",
      model: { model: "retrace-stand-in", baseUrl: standIn.url, observation: "a11y_tree" },
      historySteps: 2,
    });
    expect(spec.kind).toBe("preset");
    validateAgentSpec("detector", spec, "config.pairs.0.detector");
    const blobs = tempBlobs();
    const d = createAgent("detector", spec, { blobs } as never);
    expect(d.name).toContain("cascade(");
    expect(() =>
      validateAgentSpec(
        "detector",
        { kind: "preset", preset: "paper", historySteps: 3, model: { model: "m", baseUrl: standIn.url } },
        "config.pairs.0.detector",
      ),
    ).toThrow(/^config\.pairs\.0\.detector\.historySteps: only the production preset takes "historySteps"/);
    expect(() =>
      validateAgentSpec(
        "detector",
        { kind: "preset", preset: "production", model: { model: "m", baseUrl: standIn.url, temperature: 9 } },
        "config.pairs.0.detector",
      ),
    ).toThrow(ConfigError);
    expect(() =>
      validateAgentSpec(
        "forward",
        { kind: "preset", preset: "production", model: { model: "m" } },
        "config.pairs.0.forward",
      ),
    ).toThrow(/forward.*kind: preset cannot be a forward/);
  });

  it("experiment configs: a paper pair and a production pair compare in one run through the runner", async () => {
    const judgeSpec = { model: "retrace-stand-in", observation: "a11y_tree", temperature: 0.7 };
    const pair = (name: string, preset: string) => ({
      name,
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { preset, model: judgeSpec },
      ...(name === "production" ? { baseline: false } : { maxRecoveryIterations: [2] }),
    });
    const c = fillConfigModels(
      parseExperimentConfig({
        kind: "end-to-end",
        name: "preset-test",
        env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
        seeds: { count: 1 },
        options: { maxForwardSteps: 15 },
        pairs: [pair("paper", "paper"), pair("production", "production")],
      }),
      { baseUrl: proxy.url },
    );
    expect(configAgents(c).find((a) => a.path === "config.pairs.1.detector.model")?.spec).toMatchObject({
      kind: "model",
      baseUrl: proxy.url,
    });
    checkConfigAgents(c, "simdesk");
    const dir = mkdtempSync(join(tmpdir(), "retrace-preset-run-"));
    try {
      const from = proxy.bodies.length;
      const run = await runExperiment(c, createSimDeskRuntime(), { out: join(dir, "run"), workers: 1 });
      expect(run.lines.map((l) => l.condition).sort()).toEqual([
        "paper.max-rec-2",
        "paper.max-rec-2",
        "paper.no-recovery",
        "paper.no-recovery",
        "production.max-rec-1",
        "production.max-rec-1",
      ]);
      const lines = (cond: string) => run.lines.filter((l) => l.condition === cond);
      const calls = (cond: string) => lines(cond).reduce((s, l) => s + (l.models?.detector?.calls ?? 0), 0);
      const steps = (cond: string) => lines(cond).reduce((s, l) => s + l.forwardSteps, 0);
      expect(calls("production.max-rec-1")).toBeGreaterThan(0);
      expect(calls("production.max-rec-1")).toBeLessThan(steps("production.max-rec-1"));
      const bodies = judgeBodies(from);
      const prod = bodies.filter((b) => userParts(b)[0].text.includes("Below is each step's action, oldest first"));
      expect(prod).toHaveLength(calls("production.max-rec-1"));
      expect(bodies.length - prod.length).toBe(calls("paper.max-rec-2"));
      const text = prod
        .map((b) =>
          userParts(b)
            .map((p) => p.text ?? "")
            .join("\n"),
        )
        .join("\n");
      expect(text).toContain("(changed lines of the accessibility tree):");
      expect(text).not.toContain("Accessibility tree:\n"); // no full tree in the production judge's requests
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the shipped stand-in config of the bench line validates, both presets with the judge filled from --base-url", () => {
    const c = fillConfigModels(parseExperimentConfig(benchConfig(48)), { baseUrl: standIn.url });
    checkConfigAgents(c, "simdesk");
    const detectors = configAgents(c).filter((a) => a.role === "detector");
    expect(detectors.map((a) => [a.path, a.spec.kind])).toEqual([
      ["config.pairs.0.detector", "preset"],
      ["config.pairs.0.detector.model", "model"],
      ["config.pairs.1.detector", "preset"],
      ["config.pairs.1.detector.model", "model"],
    ]);
    expect(detectors.map((a) => (a.spec as { preset?: string }).preset)).toEqual([
      "paper",
      undefined,
      "production",
      undefined,
    ]);
  });

  it("the production preset brings its recovery recipe on every path, under the caller's own knobs; the paper preset keeps the runtime's", () => {
    const blobs = tempBlobs();
    const model = judge(blobs);
    const prod = { preset: "production" as const, model };
    const restore = async () => ({ restored: true }) as never;
    const observe = async () => screen(blobs, 1);
    // withRecovery (and the graph it runs): 1 attempt of at most 5 steps
    expect(withRecovery(createToyPolicy(), { detector: prod }).options).toMatchObject({
      maxRecoveryIterations: 1,
      recoveryBudget: 5,
    });
    expect(
      withRecovery(createToyPolicy(), { detector: { ...prod, recoveryBudget: 7 }, maxRecoveryIterations: 2 }).options,
    ).toMatchObject({ maxRecoveryIterations: 2, recoveryBudget: 7 });
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options).toMatchObject({
      maxRecoveryIterations: 3,
      recoveryBudget: 10,
    });
    // the SDK integrations
    const sdk = (detector: object, extra: object = {}) =>
      resolveSdkOptions("createAgentsRecovery", {
        env: new ToyDesk(blobs),
        blobs,
        detector: detector as never,
        restore,
        ...extra,
      });
    expect(sdk(prod)).toMatchObject({ maxRecoveryIterations: 1, recoveryBudget: 5 });
    expect(sdk({ ...prod, maxRecoveryIterations: 3 }, { recoveryBudget: 4 })).toMatchObject({
      maxRecoveryIterations: 3,
      recoveryBudget: 4,
    });
    expect(sdk({ preset: "paper", model })).toMatchObject({ maxRecoveryIterations: 3, recoveryBudget: 10 });
    // the LangChain middleware (its restore routine is the user's, so only the cap applies)
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs }).maxRecoveryIterations).toBe(1);
    expect(
      resolveMiddlewareOptions({ detector: prod, observe, restore, blobs, maxRecoveryIterations: 2 })
        .maxRecoveryIterations,
    ).toBe(2);
    // the repeat check: on with the production preset, off (the paper's) with the paper preset, the caller's own wins;
    // the SDK integrations hand it to the recovery sub-agent they build (recoverWithPolicy); the LangChain middleware's
    // restore routine is the user's (pass it to recoverWithPolicy there, like the budget)
    expect(withRecovery(createToyPolicy(), { detector: prod }).options.onRecoveryRepeat).toBe("stop");
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options.onRecoveryRepeat).toBe(
      "continue",
    );
    expect(
      withRecovery(createToyPolicy(), { detector: prod, onRecoveryRepeat: "continue" }).options.onRecoveryRepeat,
    ).toBe("continue");
    expect(sdk(prod).onRecoveryRepeat).toBe("stop");
    expect(sdk({ preset: "paper", model }).onRecoveryRepeat).toBe("continue");
    expect(sdk(prod, { onRecoveryRepeat: "continue" }).onRecoveryRepeat).toBe("continue");
    // the stuck stop (onStuck): on with the production preset on every path (the LangChain middleware too: it ends
    // the run itself), off (the paper's) with the paper preset, the caller's own wins
    expect(withRecovery(createToyPolicy(), { detector: prod }).options.onStuck).toBe("stop");
    expect(withRecovery(createToyPolicy(), { detector: { preset: "paper", model } }).options.onStuck).toBe("continue");
    expect(withRecovery(createToyPolicy(), { detector: prod, onStuck: "continue" }).options.onStuck).toBe("continue");
    expect(sdk(prod).onStuck).toBe("stop");
    expect(sdk({ preset: "paper", model }).onStuck).toBe("continue");
    expect(sdk(prod, { onStuck: "continue" }).onStuck).toBe("continue");
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs }).onStuck).toBe("stop");
    expect(resolveMiddlewareOptions({ detector: { preset: "paper", model }, observe, restore, blobs }).onStuck).toBe(
      "continue",
    );
    expect(resolveMiddlewareOptions({ detector: prod, observe, restore, blobs, onStuck: "continue" }).onStuck).toBe(
      "continue",
    );
    // bad values: one line naming the preset's field
    expect(() => withRecovery(createToyPolicy(), { detector: { ...prod, maxRecoveryIterations: -1 } })).toThrow(
      /^withRecovery: option "detector\.maxRecoveryIterations" must be >= 0$/,
    );
    expect(() => sdk({ ...prod, recoveryBudget: 0 })).toThrow(
      /^createAgentsRecovery: option "detector\.recoveryBudget" must be >= 1$/,
    );
    expect(() => sdk({ ...prod, recoveryBudget: "5" })).toThrow(
      /^createAgentsRecovery: option "detector\.recoveryBudget" /,
    );
  });

  it("experiment configs: the production preset's cap and budget fill only what neither the pair nor the config sets; bad values", () => {
    const judgeSpec = { model: "retrace-stand-in", observation: "a11y_tree" };
    const bare = {
      kind: "end-to-end",
      name: "caps",
      env: { kind: "simdesk", tasks: ["files-rename-folder"] },
      seeds: [0],
    };
    const base = { ...bare, maxRecoveryIterations: [3], options: { recoveryBudget: 10 } };
    const pair = (name: string, extra: object) => ({
      name,
      forward: { kind: "sim" },
      recovery: { kind: "sim" },
      baseline: false,
      ...extra,
    });
    // each condition's options as the runtime resolves them (what the user did not set is the runtime's default)
    const resolved = (o: object) => RecoveryOptionsSchema.parse(o);
    const idsOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map((c) => [
        c.id,
        resolved(c.options).maxRecoveryIterations,
        resolved(c.options).recoveryBudget,
      ]);
    const ids = (pairs: object[]) => idsOf(base, pairs);
    const paper = { preset: "paper", model: judgeSpec };
    const prod = { preset: "production", model: judgeSpec };
    // nothing set by the user: the recipe for production, the runtime's default (the paper's) otherwise
    expect(idsOf(bare, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      ["a.max-rec-1", 1, 10],
      ["a.max-rec-3", 3, 10],
      ["a.max-rec-5", 5, 10],
      ["b.max-rec-1", 1, 5],
    ]);
    // the config's explicit global caps and budget win over the recipe, for every pair
    expect(ids([pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      ["a.max-rec-3", 3, 10],
      ["b.max-rec-3", 3, 10],
    ]);
    expect(idsOf({ ...bare, maxRecoveryIterations: [1, 3, 5] }, [pair("b", { detector: prod })])).toEqual([
      ["b.max-rec-1", 1, 5],
      ["b.max-rec-3", 3, 5],
      ["b.max-rec-5", 5, 5],
    ]);
    expect(idsOf({ ...bare, options: { recoveryBudget: 7 } }, [pair("b", { detector: prod })])).toEqual([
      ["b.max-rec-1", 1, 7],
    ]);
    // the pair's own (its list, its options, its detector spec's fields) win over the config's
    expect(ids([pair("b", { detector: { ...prod, maxRecoveryIterations: 2, recoveryBudget: 6 } })])).toEqual([
      ["b.max-rec-2", 2, 6],
    ]);
    expect(ids([pair("b", { detector: prod, maxRecoveryIterations: [1, 5], options: { recoveryBudget: 8 } })])).toEqual(
      [
        ["b.max-rec-1", 1, 8],
        ["b.max-rec-5", 5, 8],
      ],
    );
    expect(ids([pair("c", { maxRecoveryIterations: [1] })])).toEqual([["c.max-rec-1", 1, 10]]);
    // a sweep: the caps are its axis; the budget as above
    const sweep = (options: object) =>
      sweepConditions(
        parseExperimentConfig({
          ...bare,
          kind: "sweep",
          pair: pair("s", { detector: prod }),
          params: { freezeWindow: [5] },
          maxRecoveryIterations: [1],
          baseline: false,
          options,
        }) as SweepConfig,
      ).map((c) => resolved(c.options).recoveryBudget);
    expect(sweep({})).toEqual([5]);
    expect(
      sweepConditions(
        parseExperimentConfig({
          ...bare,
          kind: "sweep",
          pair: pair("s", { detector: paper }),
          params: { freezeWindow: [5] },
          maxRecoveryIterations: [1],
          baseline: false,
        }) as SweepConfig,
      ).map((c) => resolved(c.options).recoveryBudget),
    ).toEqual([10]);
    expect(sweep({ recoveryBudget: 9 })).toEqual([9]);
    // the repeat check: the production recipe stops a repeating attempt unless the config or the pair says otherwise
    const repeatOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map(
        (c) => resolved(c.options).onRecoveryRepeat,
      );
    expect(repeatOf(base, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      "continue",
      "stop",
    ]);
    expect(repeatOf({ ...base, options: { onRecoveryRepeat: "continue" } }, [pair("b", { detector: prod })])).toEqual([
      "continue",
    ]);
    expect(repeatOf(base, [pair("a", { detector: paper, options: { onRecoveryRepeat: "stop" } })])).toEqual(["stop"]);
    const stuckOf = (config: object, pairs: object[]) =>
      endToEndConditions(parseExperimentConfig({ ...config, pairs }) as EndToEndConfig).map(
        (c) => resolved(c.options).onStuck,
      );
    expect(stuckOf(base, [pair("a", { detector: paper }), pair("b", { detector: prod })])).toEqual([
      "continue",
      "stop",
    ]);
    expect(stuckOf({ ...base, options: { onStuck: "continue" } }, [pair("b", { detector: prod })])).toEqual([
      "continue",
    ]);
    expect(stuckOf(base, [pair("a", { detector: paper, options: { onStuck: "stop" } })])).toEqual(["stop"]);
    expect(() => parseExperimentConfig({ ...base, pairs: [pair("c", { maxRecoveryIterations: [0] })] })).toThrow(
      /pairs\.0\.maxRecoveryIterations\.0/,
    );
    expect(() => parseExperimentConfig({ ...base, pairs: [pair("c", { maxRecoveryIterations: [1, 1] })] })).toThrow(
      /pairs\.0\.maxRecoveryIterations/,
    );
  });

  it("bad preset specs fail with one line naming the field", () => {
    const model = judge(tempBlobs());
    expect(() => createDetectionPreset({ preset: "paper", model, gates: [{ kind: "loop" }] })).toThrow(
      /^detector\.gates: only the production preset takes "gates"/,
    );
    expect(() => withRecovery(createToyPolicy(), { detector: { preset: "production" } as never })).toThrow(
      /^withRecovery: option detector \(preset production\): option "model" must be a ChatModel/,
    );
    expect(() => createDetectionPreset({ preset: "production", model, imageMaxSide: 10 })).toThrow(/imageMaxSide/);
  });
});
