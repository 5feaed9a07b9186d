/**
 * The browser as a retrace Environment: headless Chromium driven through playwright-core, one
 * fresh browser context per episode, on the built-in web apps (served by this process) or on a
 * user's own URL. Observations carry a PNG screenshot, the URL (in `text`) and an accessibility
 * tree read from the DOM. Snapshots keep the app's server state, cookies, localStorage,
 * sessionStorage, IndexedDB, the tab's history (entry URLs and position), the URL, form values,
 * focus (with or without its focus ring), scroll and whether the pointer hovers; `restore` puts them all back in the
 * episode's context.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { formatAction, type Action } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentSnapshot,
  StepOutcome,
} from "@retrace-cua/core/environment";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import { sha256Hex, stableStringify } from "@retrace-cua/core/hash";
import type { Observation } from "@retrace-cua/core/observation";
import type { ProbeReport } from "@retrace-cua/core/probes/report";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import { performAction, type Pointer } from "./actions.ts";
import { cdpEndpoint } from "./chromium.ts";
import { builtInState, endpointState, type AppStateAccess } from "./app-state.ts";
import type { AppServer } from "./apps/server.ts";
import { runChecker } from "./checker.ts";
import { loadWithTabStorage, readHistory, rebuildHistory, sessionScript, type HistoryState } from "./history.ts";
import { PageLink } from "./page-link.ts";
import { readPageState, writePageState, type PageState } from "./page-state.ts";
import { probeBrowser } from "./probe.ts";
import { parseBrowserTask, type BrowserEvaluator } from "./tasks/types.ts";

/** Options of {@link BrowserEnvironment}. */
export interface BrowserEnvironmentOptions {
  /** A launched Chromium (closed by `close()` when `ownsBrowser`). */
  browser: Browser;
  /** The built-in apps' server (closed by `close()` when `ownsServer`). */
  server: AppServer;
  /** Where screenshots go. */
  blobs: BlobStore;
  /** Viewport width. @default 1280 */
  width?: number;
  /** Viewport height. @default 800 */
  height?: number;
  /** Attach the DOM's accessibility tree to observations. @default true */
  accessibility?: boolean;
  /** Close the browser on `close()`. @default true */
  ownsBrowser?: boolean;
  /** Close the server on `close()`. @default true */
  ownsServer?: boolean;
}

/** The snapshot data (`EnvironmentSnapshot.data` of kind "browser"). */
export interface BrowserSnapshotData {
  /** 2 adds history, sessionStorage and IndexedDB (a version-1 snapshot restores without them). */
  v: 1 | 2;
  task: string;
  /** The app's server state (null: the task's app exposes none). */
  server: unknown;
  /** Cookies, localStorage and IndexedDB (Playwright's storage state). */
  storage: Awaited<ReturnType<BrowserContext["storageState"]>>;
  /** URL relative to the app's origin when it is on it, else absolute. */
  url: string;
  /** The tab's history, entry URLs written like `url`. */
  history?: HistoryState;
  /** The tab's sessionStorage for the current origin. */
  session?: Array<[string, string]>;
  /**
   * `focusVisible` and `hover` are absent in older snapshots (then the focus ring is the browser's choice and the
   * pointer hovers).
   */
  page: Pick<PageState, "forms" | "focus" | "scroll"> & Partial<Pick<PageState, "focusVisible" | "hover">>;
  pointer: Pointer;
}

/** Tries of a restore's history rebuild before it is an environment error. */
const RESTORE_ATTEMPTS = 3;

/** Longest wait for a screenshot (Playwright's default is 30 s). */
const SCREENSHOT_TIMEOUT_MS = 15_000;
/**
 * Waits before asking again when Chromium refuses a capture (no frame yet, e.g. right after a restore's navigations).
 */
const CAPTURE_RETRY_MS = [50, 150, 400, 1000];

/**
 * The page's screenshot. Chromium answers `Page.captureScreenshot` now and then with "Unable to
 * capture screenshot" when no frame is ready, and takes the same picture when asked again a moment
 * later (1 of 1,800 restores here); that is retried inside the observation, anything else is not.
 */
export async function captureScreen(page: Page): Promise<Buffer> {
  for (let i = 0; ; i++) {
    try {
      return await page.screenshot({
        type: "png",
        caret: "hide",
        animations: "disabled",
        timeout: SCREENSHOT_TIMEOUT_MS,
      });
    } catch (err) {
      if (i >= CAPTURE_RETRY_MS.length || !(err instanceof Error) || !/Unable to capture screenshot/.test(err.message))
        throw err;
      await new Promise((r) => setTimeout(r, CAPTURE_RETRY_MS[i]));
    }
  }
}

/** A page script replacing the origin's localStorage with the saved entries. */
function setLocalStorage(storage: BrowserSnapshotData["storage"], origin: string): string {
  const entries = (storage.origins.find((o) => o.origin === origin)?.localStorage ?? []).map((e) => [e.name, e.value]);
  return `((items) => { localStorage.clear(); for (const [k, v] of items) localStorage.setItem(k, v); })(${JSON.stringify(entries)})`;
}

const sameHistory = (a: HistoryState, b: HistoryState) =>
  a.index === b.index && a.entries.length === b.entries.length && a.entries.every((u, i) => u === b.entries[i]);

/** Headless Chromium as a retrace Environment. */
export class BrowserEnvironment implements Environment {
  readonly kind = "browser";
  readonly capabilities: EnvironmentCapabilities;
  private readonly opts: Required<Pick<BrowserEnvironmentOptions, "width" | "height">> & BrowserEnvironmentOptions;
  private context?: BrowserContext;
  /** The episode's tab, its CDP session and navigation tracker (re-acquired across renderer swaps and crashes). */
  private link?: PageLink;
  private task?: Task;
  private evaluator?: BrowserEvaluator;
  private appState?: AppStateAccess;
  /** Origin relative URLs resolve against (the built-in server, or the user's start URL's). */
  private origin = "";
  private pointer: Pointer = { x: 0, y: 0 };
  private hash = "";
  private screen = "";
  private closed = false;
  /** History rebuilds a restore had to start again (renderer swaps, crashes); for tests and benches. */
  restoreRetries = 0;
  /**
   * Restores that only reloaded the current entry (the tab's history was as the last restore left it); for tests and
   * benches.
   */
  restoreReloads = 0;
  /** The tab as the last restore left it, until it navigates: a restore to the same history then needs no rebuild. */
  private settled?: { page: Page; navigations: number; history: HistoryState };

  constructor(options: BrowserEnvironmentOptions) {
    this.opts = { ...options, width: options.width ?? 1280, height: options.height ?? 800 };
    this.capabilities = {
      reset: true,
      snapshot: true,
      groundTruth: false,
      accessibility: options.accessibility ?? true,
      probes: true,
    };
  }

  /**
   * The browser's CDP websocket URL when it was launched with `cdp: true` (else undefined): an
   * SDK that drives Chromium over CDP (Stagehand) connects here and finds the episode's page.
   */
  get cdpUrl(): string | undefined {
    return cdpEndpoint(this.opts.browser);
  }

  /** The page of the current episode (for probes and tests of the page itself). */
  get currentPage(): Page {
    return this.requirePage();
  }

  async reset(task: Task): Promise<Observation> {
    const { setup, evaluator } = parseBrowserTask(task);
    this.task = task;
    this.evaluator = evaluator;
    let start: string;
    if ("fixture" in setup) {
      this.opts.server.load(setup.fixture);
      this.appState = builtInState(this.opts.server);
      this.origin = this.opts.server.url;
      start = this.origin + setup.path;
    } else {
      this.appState = setup.state ? endpointState(setup.state) : undefined;
      if (setup.state?.initial !== undefined) await this.appState!.write(setup.state.initial);
      this.origin = new URL(setup.url).origin;
      start = setup.url;
    }
    // Exact state hashes only where the whole server state is readable.
    this.capabilities.groundTruth = !!this.appState;
    this.settled = undefined;
    await this.freshContext();
    await this.goto(start);
    this.pointer = { x: 0, y: 0 };
    return this.observation();
  }

  async step(action: Action): Promise<StepOutcome> {
    const page = this.requirePage();
    let info;
    try {
      info = await performAction(page, action, this.pointer, this.link!.nav);
    } catch (err) {
      if (this.closed) throw err;
      throw new EnvironmentError(
        `browser: ${formatAction(action)} failed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    return { observation: await this.observation(), info: { ...info } };
  }

  async observe(): Promise<Observation> {
    this.requirePage();
    return this.observation();
  }

  async evaluate(): Promise<Evaluation> {
    const page = this.requirePage();
    return runChecker(this.evaluator!, {
      task: this.task!,
      url: page.url(),
      state: this.appState ? await this.appState.read() : undefined,
      storage: await this.context!.storageState(),
    });
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    const page = this.requirePage();
    const ps = await readPageState(page);
    const history = await readHistory(this.send);
    const data: BrowserSnapshotData = {
      v: 2,
      task: this.task!.id,
      server: this.appState ? await this.appState.read() : null,
      storage: this.portableStorage(await this.context!.storageState({ indexedDB: true })),
      url: this.relative(page.url()),
      history: { entries: history.entries.map((u) => this.relative(u)), index: history.index },
      session: ps.session,
      page: { forms: ps.forms, focus: ps.focus, focusVisible: ps.focusVisible, hover: ps.hover, scroll: ps.scroll },
      pointer: { ...this.pointer },
    };
    return { kind: "browser", data };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    this.requirePage();
    if (snapshot.kind !== "browser") throw new ConfigError(`browser: cannot restore a "${snapshot.kind}" snapshot`);
    const data = snapshot.data as BrowserSnapshotData;
    if (data.task !== this.task!.id)
      throw new EnvironmentError(`browser: snapshot of task ${data.task} cannot be restored on task ${this.task!.id}`, {
        retryable: false,
      });
    if (this.appState && data.server !== null) await this.appState.write(data.server);
    const storage = {
      cookies: data.storage.cookies,
      origins: data.storage.origins.map((o) => ({ ...o, origin: o.origin || this.origin })),
    };
    // An origin the snapshot lists is cleared and refilled; listing the app's own clears storage it gained since.
    if (this.origin && !storage.origins.some((o) => o.origin === this.origin))
      storage.origins.push({ origin: this.origin, localStorage: [] });
    const abs = (u: string) => (u.startsWith("/") ? this.origin + u : u);
    const url = abs(data.url);
    const history = data.history
      ? { entries: data.history.entries.map(abs), index: data.history.index }
      : { entries: [url], index: 0 };
    const session = data.session ?? [];
    // Playwright's setStorageState puts IndexedDB back but opens a page per restore: only when a database is involved.
    const link = this.link!;
    const context = this.context!;
    // A crashed renderer or a closed tab: a new tab in the same context (everything below is rebuilt anyway).
    await link.ensurePage();
    // The pointer of a screen where nothing was hovered (the page came after the last mouse
    // move: a click that navigated) moves before the restore's navigations, as it did then, so
    // the restored page is drawn without hover too; else it moves once the page is back.
    const hover = data.page.hover !== false;
    const pointerFirst = () => link.page.mouse.move(data.pointer.x, data.pointer.y);
    if (!hover) await pointerFirst();
    const idb =
      storage.origins.some((o) => (o as { indexedDB?: unknown[] }).indexedDB?.length) ||
      (await link.page.evaluate("indexedDB.databases().then((d) => d.length > 0)").catch(() => false));
    const storageScript = (origin: string) => `${setLocalStorage(storage, origin)};${sessionScript(session)}`;
    const tabStorage = async () => {
      const page = link.page;
      if (page.url().startsWith("http")) await page.evaluate(storageScript(new URL(page.url()).origin));
    };
    const cookies = async () => {
      await context.clearCookies();
      if (storage.cookies.length) await context.addCookies(storage.cookies);
    };
    const settled = this.settled;
    this.settled = undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        if ((await link.ensurePage()) && !hover) await pointerFirst();
        if (attempt === 1 && !idb && (await this.unchangedSince(settled, history))) {
          // The tab's entries are the ones the last restore built, never visited since: only the
          // current one is loaded again (a reload keeps no form values; scroll is set below).
          await cookies();
          await loadWithTabStorage(link.page, storageScript, link.page.url(), () =>
            link.page.reload({ waitUntil: "load", timeout: 20_000 }),
          );
          this.restoreReloads++;
        } else {
          await rebuildHistory({
            page: link.page,
            send: this.send,
            history,
            goto: (u) => this.goto(u),
            tabStorage: storageScript,
            beforeStack: idb ? () => context.setStorageState(storage) : cookies,
          });
        }
        // The page's scripts ran again on load (e.g. a visit counter): put storage back as saved.
        await tabStorage();
        break;
      } catch (err) {
        // The rebuild navigates a dozen times: a renderer swap, a crash or a slow load on a loaded
        // machine is retried here, from the start, before the episode sees an environment error.
        if (
          this.closed ||
          attempt >= RESTORE_ATTEMPTS ||
          (err instanceof EnvironmentError && err.retryable === false)
        ) {
          if (this.closed || err instanceof EnvironmentError) throw err;
          throw new EnvironmentError(
            `browser: restoring the tab's history failed ${attempt} times: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
            { cause: err },
          );
        }
        this.restoreRetries++;
      }
    }
    const missing = await writePageState(link.page, data.page);
    if (missing.length)
      throw new EnvironmentError(`browser: restored page lacks form controls ${missing.join(", ")}`, {
        retryable: false,
      });
    this.pointer = { ...data.pointer };
    if (hover) await link.page.mouse.move(this.pointer.x, this.pointer.y);
    this.settled = { page: link.page, navigations: link.navigations, history };
    return this.observation();
  }

  /** True when the tab has not navigated since the last restore left it, and that restore's history is `history`. */
  private async unchangedSince(settled: BrowserEnvironment["settled"], history: HistoryState): Promise<boolean> {
    const link = this.link!;
    if (!settled || settled.page !== link.page || link.broken || settled.navigations !== link.navigations) return false;
    if (!link.page.url().startsWith("http") || !sameHistory(settled.history, history)) return false;
    return sameHistory(await readHistory(this.send), history);
  }

  stateHash(): string {
    return this.hash;
  }

  visibleHash(): string {
    return this.screen;
  }

  async probe(): Promise<ProbeReport> {
    const page = this.requirePage();
    return probeBrowser({
      page,
      context: this.context!,
      appState: this.appState,
      relative: (u) => this.relative(u),
      history: await readHistory(this.send),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context?.close().catch(() => undefined);
    if (this.opts.ownsBrowser !== false) await this.opts.browser.close().catch(() => undefined);
    if (this.opts.ownsServer !== false) await this.opts.server.close();
  }

  private async freshContext(storageState?: BrowserSnapshotData["storage"]): Promise<void> {
    await this.context?.close().catch(() => undefined);
    this.context = await this.opts.browser.newContext({
      viewport: { width: this.opts.width, height: this.opts.height },
      deviceScaleFactor: 1,
      locale: "en-US",
      timezoneId: "UTC",
      reducedMotion: "reduce",
      ...(storageState ? { storageState } : {}),
    });
    this.link = await PageLink.open(this.context);
  }

  /** CDP on the episode's tab, through the link (renderer swaps waited out, sessions re-acquired). */
  private readonly send = <T>(method: string, params?: object): Promise<T> => this.link!.send<T>(method, params);

  private async goto(url: string): Promise<void> {
    try {
      await this.link!.page.goto(url, { waitUntil: "load", timeout: 20_000 });
    } catch (err) {
      throw new EnvironmentError(
        `browser: could not open ${url}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  /** Storage with the app's own origin written "" (the built-in server's port differs per instance). */
  private portableStorage(storage: BrowserSnapshotData["storage"]): BrowserSnapshotData["storage"] {
    return {
      cookies: storage.cookies,
      origins: storage.origins.map((o) => (o.origin === this.origin ? { ...o, origin: "" } : o)),
    };
  }

  private relative(url: string): string {
    return this.origin && url.startsWith(`${this.origin}/`) ? url.slice(this.origin.length) : url;
  }

  private requirePage(): Page {
    if (this.closed) throw new EnvironmentError("browser: the environment is closed", { retryable: false });
    if (!this.link || !this.task)
      throw new EnvironmentError("browser: call reset(task) before acting", { retryable: false });
    return this.link.page;
  }

  private async observation(): Promise<Observation> {
    try {
      return await this.observe0();
    } catch (err) {
      if (this.closed || err instanceof EnvironmentError) throw err;
      // A hung or crashed renderer: the runner's environment retries re-run the episode.
      throw new EnvironmentError(
        `browser: observing the page failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
        { cause: err },
      );
    }
  }

  private async observe0(): Promise<Observation> {
    const page = this.link!.page;
    const png = await captureScreen(page);
    const screenshot = await this.opts.blobs.put(png);
    const ps = await readPageState(page);
    const url = this.relative(ps.url);
    // Everything a snapshot restores, so equal hashes mean restorable-equal states.
    const cookies = (await this.context!.cookies()).map((c) => [c.name, c.value, c.domain, c.path]);
    const server = this.appState ? await this.appState.read() : null;
    const history = await readHistory(this.send);
    this.hash = sha256Hex(
      stableStringify({
        server,
        cookies,
        local: ps.local,
        session: ps.session,
        idb: ps.idb,
        history: { entries: history.entries.map((u) => this.relative(u)), index: history.index },
        url,
        forms: ps.forms,
        focus: ps.focus,
        scroll: ps.scroll,
      }),
    );
    this.screen = screenshot;
    const obs: Observation = {
      screenshot,
      width: this.opts.width,
      height: this.opts.height,
      text: `URL: ${url}\nTitle: ${ps.title}`,
    };
    if (this.capabilities.accessibility) obs.axTree = ps.ax;
    return obs;
  }
}
