/**
 * Launching headless Chromium through playwright-core with a given executable (Debian's
 * `chromium` by default: nothing is downloaded). Flags measured on these machines (README "Browser").
 * With `cdp`, the browser also listens for the Chrome DevTools Protocol on 127.0.0.1, so that a
 * browser-agent SDK which drives Chromium over CDP itself (Stagehand) acts on the same pages.
 */
import type { Browser } from "playwright-core";
import { importOptional } from "@retrace-cua/core/optional-import";

const loadChromium = async () =>
  (await importOptional("playwright-core", "the browser environment", () => import("playwright-core"))).chromium;
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";

/** Debian's Chromium. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet, deterministic headless Chromium (no sandbox: runs as root in CI). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
  "--font-render-hinting=none",
  "--hide-scrollbars",
];

/** Options of {@link launchChromium}. */
export interface LaunchChromiumOptions {
  /** Also serve CDP on 127.0.0.1 (read the endpoint with {@link cdpEndpoint}). @default false */
  cdp?: boolean;
}

const CDP_URLS = new WeakMap<Browser, string>();

/** A port free on 127.0.0.1 right now (Chromium cannot report the port it picked through Playwright's pipe). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => server.once("error", fail).listen(0, "127.0.0.1", () => ok()));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/** Launch Chromium; a missing executable is a ConfigError saying how to install it. */
export async function launchChromium(
  executablePath = DEFAULT_CHROMIUM,
  options: LaunchChromiumOptions = {},
): Promise<Browser> {
  if (!existsSync(executablePath))
    throw new ConfigError(
      `browser: no Chromium at ${executablePath}; install it (apt-get install -y --no-install-recommends chromium) or set env.chromium to its path`,
      { field: "env.chromium" },
    );
  const chromium = await loadChromium();
  if (!options.cdp) return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  const port = await freePort();
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${port}`, "--remote-debugging-address=127.0.0.1"],
  });
  try {
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
      webSocketDebuggerUrl?: string;
    };
    if (!version.webSocketDebuggerUrl) throw new EnvironmentError("no webSocketDebuggerUrl in /json/version");
    CDP_URLS.set(browser, version.webSocketDebuggerUrl);
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw new EnvironmentError(
      `browser: Chromium did not serve CDP on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  return browser;
}

/** The CDP websocket URL of a browser launched with `{ cdp: true }`, else undefined. */
export function cdpEndpoint(browser: Browser): string | undefined {
  return CDP_URLS.get(browser);
}
