/**
 * HTML helpers for the built-in web apps. Every interactive element sits at a fixed rectangle
 * (absolute CSS positioning in a 1280x800 viewport), so a task's reference plan can click the
 * centre of a rectangle from ./layout.ts and land on the same element in every run.
 */

/** A rectangle `[x, y, width, height]` in CSS pixels of the 1280x800 viewport. */
export type Rect = readonly [number, number, number, number];

/** HTML-escape text for element content and attribute values. */
export function esc(text: string | number): string {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** `style` for a rectangle. */
export function at(r: Rect): string {
  return `position:absolute;left:${r[0]}px;top:${r[1]}px;width:${r[2]}px;height:${r[3]}px;box-sizing:border-box`;
}

/** A label to the left of a field (160 px wide, ending 10 px before the field). */
export function label(forId: string, text: string, field: Rect): string {
  return `<label for="${forId}" style="${at([field[0] - 170, field[1], 160, field[3]])};line-height:${field[3]}px;text-align:right">${esc(text)}</label>`;
}

/** A text input with its label. */
export function textField(name: string, text: string, r: Rect, value = "", type = "text"): string {
  return `${label(name, text, r)}<input id="${name}" name="${name}" type="${type}" value="${esc(value)}" autocomplete="off" style="${at(r)}">`;
}

/** A textarea with its label. */
export function textArea(name: string, text: string, r: Rect, value = ""): string {
  return `${label(name, text, r)}<textarea id="${name}" name="${name}" style="${at(r)};resize:none">${esc(value)}</textarea>`;
}

/** A checkbox or radio button (20x20 at `r`) with its text to the right. */
export function choice(
  kind: "checkbox" | "radio",
  name: string,
  value: string,
  text: string,
  r: Rect,
  checked: boolean,
): string {
  const id = `${name}-${value}`;
  return `<input id="${id}" type="${kind}" name="${name}" value="${esc(value)}"${checked ? " checked" : ""} style="${at(r)};margin:0"><label for="${id}" style="position:absolute;left:${r[0] + r[2] + 6}px;top:${r[1]}px;line-height:${r[3]}px">${esc(text)}</label>`;
}

/** A submit button; `formaction` posts its form elsewhere. */
export function button(
  text: string,
  r: Rect,
  opts: { formaction?: string; name?: string; value?: string; primary?: boolean } = {},
): string {
  const attrs = [
    opts.formaction ? ` formaction="${esc(opts.formaction)}"` : "",
    opts.name ? ` name="${esc(opts.name)}" value="${esc(opts.value ?? "")}"` : "",
  ].join("");
  return `<button type="submit"${attrs} style="${at(r)}${opts.primary ? ";background:#2b6cb0;color:#fff;border:0" : ""}">${esc(text)}</button>`;
}

/** A one-button form posting to `action`. */
export function postButton(action: string, text: string, r: Rect, opts: { primary?: boolean } = {}): string {
  return `<form method="post" action="${esc(action)}" style="margin:0">${button(text, r, opts)}</form>`;
}

/** A link drawn as a box. */
export function linkBox(href: string, text: string, r: Rect, opts: { bold?: boolean } = {}): string {
  return `<a href="${esc(href)}" style="${at(r)};display:block;line-height:${r[3]}px;padding:0 8px;overflow:hidden;white-space:nowrap;text-decoration:none;color:#1a365d;border:1px solid #cbd5e0${opts.bold ? ";font-weight:bold" : ""}">${esc(text)}</a>`;
}

/** Text at a rectangle. */
export function text(content: string, r: Rect, opts: { bold?: boolean; role?: string; id?: string } = {}): string {
  const attrs = `${opts.role ? ` role="${opts.role}"` : ""}${opts.id ? ` id="${opts.id}"` : ""}`;
  return `<div${attrs} style="${at(r)};overflow:hidden;white-space:pre-wrap${opts.bold ? ";font-weight:bold" : ""}">${esc(content)}</div>`;
}

/** The rectangle of the i-th link in the title bar. */
export function navRect(i: number): Rect {
  return [220 + i * 130, 7, 120, 30];
}

/** A whole page: fixed-size body, no animations, a title bar with the app's links. */
export function page(title: string, nav: Array<[string, string]>, body: string, script = ""): string {
  const links = nav
    .map(
      ([href, t], i) =>
        `<a href="${esc(href)}" style="${at(navRect(i))};display:block;line-height:30px;text-align:center;color:#fff;border:1px solid #718096;text-decoration:none">${esc(t)}</a>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
*{animation:none!important;transition:none!important;caret-color:transparent}
body{margin:0;width:1280px;height:800px;position:relative;font:15px DejaVu Sans,sans-serif;overflow:hidden;background:#fff}
body.dark{background:#1a202c;color:#e2e8f0}
header{position:absolute;left:0;top:0;width:1280px;height:44px;background:#2d3748;color:#fff}
input,textarea,button{font:15px DejaVu Sans,sans-serif}
</style></head><body><header><div style="position:absolute;left:20px;top:12px;font-weight:bold">${esc(title)}</div>${links}</header>${body}${script ? `<script>${script}</script>` : ""}</body></html>`;
}
