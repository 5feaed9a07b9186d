import { describe, expect, it } from "vitest";
import { ALL_PROMPTS } from "../../packages/core/src/prompts/index.ts";
import { renderPrompt } from "../../packages/core/src/prompt.ts";
import { stepsShownText } from "../../packages/models/src/llm/summarizer.ts";
import { OBSERVATION_NOTES } from "../../packages/models/src/policies/openai/pyautogui-policy.ts";

const INSTRUCTION = "Rename the file report.txt on the Desktop to summary.txt";

/**
 * Realistic values per prompt id, as the code that renders each prompt computes them (R = 9,
 * E = 10, t = 12). A prompt added to packages/core/src/prompts/ without an entry here fails the first test.
 */
const REALISTIC: Record<string, Array<Record<string, string | number>>> = {
  "agentic-state-verifier": [{ maxProbes: "3", width: "1920", height: "1080" }],
  "error-detector.system": [{}],
  "error-detector.system-cautious": [{}],
  "error-detector.user": [{ instruction: INSTRUCTION, step_count: 12, last_step: 11 }],
  "error-detector.task": [{ instruction: INSTRUCTION }],
  "error-detector.question": [{ step_count: 12, first_shown: 6, last_step: 11 }],
  "forward.pyautogui.step": [{ instruction: INSTRUCTION, observation: "screenshot" }],
  "forward.pyautogui.system": [
    { screen_width: 1920, screen_height: 1080, observation_note: OBSERVATION_NOTES.screenshot },
    { screen_width: 1280, screen_height: 800, observation_note: OBSERVATION_NOTES.screenshot_a11y_tree },
  ],
  "perturbation.instruction": [{ instruction: INSTRUCTION, steps_left: 1 }],
  "post-restoration.transition": [{ step: 9 }, { step: 0 }],
  "post-restoration.transition-detailed": [{ step: 9 }, { step: 0 }],
  "post-restoration.unconfirmed-kept": [
    { step: 3, errorStep: 5 },
    { step: 0, errorStep: 0 },
  ],
  "post-restoration.unconfirmed-cut": [{ step: 3 }, { step: 0 }],
  "recovery.instruction-prefix.tool": [
    {
      target_step: 9,
      error_step: 10,
      context_note: "Below is the earlier run's history up to the TARGET state (9 step(s)).",
      steps_left: 10,
      restored_token: "RESTORED",
    },
  ],
  "recovery.instruction-prefix": [
    {
      target_step: 9,
      error_step: 10,
      context_note: "No history of the earlier run is given; rely on the TARGET screenshot.",
      steps_left: 10,
      restored_token: "RESTORED",
    },
  ],
  "recovery.instruction-prefix-stable": [
    {
      target_step: 9,
      error_step: 10,
      context_note:
        "Below is a briefing describing the TARGET state and how it came about, including changes a screenshot cannot show.",
      budget: 10,
      restored_token: "RESTORED",
    },
  ],
  "recovery-judge": [
    { instruction: INSTRUCTION, history: "0. click(100, 200)\n1. type('summary')", recovery: "(no actions)" },
  ],
  "recovery-step-selector": [
    { instruction: INSTRUCTION, error_step: 10, error_reason: "step 10 typed into the wrong field" },
  ],
  "recovery.system-prefix.tool": [{ restored_token: "RESTORED" }],
  "recovery.system-prefix": [{ restored_token: "RESTORED" }],
  "recovery-target-contextualizer": [9, 1, 0].map((R) => ({
    instruction: INSTRUCTION,
    target_step: R,
    steps_shown: stepsShownText(R),
  })),
  "state-verifier": [{}],
};

/**
 * Arithmetic or template syntax a model should never see: "9 - 1", "{{x}}", "${x}", "undefined", "NaN", "[object
 * Object]".
 */
const LEFTOVERS: Array<[string, RegExp]> = [
  ["unevaluated arithmetic", /\b\d+\s*[-+*/]\s*\d+\b/],
  ["an unfilled {{placeholder}}", /\{\{|\}\}/],
  ["a template literal", /\$\{/],
  ["undefined", /\bundefined\b/],
  ["NaN", /\bNaN\b/],
  ["[object Object]", /\[object Object\]/],
  ["a negative step", /\bsteps? -\d/],
];

describe("every prompt rendered with realistic values", () => {
  it("has realistic values for every prompt in packages/core/src/prompts/", () => {
    expect(ALL_PROMPTS.map((p) => p.id).filter((id) => !REALISTIC[id])).toEqual([]);
  });

  it("contains no unevaluated arithmetic, placeholder or stringified non-value", () => {
    const found: string[] = [];
    for (const p of ALL_PROMPTS)
      for (const values of REALISTIC[p.id] ?? []) {
        const text = renderPrompt(p, values as never);
        for (const [what, re] of LEFTOVERS) {
          const m = re.exec(text);
          if (m)
            found.push(`${p.id}: ${what} ("${text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 10)}")`);
        }
      }
    expect(found).toEqual([]);
  });

  it('the summarizer says which steps it shows with the last one computed (version 1 sent "steps 0 to 9 - 1")', () => {
    const p = ALL_PROMPTS.find((x) => x.id === "recovery-target-contextualizer")!;
    expect(
      renderPrompt(p, { instruction: INSTRUCTION, target_step: 9, steps_shown: stepsShownText(9) } as never),
    ).toContain("its actions for steps 0 to 8, screenshots");
    expect(stepsShownText(1)).toBe("step 0");
    expect(stepsShownText(0)).toMatch(/no steps/);
  });
});
