/**
 * The tab's session history (back and forward stack) through the Chrome DevTools Protocol: read
 * the entries' URLs and the current index for snapshots and the state hash, and rebuild them in a
 * page. Rebuilding navigates through every entry with the requests answered by an empty page
 * (no request reaches the app, so no server state changes), then loads the current entry for
 * real with the tab's storage of its origin put back before its scripts run. What comes back: each entry's
 * URL and the position in the stack. What does not: the other entries' documents (they load
 * afresh when the user goes back to them: no back/forward cache, no scroll or form state of
 * theirs), their titles until then, `history.state` objects and POST bodies.
 */
import type { Page } from "playwright-core";

/** The tab's history: entry URLs (absolute) and the index of the current one. */
export interface HistoryState {
  entries: string[];
  index: number;
}

/** A document the rebuilt entries show until they are visited; never cached, never kept in the back/forward cache. */
const PLACEHOLDER = "<!doctype html><title>restoring</title>";

/** Sends a CDP command on the tab, surviving renderer swaps (PageLink.send). */
export type CdpSend = <T>(method: string, params?: object) => Promise<T>;

interface NavigationHistory {
  currentIndex: number;
  entries: Array<{ id: number; url: string }>;
}

/** Read the tab's history. */
export async function readHistory(send: CdpSend): Promise<HistoryState> {
  const h = await send<NavigationHistory>("Page.getNavigationHistory");
  return { entries: h.entries.map((e) => e.url), index: h.currentIndex };
}

/** What {@link rebuildHistory} needs besides the history. */
export interface RebuildHistoryInput {
  page: Page;
  /** CDP on the tab, through the environment's PageLink (re-acquired across renderer swaps). */
  send: CdpSend;
  history: HistoryState;
  /** Navigate the page (the environment's goto: errors as EnvironmentError), waiting for its load. */
  goto: (url: string) => Promise<void>;
  /** Runs on the first entry, before the stack is built (the app's page is gone, its storage connections closed). */
  beforeStack?: () => Promise<void>;
  /**
   * A page script putting the tab storage of `origin` back; runs in the current entry's document before the page's own
   * scripts ({@link loadWithTabStorage}).
   */
  tabStorage?: (origin: string) => string;
}

const isHttp = (url: string) => /^https?:/i.test(url);

/**
 * Rebuild the tab's history and load its current entry. Each entry gets its own placeholder
 * document (entries pushed onto one document would share it: going between them would change
 * the URL but not the page), so each becomes a real page when visited. The current entry, when
 * it is the last and a document of its own (the usual case), loads for real straight from the
 * entry before it; otherwise it gets a placeholder too, is gone to, and reloaded for real.
 */
export async function rebuildHistory(input: RebuildHistoryInput): Promise<void> {
  const { page, send, history, goto } = input;
  const entries = history.entries.length ? history.entries : ["about:blank"];
  const index = Math.min(Math.max(history.index, 0), entries.length - 1);
  const current = entries[index];
  const direct = index > 0 && index === entries.length - 1 && isHttp(current) && current !== entries[index - 1];
  let placeholders = true;
  // Requests carry no fragment: match entries without theirs.
  const documents = new Set(entries.map((e) => e.split("#")[0]));
  const matcher = (url: URL) => placeholders && documents.has(url.href);
  await page.route(matcher, (route) =>
    placeholders && route.request().isNavigationRequest()
      ? route.fulfill({
          status: 200,
          contentType: "text/html",
          headers: { "cache-control": "no-store" },
          body: PLACEHOLDER,
        })
      : route.fallback(),
  );
  let routed = true;
  // The real page's requests are not intercepted at all.
  const realPages = async () => {
    placeholders = false;
    if (routed) {
      routed = false;
      await page.unroute(matcher);
    }
  };
  try {
    await goto(entries[0]);
    await input.beforeStack?.();
    await send("Page.resetNavigationHistory");
    for (let i = 1; i < (direct ? index : entries.length); i++) {
      // Chromium folds a navigation to the current URL into its entry: push a same-URL entry instead.
      if (entries[i] === entries[i - 1] && isHttp(entries[i]))
        await page.evaluate("history.pushState(null, '', location.href)");
      // Each placeholder is a new document, most often in a new renderer frame: wait for its
      // load (not only the commit), so the next step talks to the new document.
      else await goto(entries[i]);
    }
    if (direct) {
      await realPages();
      await loadWithTabStorage(page, input.tabStorage, current, () => goto(current));
      return;
    }
    const built = await send<NavigationHistory>("Page.getNavigationHistory");
    if (built.currentIndex !== index) {
      // Fires on the commit of the entry's placeholder, and on a same-document entry too.
      const navigated = page.waitForEvent("framenavigated", {
        predicate: (f) => f === page.mainFrame(),
        timeout: 20_000,
      });
      await send("Page.navigateToHistoryEntry", {
        entryId: built.entries[Math.min(index, built.entries.length - 1)].id,
      });
      await navigated;
      await page.waitForLoadState("load");
    }
    await realPages();
    await loadWithTabStorage(page, input.tabStorage, current, () =>
      page.reload({ waitUntil: "load", timeout: 20_000 }),
    );
  } finally {
    placeholders = false;
    if (routed) await page.unroute(matcher);
  }
}

/**
 * Run `load` (a navigation to `url` or a reload of it) with the tab storage of `url`'s origin
 * put back in the new document before the page's own scripts run: an init script of the page,
 * for the top frame on that origin only, removed once `load` is over.
 */
export async function loadWithTabStorage(
  page: Page,
  script: ((origin: string) => string) | undefined,
  url: string,
  load: () => Promise<unknown>,
): Promise<void> {
  if (!script || !isHttp(url)) {
    await load();
    return;
  }
  const origin = new URL(url).origin;
  const init = await page.addInitScript({
    content: `if (window === window.top && location.origin === ${JSON.stringify(origin)}) { try { ${script(origin)}; } catch (e) {} }`,
  });
  try {
    await load();
  } finally {
    await init.dispose().catch(() => undefined);
  }
}

/** A page script replacing the page origin's sessionStorage. */
export function sessionScript(items: Array<[string, string]>): string {
  return `((items) => { sessionStorage.clear(); for (const [k, v] of items) sessionStorage.setItem(k, v); })(${JSON.stringify(items)})`;
}
