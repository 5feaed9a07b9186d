/**
 * R_O against R_Om on a real X11 desktop (mousepad), with the dynamic content a live desktop has:
 * a blinking text caret (GTK's own blink, switched on for this task) and, optionally, a panel
 * clock ticking every second plus a notification pop-up that comes and goes
 * (packages/desktops/src/x11/noise.ts). The target state R is mousepad with the caret at the end
 * of notes.txt; its dynamic mask is learned exactly as a dataset build learns it (MaskCollector:
 * the first capture plus `recaptures` WAIT re-captures). Then each case is judged `trials` times,
 * some time apart, by R_O (SSIM >= 0.99) and R_Om (the same outside the mask, plus the default
 * local floor; `rom.meanPass` is the mean-only R_Om):
 *
 * - `idle`: R itself, later (truly restored; only time passed);
 * - `typo-undone`: a character typed and deleted again (truly restored; undo history aside);
 * - `stray-char`: one stray character left in the document (not restored);
 * - `stray-line`: a stray line "- braed" left in the document (not restored);
 * - `select-all`: the whole text left selected (not restored).
 */
import type { Action } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { MaskCollector } from "@retrace-cua/evaluation/dataset/masks";
import type { Observation } from "@retrace-cua/core/observation";
import {
  maskedObservationOracle,
  observationOracle,
  type MaskedObservationVerdict,
  type ObservationVerdict,
} from "@retrace-cua/evaluation/oracle/recovery-oracle";
import { desktopTask } from "@retrace-cua/desktops/desktop-tasks/tasks";
import type { DesktopTask } from "@retrace-cua/desktops/desktop-tasks/types";
import type { DesktopEnvironment } from "@retrace-cua/desktops/x11/desktop-environment";
import { startDesktopNoise, type DesktopNoise } from "@retrace-cua/desktops/x11/noise";

/** GTK settings with the caret blinking (the desktops default to no blink), never stopping. */
export const BLINKING_GTK_SETTINGS =
  "[Settings]\ngtk-cursor-blink=true\ngtk-cursor-blink-time=1000\ngtk-cursor-blink-timeout=3600\ngtk-enable-animations=false\n";

/** One judged case. */
export interface MaskedX11Case {
  id: "idle" | "typo-undone" | "stray-char" | "stray-line" | "select-all";
  /** Ground truth by construction. */
  restored: boolean;
  trials: Array<{ ro: ObservationVerdict; rom: MaskedObservationVerdict }>;
}

/** What {@link measureMaskedOracleX11} measured. */
export interface MaskedX11Measurement {
  noise: boolean;
  /** Distinct captures of R the mask was learned from, and the mask's share of pixels. */
  captures: number;
  maskFraction: number;
  cases: MaskedX11Case[];
}

/** Options of {@link measureMaskedOracleX11}. */
export interface MaskedX11Options {
  /** Clock + notification pop-up on top of the blinking caret. @default true */
  noise?: boolean;
  /** Judgements per case. @default 4 */
  trials?: number;
  /** WAIT re-captures of R for the mask (1 s each). @default 5 */
  recaptures?: number;
  /** Seconds between trials. @default 0.7 */
  gapSeconds?: number;
}

const hot = (...keys: string[]): Action => ({ type: "HOTKEY", keys });
const type = (text: string): Action => ({ type: "TYPING", text });

/** Run the measurement on a probing or plain X11 desktop environment. */
export async function measureMaskedOracleX11(
  env: DesktopEnvironment,
  blobs: BlobStore,
  options: MaskedX11Options = {},
): Promise<MaskedX11Measurement> {
  const base = desktopTask("mousepad-append-line")!;
  const task: DesktopTask = {
    ...base,
    id: "mousepad-append-line-blinking",
    setup: { ...base.setup, files: { ...base.setup.files, ".config/gtk-3.0/settings.ini": BLINKING_GTK_SETTINGS } },
  };
  const trials = options.trials ?? 4;
  const gap = options.gapSeconds ?? 0.7;
  // The session (home, bus) exists only after a reset: start the noise once it does.
  await env.reset(task);
  const noise: DesktopNoise | undefined = (options.noise ?? true) ? await startDesktopNoise(env.desktop) : undefined;
  try {
    const target = (await env.step(hot("ctrl", "end"))).observation;
    const collector = new MaskCollector({ store: blobs, recaptures: options.recaptures ?? 5, waitSeconds: 1 }, blobs);
    await collector.recapture(env, task.id, "R", target, target.screenshot);
    const mask = collector.stateMask("R")!;
    const judgeTrials = async (): Promise<MaskedX11Case["trials"]> => {
      const out: MaskedX11Case["trials"] = [];
      for (let i = 0; i < trials; i++) {
        const obs: Observation = (await env.step({ type: "WAIT", seconds: gap })).observation;
        out.push({
          ro: await observationOracle(obs, target, blobs),
          rom: await maskedObservationOracle(obs, target, blobs, mask.ref),
        });
      }
      return out;
    };
    const cases: MaskedX11Case[] = [];
    cases.push({ id: "idle", restored: true, trials: await judgeTrials() });
    for (const a of [type("X"), { type: "PRESS", key: "BackSpace" } as Action]) await env.step(a);
    cases.push({ id: "typo-undone", restored: true, trials: await judgeTrials() });
    await env.step(type("X"));
    cases.push({ id: "stray-char", restored: false, trials: await judgeTrials() });
    await env.step({ type: "PRESS", key: "BackSpace" });
    await env.step(type("- braed\n"));
    cases.push({ id: "stray-line", restored: false, trials: await judgeTrials() });
    await env.step(hot("ctrl", "z"));
    await env.step(hot("ctrl", "a"));
    cases.push({ id: "select-all", restored: false, trials: await judgeTrials() });
    return { noise: !!noise, captures: mask.captures.length, maskFraction: mask.fraction, cases };
  } finally {
    await noise?.stop();
  }
}
