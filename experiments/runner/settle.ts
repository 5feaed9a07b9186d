/**
 * How long every path waits after each executed step before observing (`settleMs`, packages/core/src/settle.ts)
 * when a config leaves it out: suited to the environment. The paper waits 10 s after each action on
 * OSWorld VMs (Appendix B.2); SimDesk is synchronous; the X11 and container desktops already settle
 * by polling frames until the screen is stable, so a fixed wait on top only slows them down. An
 * explicit value always wins. One resolution for every experiment kind (end-to-end, sweep, ideal
 * recovery) and for the recovery evaluation (`settleMs` in its config).
 */
import type { ExperimentConfig } from "../config/schema.ts";

/** Default `settleMs` per environment kind (unknown kinds: 0). */
export const ENV_SETTLE_MS: Readonly<Record<string, number>> = { simdesk: 0, x11: 0, docker: 0, osworld: 10_000 };

/** The settle wait a run uses and where it comes from (recorded in manifest.json and summary.json). */
export interface SettleChoice {
  /** Milliseconds waited after each executed action. */
  settleMs: number;
  /** "config" = `options.settleMs` was given; otherwise the environment's default. */
  source: "config" | "environment default";
  /** The environment kind the default was taken for. */
  env: string;
}

/** The settle wait on environment kind `env`: `given` when set, else the environment's default. */
export function settleFor(env: string, given: number | undefined): SettleChoice {
  if (given !== undefined) return { settleMs: given, source: "config", env };
  return { settleMs: ENV_SETTLE_MS[env] ?? 0, source: "environment default", env };
}

/** Resolve `options.settleMs` of an experiment config (every kind). */
export function resolveSettleMs(config: ExperimentConfig): SettleChoice {
  return settleFor(config.env.kind, (config.options as { settleMs?: number }).settleMs);
}
