/**
 * The browser environment: headless Chromium (playwright-core, Debian's chromium) on the
 * built-in web apps or a user's own URL. See environment.ts, tasks/ and apps/.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { startAppServer } from "./apps/server.ts";
import { launchChromium } from "./chromium.ts";
import { BrowserEnvironment } from "./environment.ts";

export { BrowserEnvironment, type BrowserEnvironmentOptions, type BrowserSnapshotData } from "./environment.ts";
export { BROWSER_TASKS, BROWSER_CHECKS } from "./tasks/index.ts";
export { loadBrowserTaskFile } from "./tasks/file.ts";
export type { BrowserTask, BrowserSetup, BrowserEvaluator } from "./tasks/types.ts";
export type { CheckerContext, BrowserChecker } from "./checker.ts";
export { startAppServer, type AppServer } from "./apps/server.ts";
export { launchChromium, cdpEndpoint, DEFAULT_CHROMIUM, type LaunchChromiumOptions } from "./chromium.ts";

/** Options of {@link createBrowserEnvironment}. */
export interface CreateBrowserOptions {
  /** Where screenshots go. */
  blobs: BlobStore;
  /** Viewport width. @default 1280 */
  width?: number;
  /** Viewport height. @default 800 */
  height?: number;
  /** Accessibility trees on observations. @default true */
  accessibility?: boolean;
  /** Chromium executable. @default "/usr/bin/chromium" */
  chromium?: string;
  /** Serve CDP on 127.0.0.1 (`env.cdpUrl`) for an SDK that drives the browser itself (Stagehand). @default false */
  cdp?: boolean;
}

/**
 * Launch Chromium and the built-in apps' server (127.0.0.1, ephemeral port) and return the
 * environment owning both: `close()` ends them. Each `reset` opens a fresh browser context.
 */
export async function createBrowserEnvironment(options: CreateBrowserOptions): Promise<BrowserEnvironment> {
  const server = await startAppServer();
  let browser;
  try {
    browser = await launchChromium(options.chromium, { cdp: options.cdp });
  } catch (err) {
    await server.close();
    throw err;
  }
  return new BrowserEnvironment({
    browser,
    server,
    blobs: options.blobs,
    width: options.width,
    height: options.height,
    accessibility: options.accessibility,
  });
}
