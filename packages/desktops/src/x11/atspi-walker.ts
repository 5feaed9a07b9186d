/**
 * The one AT-SPI tree walker (pyatspi), run as the desktop user on its session bus. Both readers
 * use it: the X11 desktop's accessibility tree (./accessibility.ts, an `AxNode` per node) and
 * OSWorld's `/accessibility` XML (../osworld/ax-xml.ts). It reports every field either needs, with
 * one set of limits (AX_LIMITS); each reader keeps what it shows. The Python below is our own
 * fixed script, never model output.
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import type { DesktopBackend } from "./backend.ts";

/** The walker's bounds: tree depth, children read per node, characters of text per node, selections. */
export const AX_LIMITS = { depth: 60, children: 1024, text: 20_000, selections: 16, timeoutMs: 30_000 } as const;

/** One node as the walker reports it. */
export interface RawAxNode {
  role: string;
  name: string;
  /** Every AT-SPI state, lower case without `STATE_` ("focused", "showing", "enabled", ...). */
  states: string[];
  attrs?: Record<string, string>;
  /** x, y, width, height in screen coordinates. */
  extents?: [number, number, number, number];
  text?: string;
  caret?: number;
  selections?: Array<[number, number]>;
  value?: { value?: number; min?: number; max?: number; step?: number };
  children?: RawAxNode[];
}

const WALK_PY = String.raw`
import json, sys
import pyatspi
DEPTH, CHILDREN, TEXT, SELECTIONS = ${AX_LIMITS.depth}, ${AX_LIMITS.children}, ${AX_LIMITS.text}, ${AX_LIMITS.selections}
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
    try:
        e = acc.queryComponent().getExtents(pyatspi.XY_SCREEN)
        d["extents"] = [e.x, e.y, e.width, e.height]
    except Exception:
        pass
    try:
        t = acc.queryText()
        d["text"] = t.getText(0, min(t.characterCount, TEXT))
        try:
            if t.caretOffset >= 0:
                d["caret"] = t.caretOffset
            sel = [list(t.getSelection(i)) for i in range(min(t.getNSelections(), SELECTIONS))]
            sel = [s for s in sel if s[0] != s[1]]
            if sel:
                d["selections"] = sel
        except Exception:
            pass
    except Exception:
        pass
    try:
        v = acc.queryValue()
        d["value"] = {"value": v.currentValue, "min": v.minimumValue, "max": v.maximumValue, "step": v.minimumIncrement}
    except Exception:
        pass
    kids = []
    if depth < DEPTH:
        try:
            n = min(acc.childCount, CHILDREN)
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
sys.stdout.write(json.dumps({"role": desk.getRoleName() or "desktop frame", "name": desk.name or "", "children": apps}))
`;

/** The desktop node (role, name) with every application's tree as its children. */
export async function walkAtspi(
  backend: DesktopBackend,
): Promise<{ role: string; name: string; children: RawAxNode[] }> {
  const r = await backend.exec(["/usr/bin/python3", "-I", "-c", WALK_PY], { timeoutMs: AX_LIMITS.timeoutMs });
  if (r.code !== 0)
    throw new EnvironmentError(
      `accessibility dump failed (${r.code}): ${r.stderr.trim().split("\n").pop() ?? ""}; install python3-pyatspi and at-spi2-core`,
    );
  return JSON.parse(r.stdout.toString("utf8")) as { role: string; name: string; children: RawAxNode[] };
}
