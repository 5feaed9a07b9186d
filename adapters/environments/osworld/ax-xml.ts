/**
 * `/accessibility` as OSWorld's parsers read it: namespace-valid XML whose root is
 * `desktop-frame`, with OSWorld's Ubuntu namespaces (`st:` states, `attr:` attributes, `cp:`
 * screen coordinates and size, `val:` values), every AT-SPI state of a node, and coordinates only
 * for nodes that are showing and visible. The tree comes from our own fixed AT-SPI script run as
 * the desktop user (never model output); the XML is written here, in TypeScript.
 */
import { EnvironmentError } from "../../../src/errors.ts";
import type { DesktopBackend } from "../x11/backend.ts";

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

/** One node as the dump script reports it. */
export interface RawAxNode {
  role: string;
  name: string;
  states: string[];
  attrs?: Record<string, string>;
  /** x, y, width, height in screen coordinates. */
  extents?: [number, number, number, number];
  text?: string;
  value?: { value?: number; min?: number; max?: number; step?: number };
  children?: RawAxNode[];
}

const DUMP_PY = String.raw`
import json, sys
import pyatspi
def states(acc):
    out = []
    try:
        for st in acc.getState().get_states():
            name = pyatspi.StateType._enum_lookup.get(int(st), "")
            if name.startswith("STATE_"):
                out.append(name[6:].lower())
    except Exception:
        pass
    return out
def node(acc, depth):
    try:
        d = {"role": acc.getRoleName() or "unknown", "name": acc.name or "", "states": states(acc)}
    except Exception:
        return None
    try:
        a = acc.get_attributes()
        if a:
            d["attrs"] = {str(k): str(v) for k, v in (a.items() if hasattr(a, "items") else [x.split(":", 1) for x in a if ":" in x])}
    except Exception:
        pass
    if "showing" in d["states"] and "visible" in d["states"]:
        try:
            e = acc.queryComponent().getExtents(pyatspi.XY_SCREEN)
            d["extents"] = [e.x, e.y, e.width, e.height]
        except Exception:
            pass
    try:
        t = acc.queryText()
        d["text"] = t.getText(0, min(t.characterCount, 20000)).replace("\ufffc", "").replace("\ufffd", "")
    except Exception:
        pass
    try:
        v = acc.queryValue()
        d["value"] = {"value": v.currentValue, "min": v.minimumValue, "max": v.maximumValue, "step": v.minimumIncrement}
    except Exception:
        pass
    kids = []
    if depth < 50:
        try:
            n = min(acc.childCount, 1024)
        except Exception:
            n = 0
        for i in range(n):
            try:
                c = node(acc.getChildAtIndex(i), depth + 1)
            except Exception:
                c = None
            if c:
                kids.append(c)
    if kids:
        d["children"] = kids
    return d
desk = pyatspi.Registry.getDesktop(0)
apps = []
for i in range(desk.childCount):
    try:
        c = node(desk.getChildAtIndex(i), 1)
    except Exception:
        c = None
    if c:
        apps.append(c)
sys.stdout.write(json.dumps(apps))
`;

/** Dump every application's tree in OSWorld's detail. */
export async function dumpOsworldAx(backend: DesktopBackend): Promise<RawAxNode[]> {
  const r = await backend.exec(["/usr/bin/python3", "-I", "-c", DUMP_PY], { timeoutMs: 30_000 });
  if (r.code !== 0) throw new EnvironmentError(`accessibility dump failed (${r.code}): ${r.stderr.trim().split("\n").pop() ?? ""}; install python3-pyatspi and at-spi2-core`);
  return JSON.parse(r.stdout.toString("utf8")) as RawAxNode[];
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** An XML element name for a role ("push button" -> "push-button"), as OSWorld forms it. */
export function roleTag(role: string): string {
  const t = (role.trim() || "unknown").replace(/\s+/g, "-").replace(/[^A-Za-z0-9._-]/g, "-");
  return /^[A-Za-z_]/.test(t) ? t : `tag${t}`;
}

const escAttr = (s: string): string => xmlChars(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
const escText = (s: string): string => xmlChars(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Characters XML 1.0 cannot hold at all (control characters) are dropped. */
const xmlChars = (s: string): string => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "");

function element(n: RawAxNode): string {
  const attrs: string[] = [`name="${escAttr(n.name)}"`];
  for (const s of n.states) if (XML_NAME.test(s)) attrs.push(`st:${s}="true"`);
  for (const [k, v] of Object.entries(n.attrs ?? {})) if (XML_NAME.test(k)) attrs.push(`attr:${k}="${escAttr(v)}"`);
  if (n.extents) attrs.push(`cp:screencoord="(${n.extents[0]}, ${n.extents[1]})"`, `cp:size="(${n.extents[2]}, ${n.extents[3]})"`);
  for (const [k, v] of Object.entries(n.value ?? {})) if (typeof v === "number") attrs.push(`val:${k}="${v}"`);
  const tag = roleTag(n.role);
  const inner = (n.text ? escText(n.text) : "") + (n.children ?? []).map(element).join("");
  return `<${tag} ${attrs.join(" ")}>${inner}</${tag}>`;
}

/** The whole desktop as OSWorld's `/accessibility` `AT` string. */
export function osworldAxXml(apps: RawAxNode[]): string {
  const ns = Object.entries(OSWORLD_AX_NS).map(([p, uri]) => `xmlns:${p}="${uri}"`).join(" ");
  return `<desktop-frame ${ns}>${apps.map(element).join("")}</desktop-frame>`;
}
