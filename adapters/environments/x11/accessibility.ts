/**
 * Accessibility trees from AT-SPI (pyatspi), run as the desktop user on its session bus.
 * The Python below is our own fixed script, never model output.
 */
import type { AxNode } from "../../../src/observation.ts";
import { EnvironmentError } from "../../../src/errors.ts";
import type { DesktopBackend } from "./backend.ts";

const DUMP_AX_PY = String.raw`
import json, sys
import pyatspi
WANT = {pyatspi.STATE_FOCUSED: "focused", pyatspi.STATE_SELECTED: "selected", pyatspi.STATE_CHECKED: "checked", pyatspi.STATE_EXPANDED: "expanded"}
def node(acc, depth):
    try:
        d = {"role": acc.getRoleName(), "name": acc.name or ""}
    except Exception:
        return None
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        d["bounds"] = [e.x, e.y, e.width, e.height]
    except Exception:
        pass
    try:
        s = acc.getState()
        st = [v for k, v in WANT.items() if s.contains(k)]
        if not s.contains(pyatspi.STATE_ENABLED) and depth > 1 and d["role"] in ("push button", "menu item", "check box", "text", "toggle button"):
            st.append("disabled")
        if st:
            d["states"] = st
    except Exception:
        pass
    try:
        t = acc.queryText()
        d["value"] = t.getText(0, min(t.characterCount, 4000))
        try:
            if t.caretOffset >= 0:
                d["caret"] = t.caretOffset
            sel = [list(t.getSelection(i)) for i in range(min(t.getNSelections(), 16))]
            sel = [s for s in sel if s[0] != s[1]]
            if sel:
                d["selections"] = sel
        except Exception:
            pass
    except Exception:
        pass
    kids = []
    if depth < 60:
        try:
            n = min(acc.childCount, 400)
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
sys.stdout.write(json.dumps(node(pyatspi.Registry.getDesktop(0), 0)))
`;

/** Dump the desktop's accessibility tree (all apps) as an {@link AxNode}. */
export async function dumpAxTree(backend: DesktopBackend): Promise<AxNode> {
  const r = await backend.exec(["/usr/bin/python3", "-I", "-c", DUMP_AX_PY], { timeoutMs: 20_000 });
  if (r.code !== 0) {
    throw new EnvironmentError(`accessibility dump failed (${r.code}): ${r.stderr.trim().split("\n").pop() ?? ""}; install python3-pyatspi and at-spi2-core`);
  }
  return JSON.parse(r.stdout.toString("utf8")) as AxNode;
}

/** Every node of a tree, depth first. */
export function* walkAx(node: AxNode): Generator<AxNode> {
  yield node;
  for (const c of node.children ?? []) yield* walkAx(c);
}

/** The application subtree with this name (case-insensitive), if any. */
export function findApp(root: AxNode, app: string): AxNode | undefined {
  return (root.children ?? []).find((c) => c.name.toLowerCase() === app.toLowerCase());
}
