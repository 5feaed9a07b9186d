/**
 * What the page shows and holds, read in the page with one script: an accessibility-style tree
 * (roles, names, bounds, states, values, in document order) for the `a11y_tree` observation, and
 * the values of every form control, the focused control, its selection, the scroll position,
 * and the origin's localStorage, sessionStorage and IndexedDB contents (the last as a JSON digest
 * for the state hash and probes; snapshots save IndexedDB through Playwright's storage state). The scripts are plain
 * JavaScript strings (a bundler's helpers
 * would not exist in the page).
 */
import type { Page } from "playwright-core";
import type { AxNode } from "@retrace-cua/core/observation";

/** One form control's value, keyed by tag, name and position (`input:to:0`, `input:shipping=express:0`). */
export interface FormValue {
  key: string;
  value?: string;
  checked?: boolean;
}

/** The page-side state a snapshot keeps besides storage and the URL. */
export interface PageState {
  title: string;
  url: string;
  ax: AxNode;
  forms: FormValue[];
  /** Key of the focused form control, with its selection. */
  focus: { key: string; start: number | null; end: number | null } | null;
  /**
   * Whether the focused control draws its focus ring (`:focus-visible`): a control focused by a
   * click draws none, one focused by script or keyboard does. Null when no control is focused.
   */
  focusVisible: boolean | null;
  /**
   * Whether any element is hovered: after a navigation the new document knows no pointer until
   * the mouse moves, so the button under it is drawn plain although the pointer is over it.
   */
  hover: boolean;
  scroll: [number, number];
  /** The page origin's localStorage entries, sorted by key. */
  local: Array<[string, string]>;
  /** The tab's sessionStorage entries for the page origin, sorted by key. */
  session: Array<[string, string]>;
  /** The origin's IndexedDB databases, sorted by name, with each store's records. */
  idb: IdbDatabase[];
}

/** One IndexedDB database as read for hashing and probes (values as JSON; Blobs and the like lose their contents). */
export interface IdbDatabase {
  name: string;
  version: number;
  stores: Array<{ name: string; records: Array<[unknown, unknown]> }>;
}

const KEY_FN = `
const keyOf = (el, all) => {
  const tag = el.tagName.toLowerCase();
  const t = (el.type || '').toLowerCase();
  const base = tag + ':' + (el.name || el.id || '') + ((t === 'radio' || t === 'checkbox') ? '=' + el.value : '');
  const i = all.filter((o) => o.k === base).length;
  all.push({ k: base });
  return base + ':' + i;
};
const controls = () => { const all = []; return Array.from(document.querySelectorAll('input,textarea,select')).filter((el) => !['submit','button','hidden','reset','image'].includes((el.type||'').toLowerCase())).map((el) => ({ el, key: keyOf(el, all) })); };
`;

/**
 * Reads every IndexedDB database of the origin without changing it: opening at the listed version
 * never upgrades, and an open that would create a database (deleted meanwhile) is aborted.
 */
const IDB_FN = `
const readIdb = async () => {
  if (!self.indexedDB || !indexedDB.databases) return [];
  const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
  const out = [];
  for (const info of (await indexedDB.databases()).filter((d) => d.name).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const open = indexedDB.open(info.name, info.version);
    open.onupgradeneeded = () => open.transaction.abort();
    let db;
    try { db = await req(open); } catch (e) { continue; }
    try {
      const names = Array.from(db.objectStoreNames).sort();
      const stores = [];
      if (names.length) {
        const tx = db.transaction(names, 'readonly');
        for (const name of names) {
          const st = tx.objectStore(name);
          const [keys, values] = await Promise.all([req(st.getAllKeys()), req(st.getAll())]);
          stores.push({ name, records: keys.map((k, i) => [k, JSON.parse(JSON.stringify(values[i]) ?? 'null')]) });
        }
      }
      out.push({ name: info.name, version: db.version, stores });
    } finally { db.close(); }
  }
  return out;
};
`;

const READ = `(async () => {
${IDB_FN}
${KEY_FN}
const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
const box = (el) => { const r = el.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]; };
const clean = (s) => (s || '').replace(/\\s+/g, ' ').trim().slice(0, 200);
const roleOf = (el) => {
  const tag = el.tagName.toLowerCase(); const t = (el.type || '').toLowerCase(); const aria = el.getAttribute('role');
  if (aria === 'heading' || /^h[1-6]$/.test(tag)) return 'heading';
  if (aria) return aria;
  if (tag === 'a' && el.hasAttribute('href')) return 'link';
  if (tag === 'button' || (tag === 'input' && ['submit','button','reset'].includes(t))) return 'button';
  if (tag === 'input' && t === 'checkbox') return 'check box';
  if (tag === 'input' && t === 'radio') return 'radio button';
  if (tag === 'input' || tag === 'textarea') return 'text field';
  if (tag === 'select') return 'combo box';
  if (tag === 'label') return 'label';
  return null;
};
const nodes = [];
const walk = (el) => {
  for (const child of el.children) {
    if (['SCRIPT','STYLE','HEAD'].includes(child.tagName) || !visible(child) && child.children.length === 0) continue;
    let role = roleOf(child);
    const ownText = Array.from(child.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!role && ownText) role = 'text';
    if (role && visible(child)) {
      const name = clean(child.getAttribute('aria-label') || (child.labels && child.labels[0] && child.labels[0].textContent) || (role === 'text field' ? child.placeholder : '') || child.innerText || child.value);
      const n = { role, name, bounds: box(child) };
      const states = [];
      if (document.activeElement === child) states.push('focused');
      if (child.checked) states.push('checked');
      if (child.disabled) states.push('disabled');
      if (states.length) n.states = states;
      if (role === 'text field' || role === 'combo box') n.value = child.value;
      nodes.push(n);
      if (['link','button','text field','check box','radio button','label','combo box'].includes(role)) continue;
    }
    walk(child);
  }
};
walk(document.body || document.documentElement);
const entries = (get) => { try { const st = get(); return Object.keys(st).sort().map((k) => [k, st.getItem(k)]); } catch (e) { return []; } };
const ctl = controls();
const forms = ctl.map(({ el, key }) => { const t = (el.type || '').toLowerCase(); return (t === 'radio' || t === 'checkbox') ? { key, checked: el.checked } : { key, value: el.value }; });
const f = ctl.find(({ el }) => el === document.activeElement);
let focus = null;
if (f) { let start = null, end = null; try { start = f.el.selectionStart; end = f.el.selectionEnd; } catch (e) {} focus = { key: f.key, start, end }; }
const focusVisible = f ? f.el.matches(':focus-visible') : null;
return { title: document.title, url: location.href, ax: { role: 'document', name: clean(document.title), bounds: [0, 0, innerWidth, innerHeight], children: nodes }, forms, focus, focusVisible, hover: document.querySelector(':hover') !== null, scroll: [Math.round(scrollX), Math.round(scrollY)], local: entries(() => localStorage), session: entries(() => sessionStorage), idb: await readIdb().catch(() => []) };
})()`;

/** Read the page's tree, form values, focus, scroll and the origin's storage. */
export async function readPageState(page: Page): Promise<PageState> {
  return (await page.evaluate(READ)) as PageState;
}

/**
 * What {@link writePageState} puts back; `focusVisible` absent (an older snapshot): the browser decides the focus ring.
 */
export type WrittenPageState = Pick<PageState, "forms" | "focus" | "scroll"> & Partial<Pick<PageState, "focusVisible">>;

/**
 * Put form values, focus (with selection and, when known, with or without its focus ring) and
 * scroll back, without firing input events (the page's own scripts already ran when its storage
 * was saved). Returns the keys not found.
 */
export async function writePageState(page: Page, state: WrittenPageState): Promise<string[]> {
  const script = `((s) => {
${KEY_FN}
const byKey = new Map(controls().map(({ el, key }) => [key, el]));
const missing = [];
for (const f of s.forms) { const el = byKey.get(f.key); if (!el) { missing.push(f.key); continue; } if (f.checked !== undefined) el.checked = f.checked; else el.value = f.value; }
if (s.focus) { const el = byKey.get(s.focus.key); if (el) { el.focus(typeof s.focusVisible === 'boolean' ? { focusVisible: s.focusVisible } : undefined); try { if (s.focus.start !== null) el.setSelectionRange(s.focus.start, s.focus.end); } catch (e) {} } else missing.push(s.focus.key); }
else if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
scrollTo(s.scroll[0], s.scroll[1]);
return missing;
})(${JSON.stringify({ forms: state.forms, focus: state.focus, focusVisible: state.focusVisible, scroll: state.scroll })})`;
  return (await page.evaluate(script)) as string[];
}
