import { ConfigError } from "../../../packages/core/src/errors.ts";
import { describe, expect, it } from "vitest";
import {
  cosine,
  recoveryReference,
  scoreRationales,
  tfidfVectors,
  tokens,
} from "../../../packages/evaluation/src/eval/rationale.ts";
import { keywordIntent } from "../../../packages/evaluation/src/eval/intent.ts";

const sample = {
  targetStep: 4,
  distance: 2,
  perturbation: [
    {
      observation: { screenshot: "a", width: 1, height: 1 },
      actions: [{ type: "CLICK" as const, x: 795, y: 537, button: "left" as const }],
    },
    { observation: { screenshot: "b", width: 1, height: 1 }, actions: [{ type: "TYPING" as const, text: "oops" }] },
  ],
};

describe("rationale analysis (lexical fallback)", () => {
  it("builds the ground-truth recovery instruction from the sample: undo the perturbation newest first", () => {
    const ref = recoveryReference(sample as never);
    expect(ref).toMatch(/revert the last 2 action\(s\) \(TYPING\("oops"\), CLICK\(795,537\)\)/);
    expect(ref).toMatch(/target state after step 4/);
  });

  it("tokenises without numbers or stop words and with light stemming", () => {
    expect(tokens("Restored the 2 files: restoring CLICK(795,537)")).toEqual(["restor", "file", "restor", "click"]);
  });

  it("gives identical texts cosine 1 and disjoint ones 0, and ranks a restorative rationale above a forward one", async () => {
    const v = tfidfVectors(["undo the typing", "undo the typing", "open the menu"]);
    const dot = (a: Map<string, number>, b: Map<string, number>) =>
      [...a].reduce((s, [w, x]) => s + x * (b.get(w) ?? 0), 0);
    expect(dot(v[0], v[1])).toBeCloseTo(1, 12);
    expect(dot(v[0], v[2])).toBe(0);
    const ref = recoveryReference(sample as never);
    const [restore, forward, clicking] = await scoreRationales([
      { reference: ref, rationales: ["restore: undo the typing to go back to the previous state"] },
      // The keyword baseline calls this restorative ("notice"); the similarity does not.
      { reference: ref, rationales: ["notice: the save dialog is open, plan step 5: save the file"] },
      // Sharing one action word ("click") with the reference lifts a forward rationale to ~0.09 in
      // this small corpus: lexical similarity rewards vocabulary, the calibrated threshold is a border.
      { reference: ref, rationales: ["notice: the save dialog is open, plan step 5: click Save"] },
    ]);
    expect(keywordIntent("notice: the save dialog is open, plan step 5: save the file")).toBe(true);
    expect(restore).toMatchObject({ method: "tfidf", restorative: true, threshold: 0.09 });
    expect(forward).toMatchObject({ restorative: false });
    expect(restore.maxSimilarity!).toBeGreaterThan(5 * Math.max(forward.maxSimilarity!, clicking.maxSimilarity!));
  });

  it("checks dense vectors", () => {
    expect(cosine([1, 0], [0, 2])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(() => cosine([1], [1, 2])).toThrow(ConfigError);
  });
});
