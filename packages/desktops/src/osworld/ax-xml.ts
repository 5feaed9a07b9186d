/**
 * `/accessibility` as OSWorld's parsers read it: namespace-valid XML whose root is
 * `desktop-frame`, with OSWorld's Ubuntu namespaces (`st:` states, `attr:` attributes, `cp:`
 * screen coordinates and size, `val:` values), every AT-SPI state of a node, and coordinates only
 * for nodes that are showing and visible. The tree comes from the one AT-SPI walker (../x11/atspi-walker.ts) run as
 * the desktop user (never model output); the XML is written here, in TypeScript.
 */
import type { DesktopBackend } from "../x11/backend.ts";
import { walkAtspi, type RawAxNode } from "../x11/atspi-walker.ts";

/** OSWorld's namespace URIs for Linux desktops. */
export const OSWORLD_AX_NS = {
  st: "https://accessibility.ubuntu.example.org/ns/state",
  attr: "https://accessibility.ubuntu.example.org/ns/attributes",
  cp: "https://accessibility.ubuntu.example.org/ns/component",
  doc: "https://accessibility.ubuntu.example.org/ns/document",
  docattr: "https://accessibility.ubuntu.example.org/ns/document/attributes",
  txt: "https://accessibility.ubuntu.example.org/ns/text",
  val: "https://accessibility.ubuntu.example.org/ns/value",
  act: "https://accessibility.ubuntu.example.org/ns/action",
} as const;

export type { RawAxNode } from "../x11/atspi-walker.ts";

/**
 * Dump every application's tree in OSWorld's detail, through the one AT-SPI walker: coordinates only for nodes that are
 * showing and visible.
 */
export async function dumpOsworldAx(backend: DesktopBackend): Promise<RawAxNode[]> {
  const strip = (n: RawAxNode): RawAxNode => {
    const { extents, text, caret: _caret, selections: _selections, children, ...rest } = n;
    const out: RawAxNode = { ...rest };
    if (extents && n.states.includes("showing") && n.states.includes("visible")) out.extents = extents;
    if (text !== undefined) out.text = text.replace(/\ufffc/g, "").replace(/\ufffd/g, "");
    if (children) out.children = children.map(strip);
    return out;
  };
  return (await walkAtspi(backend)).children.map(strip);
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** An XML element name for a role ("push button" -> "push-button"), as OSWorld forms it. */
export function roleTag(role: string): string {
  const t = (role.trim() || "unknown").replace(/\s+/g, "-").replace(/[^A-Za-z0-9._-]/g, "-");
  return /^[A-Za-z_]/.test(t) ? t : `tag${t}`;
}

const escAttr = (s: string): string =>
  xmlChars(s)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
const escText = (s: string): string => xmlChars(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Characters XML 1.0 cannot hold at all (control characters) are dropped. */
const xmlChars = (s: string): string => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "");

function element(n: RawAxNode): string {
  const attrs: string[] = [`name="${escAttr(n.name)}"`];
  for (const s of n.states) if (XML_NAME.test(s)) attrs.push(`st:${s}="true"`);
  for (const [k, v] of Object.entries(n.attrs ?? {})) if (XML_NAME.test(k)) attrs.push(`attr:${k}="${escAttr(v)}"`);
  if (n.extents)
    attrs.push(`cp:screencoord="(${n.extents[0]}, ${n.extents[1]})"`, `cp:size="(${n.extents[2]}, ${n.extents[3]})"`);
  for (const [k, v] of Object.entries(n.value ?? {})) if (typeof v === "number") attrs.push(`val:${k}="${v}"`);
  const tag = roleTag(n.role);
  const inner = (n.text ? escText(n.text) : "") + (n.children ?? []).map(element).join("");
  return `<${tag} ${attrs.join(" ")}>${inner}</${tag}>`;
}

/** The whole desktop as OSWorld's `/accessibility` `AT` string. */
export function osworldAxXml(apps: RawAxNode[]): string {
  const ns = Object.entries(OSWORLD_AX_NS)
    .map(([p, uri]) => `xmlns:${p}="${uri}"`)
    .join(" ");
  return `<desktop-frame ${ns}>${apps.map(element).join("")}</desktop-frame>`;
}
