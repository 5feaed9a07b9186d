/**
 * SimDesk's state probes: its hidden state as probe items (packages/core/src/probes/report.ts). Files
 * (`file:<path>` with size and content hash, `dir:<path>`), every setting of the hidden config
 * file (`setting:<key>`), the Trash, the clipboard, open windows and dialogs, the open menu, the
 * focused window, and accessibility digests of the windows (noise excluded: the ticking clock
 * and notification pop-ups are not state).
 */
import { axProbeItems, shortDigest } from "@retrace-cua/evaluation/probes/ax-digest";
import { makeProbeReport, type ProbeReport } from "@retrace-cua/core/probes/report";
import { toAxTree } from "./ax.ts";
import { readSettings } from "./settings-schema.ts";
import type { DeskState } from "./types.ts";
import type { UiNode } from "./ui-types.ts";
import { buildUi, topWindow } from "./ui.ts";

const NOISE_IDS = new Set(["popup", "taskbar.clock"]);

/** Probe a SimDesk state rendered at `width` x `height`. */
export function probeDeskState(s: DeskState, width: number, height: number): ProbeReport {
  const items: Record<string, string> = {};
  for (const [path, node] of Object.entries(s.fs)) {
    if (node.type === "dir") items[`dir:${path}`] = "present";
    else items[`file:${path}`] = `size=${Buffer.byteLength(node.text)} sha256=${shortDigest(node.text)}`;
  }
  for (const [key, value] of Object.entries(readSettings(s.fs))) items[`setting:${key}`] = String(value);
  for (const t of s.trash) items[`trash:${t.key}`] = `from=${t.from} sha256=${shortDigest(JSON.stringify(t.tree))}`;
  items.clipboard =
    s.clipboard.kind === "empty"
      ? "empty"
      : s.clipboard.kind === "text"
        ? `text sha256=${shortDigest(s.clipboard.text)}`
        : `files ${s.clipboard.op} ${s.clipboard.paths.join(",")}`;
  for (const w of s.windows)
    items[`window:${w.id}`] = `${w.minimized ? "minimized" : "open"}${w.dialog ? ` dialog=${w.dialog.kind}` : ""}`;
  items.menu = s.menu ? `${s.menu.win}:${s.menu.name}` : "none";
  const top = topWindow(s);
  items.focus = top ? `${top.id}${top.dialog ? ` (${top.dialog.kind} dialog)` : ""}` : "desktop";
  // Keyed by widget id ("editor", "settings", "taskbar"): a window's title changes with its
  // content (the settings page), and the key should not.
  const ui = withoutNoise(buildUi(s, width, height));
  Object.assign(
    items,
    axProbeItems({
      role: "desktop",
      name: "",
      children: (ui.children ?? []).map((c) => ({ ...toAxTree(c), name: c.id })),
    }),
  );
  return makeProbeReport("simdesk", items);
}

function withoutNoise(n: UiNode): UiNode {
  if (!n.children) return n;
  return { ...n, children: n.children.filter((c) => !NOISE_IDS.has(c.id)).map(withoutNoise) };
}
