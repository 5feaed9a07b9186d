/**
 * The production detection preset against the stand-in (retrace's sampling model server) on 127.0.0.1
 * behind a recording proxy: the production preset's judge gets fewer calls than there are steps, its
 * requests show only the last-k window with downscaled screenshots, and two consecutive judge requests
 * share a byte-identical prefix (system + task + earlier history). Every path taking the preset:
 * detection-preset-paths.int.test.ts and detection-preset-configs.int.test.ts; treeDiffText: tree-diff-text.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createDetectionPreset, PRODUCTION_DETECTION } from "../../../packages/models/src/llm/detection-preset.ts";
import { windowStart } from "../../../packages/models/src/llm/detector.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { tempBlobs } from "./fixtures.ts";
import {
  episode,
  images,
  judge,
  judgeBodies,
  pngSize,
  proxy,
  shownRange,
  task,
  userParts,
  useStandInBehindProxy,
  watch,
} from "./detection-preset-fixtures.ts";

useStandInBehindProxy();

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
