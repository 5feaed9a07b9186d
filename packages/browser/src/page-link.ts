/**
 * The episode's tab and its Chrome DevTools Protocol session, kept usable across renderer swaps.
 * Chromium gives a document a new renderer frame on most navigations (cross-site, about:blank,
 * the placeholders of a history rebuild, and same-site too with RenderDocument): for a few
 * milliseconds after the commit, the tab's CDP session answers `Not attached to an active page`,
 * and a session whose target went away answers `Session closed`/`Target closed`. Every CDP call
 * goes through {@link PageLink.send}, which waits for the new document and retries the first,
 * and opens a new session for the second. A crashed or closed tab is replaced by a new one in the
 * same context ({@link PageLink.ensurePage}); a restore rebuilds all of its state anyway.
 */
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { NavigationTracker } from "./actions.ts";

/** A renderer swap in progress: the same session answers once the new document is attached. */
const TRANSIENT =
  /Not attached to an active page|Cannot find context with specified id|Execution context was destroyed/i;
/** The session itself is gone: open a new one on the tab. */
const DETACHED =
  /Session closed|Target closed|Target page, context or browser has been closed|No session with given id|has been closed/i;

/** Longest time one CDP call keeps retrying a renderer swap, in ms. */
export const CDP_RETRY_MS = 10_000;

/** True for an error that re-acquiring the session (or waiting for the new document) cures. */
export function isRendererSwapError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return TRANSIENT.test(message) || DETACHED.test(message);
}

/** The episode's page, its CDP session and its navigation tracker, re-acquired when they break. */
export class PageLink {
  private session?: CDPSession;
  private crashed = false;
  /** Sessions opened since the link was made (1 = never re-acquired); for tests and logs. */
  sessions = 0;
  /**
   * Main-frame navigations of the tab so far (new documents, same-document ones, history traversals), as Playwright
   * reports them.
   */
  navigations = 0;

  private constructor(
    readonly context: BrowserContext,
    public page: Page,
    public nav: NavigationTracker,
  ) {
    this.watch(page);
  }

  /** A new tab in `context`, with its CDP session and navigation tracker. */
  static async open(context: BrowserContext): Promise<PageLink> {
    const page = await context.newPage();
    const link = new PageLink(context, page, await NavigationTracker.install(page));
    await link.cdp();
    return link;
  }

  /** The tab is unusable (crashed renderer or closed): {@link ensurePage} replaces it. */
  get broken(): boolean {
    return this.crashed || this.page.isClosed();
  }

  /** Replace a crashed or closed tab by a new one in the same context; true when it did. */
  async ensurePage(): Promise<boolean> {
    if (!this.broken) return false;
    const old = this.page;
    // Not waited for: on a crashed tab, detaching its session hangs for minutes and closing it takes 30 s.
    void this.session?.detach().catch(() => undefined);
    this.session = undefined;
    this.crashed = false;
    this.page = await this.context.newPage();
    this.watch(this.page);
    this.nav = await NavigationTracker.install(this.page);
    void old.close().catch(() => undefined);
    await this.cdp();
    return true;
  }

  /** The current CDP session, opened on the tab when there is none. */
  async cdp(): Promise<CDPSession> {
    if (!this.session) {
      this.session = await this.context.newCDPSession(this.page);
      this.sessions++;
    }
    return this.session;
  }

  /**
   * Send a CDP command; a renderer swap in progress is waited out (the new document's
   * `domcontentloaded`, then short pauses) and a detached session re-opened, for up to
   * {@link CDP_RETRY_MS}. Any other error, or a crashed tab, is thrown at once.
   */
  async send<T>(method: string, params?: object): Promise<T> {
    const deadline = Date.now() + CDP_RETRY_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await (await this.cdp()).send(method as never, params as never)) as T;
      } catch (err) {
        if (this.broken || !isRendererSwapError(err) || Date.now() > deadline) throw err;
        if (DETACHED.test(err instanceof Error ? err.message : String(err))) {
          await this.session?.detach().catch(() => undefined);
          this.session = undefined;
        }
        await this.page
          .waitForLoadState("domcontentloaded", { timeout: Math.max(1, deadline - Date.now()) })
          .catch(() => undefined);
        await new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** attempt)));
      }
    }
  }

  private watch(page: Page): void {
    page.on("crash", () => {
      if (page === this.page) this.crashed = true;
    });
    page.on("framenavigated", (frame) => {
      if (page === this.page && frame === page.mainFrame()) this.navigations++;
    });
  }
}
