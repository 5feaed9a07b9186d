/**
 * Launching headless Chromium through playwright-core with a given executable (Debian's
 * `chromium` by default: nothing is downloaded). Flags measured on these machines (README "Browser").
 */
import { chromium, type Browser } from "playwright-core";
import { existsSync } from "node:fs";
import { ConfigError } from "../../../src/errors.ts";

/** Debian's Chromium. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet, deterministic headless Chromium (no sandbox: runs as root in CI). */
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", "--font-render-hinting=none", "--hide-scrollbars"];

/** Launch Chromium; a missing executable is a ConfigError saying how to install it. */
export async function launchChromium(executablePath = DEFAULT_CHROMIUM): Promise<Browser> {
  if (!existsSync(executablePath)) throw new ConfigError(`browser: no Chromium at ${executablePath}; install it (apt-get install -y --no-install-recommends chromium) or set env.chromium to its path`, { field: "env.chromium" });
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
