/**
 * How long the runner waits after each executed action before observing (`options.settleMs`) when
 * a config leaves it out: suited to the environment. The paper waits 10 s after each action on
 * OSWorld VMs (Appendix B.2); SimDesk is synchronous; the X11 and container desktops already settle
 * by polling frames until the screen is stable, so a fixed wait on top only slows them down. An
 * explicit `options.settleMs` always wins.
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

/** Resolve `settleMs` for a config (undefined for ideal-recovery, which has no recovery options). */
export function resolveSettleMs(config: ExperimentConfig): SettleChoice | undefined {
  if (config.kind === "ideal-recovery") return undefined;
  const env = config.env.kind;
  const given = (config.options as { settleMs?: number }).settleMs;
  if (given !== undefined) return { settleMs: given, source: "config", env };
  return { settleMs: ENV_SETTLE_MS[env] ?? 0, source: "environment default", env };
}
