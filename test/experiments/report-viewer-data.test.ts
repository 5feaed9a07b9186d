/**
 * The viewer's episode data: events read as sentences in episode step numbers, E and R flagged on
 * the forward steps they name, steps numbered across the whole episode (never restarting after a
 * restore), actions turned into marks, screenshots as URLs into the blob store, and the SSIM
 * heat map's block values.
 */
import { describe, expect, it } from "vitest";
import { viewerEpisode } from "../../experiments/report/viewer-episode.ts";
import { searchWords } from "../../experiments/report/viewer-search.ts";
import { aboutEpisode, plainText } from "../../experiments/report/viewer-sentences.ts";
import { blockSsim } from "../../experiments/report/ssim-maps.ts";
import { callStepIndex, lineDiff } from "../../experiments/report/viewer-calls.ts";
import type { CallRecord } from "../../experiments/agents/call-log.ts";
import { TRANSITION_PROMPT } from "../../packages/graphs/src/transition-notice.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import type { Action } from "../../packages/core/src/action.ts";

const h = (c: string) => c.repeat(64);
const click = (x: number, y: number): Action => ({ type: "CLICK", x, y, button: "left", numClicks: 1 });
const step = (seq: number, role: "forward" | "recovery", s: number, actions: Action[], attempt?: number) => ({
  seq,
  role,
  step: s,
  actions,
  before: h(String(seq % 10)),
  after: h(String((seq + 1) % 10)),
  ...(attempt ? { attempt } : {}),
});

const record = {
  key: "c/t/0",
  condition: "c",
  task: "t",
  instruction: "do it",
  seed: 0,
  success: true,
  score: 1,
  detail: "",
  stopReason: "done",
  simulated: true,
  trajectory: {
    taskId: "t",
    steps: [
      step(0, "forward", 0, [click(56, 18)]),
      step(1, "forward", 1, [click(125, 194)]),
      step(2, "forward", 2, [
        { type: "MOVE_TO", x: 10, y: 20 },
        { type: "DRAG_TO", x: 300, y: 40 },
      ]),
      step(3, "forward", 3, [{ type: "TYPING", text: "tasks.txt" }]),
      step(4, "recovery", 0, [{ type: "PRESS", key: "escape" }], 1),
      step(5, "forward", 1, [click(125, 194)], 1),
    ],
    events: [
      {
        afterSeq: 3,
        kind: "recovery-start",
        detail: {
          attempt: 1,
          restoration: "snapshot",
          errorStep: 2,
          recoveryStep: 1,
          reason: "wrong menu",
          confidence: 0.9,
          target: h("1"),
          selection: { reason: "R = E-1" },
        },
      },
      {
        afterSeq: 4,
        kind: "recovery-end",
        detail: {
          attempt: 1,
          mode: "model",
          restored: true,
          steps: 1,
          reason: "declared restored",
          observation: h("5"),
        },
      },
      {
        afterSeq: 4,
        kind: "truncate",
        detail: { attempt: 1, from: 4, to: 1, restored: true, notice: TRANSITION_PROMPT },
      },
    ],
  },
} as unknown as EpisodeRecord;

describe("viewer episode data", () => {
  it("numbers steps across the episode, flags E and R, and writes events as sentences", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    // one numbering: from 0, as the chips, events and badges use it
    expect(ep.steps.map((s) => s.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(ep.steps[2].flags).toEqual(["E1"]);
    expect(ep.steps[1].flags).toEqual(["R1"]);
    expect(ep.steps[4]).toMatchObject({ role: "recovery", attempt: 1 });
    expect(ep.events[0].text).toBe(
      "after step 3: the detector flagged step 2 (the models' step 2 too) as the first error (confidence 0.9): wrong menu; the selector chose to go back to the screen before step 1 (the models' step 1 too): R = E-1; recovery attempt 1 starts (snapshot restoration)",
    );
    // a record without `confirmation` (older runs) never says the restored state was confirmed
    expect(ep.events[1].text).toBe(
      "after step 4: recovery attempt 1 took 1 step: restored (confirmation not recorded) (declared restored)",
    );
    expect(ep.events[1]).toMatchObject({ target: `blobs/11/${h("1")}.png`, restored: `blobs/55/${h("5")}.png` });
    expect(ep.events[2].text).toMatch(
      /^after step 4: the policy's history was cut from 4 forward steps to 1 \(restored \(confirmation not recorded\)\); the next step is told: ".*step 1.*" \(the models' numbering\)$/,
    );
    expect(ep.steps[0].before).toBe(`blobs/00/${h("0")}.png`);
  });

  it("turns actions into marks: click points, drag paths, typed text", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    expect(ep.steps[0].marks).toEqual([{ t: "click", x: 56, y: 18, label: "click" }]);
    expect(ep.steps[2].marks).toEqual([{ t: "drag", x: 10, y: 20, x2: 300, y2: 40 }]);
    expect(ep.steps[3].marks).toEqual([{ t: "text", text: "tasks.txt" }]);
    expect(ep.steps[4].marks).toEqual([{ t: "text", text: "key escape" }]);
  });

  it("indexes each normalised word once for the search, without numbers, hashes or the row's own words", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    const words = searchWords(ep, undefined, "t c do it").split(" ");
    // split at non-letters as the viewer splits a query: PRESS(escape) and tasks.txt are found by their words
    for (const w of ["press", "escape", "tasks", "txt", "wrong", "menu", "detector"]) expect(words).toContain(w);
    expect(new Set(words).size).toBe(words.length);
    expect(words.filter((w) => /^\d+$|[^\p{L}\p{N}]/u.test(w) || w.length < 2)).toEqual([]);
    expect(words).not.toContain("it");
    expect(searchWords(ep, 30).length).toBeLessThanOrEqual(30);
  });

  it("scores identical blocks 1 and a changed block below 1", () => {
    const a = new Uint8Array(160 * 96).map((_, i) => (i * 7) % 251);
    const b = a.slice();
    for (let y = 0; y < 8; y++) for (let x = 8; x < 16; x++) b[y * 160 + x] = 255 - b[y * 160 + x];
    const map = blockSsim(a, b);
    expect(map).toHaveLength(20 * 12);
    expect(map[0]).toBe(1);
    expect(map[1]).toBeLessThan(0.5);
    expect(map.filter((v) => v < 1)).toHaveLength(1);
  });
});

describe("the context after a cut and each call's step", () => {
  it("shows the first forward step after the cut with the history kept and dropped and the transition string", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    expect(ep.steps.filter((s) => s.context).map((s) => s.n)).toEqual([5]);
    const c = ep.steps[5].context!;
    expect(c).toMatchObject({ attempt: 1, cutAfter: 4, from: 4, to: 1, restored: true });
    expect(c.kept).toHaveLength(1);
    // both numbers: the models' (forward history, restarting after a cut) and the viewer's
    expect(c.kept[0]).toMatch(/^the models' step 0 \(viewer step 0\): /);
    expect(c.dropped.map((t) => t.split(":")[0])).toEqual([
      "the models' step 1 (viewer step 1)",
      "the models' step 2 (viewer step 2)",
      "the models' step 3 (viewer step 3)",
    ]);
    expect(c.confirmation).toBe("restored (confirmation not recorded)");
    // the transition string's "step 1" is the models' step 1: the screen before viewer step 1
    expect(c.transitionStep).toBe(1);
    expect(c.transition).toMatch(/step 1/);
    expect(c.diff).toBeUndefined(); // simulated: no model messages to compare
  });

  it("places every call on the step trajectory.json names (its seq), or the step before when the episode has no step there", () => {
    const steps = record.trajectory.steps;
    const call = (seq: number, phase: CallRecord["phase"], extra: Partial<CallRecord> = {}) =>
      ({ seq, phase, ...extra }) as CallRecord;
    expect(callStepIndex(steps, call(1, "policy"))).toBe(1);
    expect(callStepIndex(steps, call(3, "detector"))).toBe(3);
    expect(callStepIndex(steps, call(4, "recoverer", { attempt: 1 }))).toBe(4);
    // the step the record names, whatever its role (the runtime records a claim with no action and a discarded proposal
    // on the step they followed)
    expect(callStepIndex(steps, call(5, "recoverer", { attempt: 1 }))).toBe(5);
    expect(callStepIndex(steps, call(3, "policy", { discarded: true }))).toBe(3);
    // a seq past the last step (the episode ended first): the last step before it
    expect(callStepIndex(steps, call(9, "policy"))).toBe(5);
    expect(callStepIndex(steps, { seq: null } as CallRecord)).toBe(-1);
  });

  it("shows a call log's calls on their steps with screenshots as blob URLs, and reads a malformed log as no calls", () => {
    const calls = [
      {
        seq: 1,
        phase: "policy",
        role: "policy",
        model: "m",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "go" },
              { type: "image", blob: h("7") },
            ],
          },
        ],
        reply: "click",
        inputTokens: 3,
        outputTokens: 1,
        latencyMs: 5,
        draw: { seed: 0, task: "t", role: "policy", ordinal: 0 },
      },
      {
        seq: 3,
        phase: "detector",
        role: "detector",
        model: "m",
        messages: "not a list",
        reply: "{}",
        inputTokens: 1,
        outputTokens: 1,
        latencyMs: 1,
      },
      {
        seq: 1,
        phase: "policy",
        role: "policy",
        model: "m",
        messages: [{ role: "user", content: [{ type: "image", blob: "../../etc/passwd" }] }],
        reply: "",
        inputTokens: 0,
        outputTokens: 0,
        latencyMs: 0,
        discarded: true,
      },
    ];
    const ep = viewerEpisode({ ...record, calls } as unknown as EpisodeRecord, "/run/blobs", "/run");
    expect(ep.steps[1].calls?.map((c) => c.phase)).toEqual(["policy", "policy"]);
    expect(ep.steps[1].calls?.[0].messages[0].parts).toEqual([{ text: "go" }, { img: `blobs/77/${h("7")}.png` }]);
    expect(ep.steps[3].calls?.map((c) => c.phase)).toEqual(["detector"]);
    expect(ep.steps[3].calls?.[0].messages).toEqual([]);
    // the discarded proposal sits on the step its record names, and a path is never a screenshot URL
    expect(ep.steps[1].calls?.[1]).toMatchObject({
      discarded: true,
      messages: [{ role: "user", parts: [{ img: "" }] }],
    });
    for (const junk of ["junk", 5, [null, 3, { seq: "x" }]])
      expect(() =>
        viewerEpisode({ ...record, calls: junk } as unknown as EpisodeRecord, "/run/blobs", "/run"),
      ).not.toThrow();
  });

  it("diffs two inputs line by line", () => {
    expect(lineDiff(["a", "b", "c", "d"], ["a", "d", "e"])).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "-", text: "c" },
      { op: " ", text: "d" },
      { op: "+", text: "e" },
    ]);
  });

  it("says what an ideal-recovery episode is in words, and never prints JSON, undefined or a literal \\n", () => {
    const steps = [0, 1, 2].map((i) => ({
      ...step(i, "forward", i, []),
      role: i < 2 ? "replay" : "forward",
    })) as unknown as EpisodeRecord["trajectory"]["steps"];
    expect(
      aboutEpisode(
        { phase: "continuation", strategy: "error-minus-1", errorStep: 3, recoveryStep: 2, k: 4 },
        steps,
        "R=E-1",
      ),
    ).toBe(
      "Ideal recovery, continuation k = 4 of strategy R=E-1 (error-minus-1): the forward run's first error was its step 3; this run replays the forward run's first 2 steps (R = 2) and continues from the screen before step 2, with a fresh draw of the policy.",
    );
    expect(aboutEpisode({ phase: "forward" }, steps)).toMatch(/^Ideal recovery, forward run/);
    expect(plainText("expected 'a'\\ngot 'b'")).toBe("expected 'a'\ngot 'b'");
    expect(plainText({ phase: "x", n: undefined, ok: true })).toBe("phase x, ok true");
  });
});

describe("condition labels", () => {
  it("words sweep settings and max recovery iterations, and leaves recovery-step strategies alone", async () => {
    const { conditionLabel } = await import("../../experiments/report/labels.ts");
    expect(conditionLabel("freezeWindow=0,maxRecoveryIterations=3")).toBe("freeze window 0, max recovery iterations 3");
    expect(conditionLabel("skilled.max-rec-5")).toBe("skilled, max recovery iterations 5");
    expect(conditionLabel("skilled.no-recovery")).toBe("skilled, no recovery");
    expect(conditionLabel("R=E-1")).toBe("R=E-1");
    expect(conditionLabel("R=selector(sim, acc 0.8)")).toBe("R=selector(sim, acc 0.8)");
  });

  it("words every knob by its one name (the report's columns match docs/cli.md's table)", async () => {
    const { conditionLabel, headerLabel } = await import("../../experiments/report/labels.ts");
    expect(conditionLabel("recoveryBudget=3,maxRecoveryIterations=1")).toBe(
      "recovery budget 3, max recovery iterations 1",
    );
    expect(conditionLabel("minConfidence=0.5,recoveryContext=0-R")).toBe("min confidence 0.5, recovery context 0-R");
    expect(headerLabel("recoveryAttempts")).toBe("recovery attempts");
    expect(headerLabel("r")).toBe("recovery budget r (steps)");
  });
});

describe("one step's calls in the order they were asked for (issue 37)", () => {
  it("lists a 20-call step's alternating recoverer claims and verifier verdicts in time order, with the step the record names", () => {
    const steps = [
      step(0, "forward", 0, [click(1, 1)]),
      step(1, "recovery", 0, [click(2, 2)], 1),
      step(2, "forward", 0, [click(3, 3)], 1),
    ] as unknown as EpisodeRecord["trajectory"]["steps"];
    // ten claims and ten verdicts at seq 1, alternating in time; the file lists them grouped by phase (as older logs
    // did)
    const calls: CallRecord[] = [];
    for (let i = 0; i < 10; i++)
      calls.push({
        seq: 1,
        order: 2 * i + 1,
        phase: "recoverer",
        attempt: 1,
        role: "recoverer",
        model: "m",
        messages: [],
        reply: `RESTORED claim ${i}`,
        inputTokens: 1,
        outputTokens: 1,
        latencyMs: 1,
      });
    for (let i = 0; i < 10; i++)
      calls.push({
        seq: 1,
        order: 2 * i + 2,
        phase: "verifier",
        attempt: 1,
        role: "verifier",
        model: "m",
        messages: [],
        reply: `mismatch ${i}`,
        inputTokens: 1,
        outputTokens: 1,
        latencyMs: 1,
      });
    calls.push({
      seq: 0,
      order: 0,
      phase: "policy",
      role: "policy",
      model: "m",
      messages: [],
      reply: "click",
      inputTokens: 1,
      outputTokens: 1,
      latencyMs: 1,
    });
    const ep = viewerEpisode(
      { ...record, trajectory: { ...record.trajectory, steps, events: [] }, calls } as unknown as EpisodeRecord,
      "/run/blobs",
      "/run",
    );
    const shown = ep.steps[1].calls!;
    expect(shown).toHaveLength(20);
    expect(shown.map((c) => c.order)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(shown.map((c) => c.reply).slice(0, 4)).toEqual([
      "RESTORED claim 0",
      "mismatch 0",
      "RESTORED claim 1",
      "mismatch 1",
    ]);
    expect(shown.every((c) => c.seq === 1)).toBe(true);
    expect(ep.steps[0].calls?.map((c) => c.phase)).toEqual(["policy"]);
  });

  it("words every confirmation by the one rule, and says so when the record has none", async () => {
    const { confirmationWords } = await import("../../experiments/report/step-words.ts");
    expect(confirmationWords({ confirmation: "verifier", restored: true })).toBe(
      "restored state confirmed by the verifier",
    );
    expect(confirmationWords({ confirmation: "ssim", restored: true })).toBe(
      "restored state confirmed by SSIM >= 0.99 to the target",
    );
    expect(confirmationWords({ confirmation: "claimed", restored: true })).toBe(
      "restoration claimed by the recovery agent, unverified",
    );
    expect(confirmationWords({ confirmation: "refused", restored: false })).toBe("restoration not confirmed");
    expect(confirmationWords({ restored: true })).toBe("restored (confirmation not recorded)");
    expect(confirmationWords({ restored: false })).toBe("restoration not confirmed");
  });

  it("notes the detector off on forward steps after the retry cap is spent", async () => {
    const { detectorOffSteps } = await import("../../experiments/report/viewer-episode.ts");
    const steps = record.trajectory.steps;
    // one attempt started after step 3: with a cap of 1, forward step 5 was not judged
    expect([...detectorOffSteps(steps, record.trajectory.events, 1)]).toEqual([5]);
    expect([...detectorOffSteps(steps, record.trajectory.events, 3)]).toEqual([]);
    expect([...detectorOffSteps(steps, record.trajectory.events, undefined)]).toEqual([]);
  });
});
