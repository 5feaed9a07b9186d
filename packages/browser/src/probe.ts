/**
 * The browser's state probes (packages/core/src/probes/report.ts): the URL (`url`), the page title
 * (`dom:title`), digests of the DOM's accessibility tree (`ax:page:tree|text|states|enabled`),
 * every form control's value (`form:<key>`) and the focused one (`focus`), cookies
 * (`cookie:<name>`), localStorage entries (`storage:<key>`), sessionStorage entries
 * (`session:<key>`), one digest per IndexedDB object store (`idb:<db>/<store>`), the tab's history
 * (`history`: entry URLs and position), and the app's server state: one
 * digest per section of the built-in apps (`app:mail.messages`, `app:shop.orders`...) or per
 * top-level key of a user's state endpoint.
 */
import type { BrowserContext, Page } from "playwright-core";
import { axProbeItems, shortDigest } from "@retrace-cua/evaluation/probes/ax-digest";
import { makeProbeReport, type ProbeReport } from "@retrace-cua/core/probes/report";
import { stableStringify } from "@retrace-cua/core/hash";
import type { AppStateAccess } from "./app-state.ts";
import type { HistoryState } from "./history.ts";
import { readPageState } from "./page-state.ts";

/** What {@link probeBrowser} reads. */
export interface BrowserProbeInput {
  page: Page;
  context: BrowserContext;
  appState?: AppStateAccess;
  /** URL relative to the app's origin. */
  relative: (url: string) => string;
  /** The tab's history (read through CDP by the environment). */
  history?: HistoryState;
}

const short = (v: string) => (v.length <= 40 ? JSON.stringify(v) : `len=${v.length} sha256=${shortDigest(v)}`);

/** Probe the page, its storage and its app's server state. */
export async function probeBrowser(input: BrowserProbeInput): Promise<ProbeReport> {
  const items: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const ps = await readPageState(input.page);
  items.url = input.relative(ps.url);
  items["dom:title"] = ps.title;
  Object.assign(items, axProbeItems({ role: "browser", name: "", children: [{ ...ps.ax, name: "page" }] }));
  for (const f of ps.forms)
    items[`form:${f.key}`] = f.checked !== undefined ? (f.checked ? "checked" : "unchecked") : short(f.value ?? "");
  items.focus = ps.focus ? `${ps.focus.key} sel=${ps.focus.start ?? "-"}-${ps.focus.end ?? "-"}` : "none";
  const storage = await input.context.storageState();
  for (const c of storage.cookies) items[`cookie:${c.name}`] = short(c.value);
  for (const o of storage.origins) for (const e of o.localStorage) items[`storage:${e.name}`] = short(e.value);
  for (const [k, v] of ps.session) items[`session:${k}`] = short(v);
  for (const db of ps.idb)
    for (const st of db.stores)
      items[`idb:${db.name}/${st.name}`] =
        `v${db.version} records=${st.records.length} sha256=${shortDigest(stableStringify(st.records))}`;
  if (input.history)
    items.history = `${input.history.index + 1}/${input.history.entries.length} ${shortDigest(input.history.entries.map(input.relative).join("\n"))}`;
  if (input.appState) {
    try {
      const state = await input.appState.read();
      const sections = appSections(state);
      for (const [k, v] of Object.entries(sections)) items[`app:${k}`] = shortDigest(stableStringify(v));
    } catch (err) {
      errors.app = err instanceof Error ? err.message : String(err);
    }
  }
  return makeProbeReport("browser", items, errors);
}

/** Sections of a state: two levels for objects of objects (`mail.messages`), else top-level keys. */
function appSections(state: unknown): Record<string, unknown> {
  if (!state || typeof state !== "object" || Array.isArray(state)) return { state };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state as Record<string, unknown>)) {
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) out[`${k}.${k2}`] = v2;
    else out[k] = v;
  }
  return out;
}
