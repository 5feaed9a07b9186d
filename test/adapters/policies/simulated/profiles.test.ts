import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { createSimDesk, getSimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import {
  SIM_PROFILES,
  createSimAgents,
  createSimDetector,
  describeSimulated,
} from "../../../../packages/simdesk/src/agents/index.ts";

const env = createSimDesk({ blobs: new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "sim-prof-")), "blobs") }) });
const task = getSimDeskTask("editor-append-notes");

describe("simulated profiles", () => {
  it("builds a full labelled set from profile names", () => {
    const agents = createSimAgents({ task, groundTruth: env, seed: 3, recoverer: "weak", detector: "noisy" });
    expect([agents.policy.name, agents.recoverer.name, agents.detector.name, agents.selector.name]).toEqual([
      "sim-forward",
      "sim-recoverer",
      "sim-detector",
      "sim-selector",
    ]);
    expect([agents.policy, agents.recoverer, agents.detector, agents.selector].every((c) => c.simulated === true)).toBe(
      true,
    );
    expect(agents.label).toBe(
      "simulated: sim-forward(seed=3, slipRate=0.1, noticeRate=0.05) + sim-recoverer(seed=3, skill=0.3, falseDoneRate=0.175, forwardBias=0.5, harmRate=0.5, assumeRestoredRate=0.6, overUndoRate=0.7; context: errorInference=0.75, targetInference=0.7, summaryFidelity=0.9, blindFalseDone=2) + " +
        "sim-detector(seed=3, recall=0.6, falsePositiveRate=0.1, localisationNoise=0.4) + sim-selector(seed=3, accuracy=0.8)",
    );
  });

  it("accepts explicit options in place of a profile name and rejects unknown names", () => {
    const agents = createSimAgents({ task, groundTruth: env, detector: { recall: 0.5 } });
    expect(agents.detector.label).toContain("recall=0.5");
    expect(() => createSimAgents({ task, groundTruth: env, recoverer: "expert" as never })).toThrow(ConfigError);
    expect(() => createSimAgents({ task, groundTruth: env, recoverer: "expert" as never })).toThrow(
      /skilled, weak, flailing/,
    );
  });

  it("the presets keep their documented numbers", () => {
    expect(SIM_PROFILES.recoverer).toEqual({
      skilled: { skill: 0.9 },
      weak: { skill: 0.3, harmRate: 0.5, assumeRestoredRate: 0.6, overUndoRate: 0.7 },
      flailing: { skill: 0.05, falseDoneRate: 0 },
    });
    expect(SIM_PROFILES.detector.decent).toEqual({ recall: 0.9, falsePositiveRate: 0.02, localisationNoise: 0.1 });
    expect(SIM_PROFILES.forward.default).toEqual({ slipRate: 0.1, noticeRate: 0.05 });
  });

  it("describes only simulated components, and nothing when there are none", () => {
    const detector = createSimDetector({ groundTruth: env, task });
    expect(describeSimulated({ name: "gpt-policy" }, detector, null)).toBe(`simulated: ${detector.label}`);
    expect(describeSimulated({ name: "gpt-policy" })).toBe("");
  });

  it("names the bad field of a detector option", () => {
    expect(() => createSimDetector({ groundTruth: env, task, recall: -1 })).toThrow(
      /createSimDetector: option "recall"/,
    );
    expect(() => createSimDetector({ groundTruth: env, task: { id: "x" } as never })).toThrow(/"task"/);
  });
});
