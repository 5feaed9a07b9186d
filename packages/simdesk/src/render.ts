/**
 * Renders a UI tree to SVG (pure string building) and rasterises it to PNG with sharp.
 * Hover highlight is drawn on the interactive widget under the pointer.
 */
import { svgPngRenderer, svgToPng } from "@retrace-cua/core/image/svg-png";
import type { Rect, UiContext, UiNode } from "./ui-types.ts";

const SANS = "DejaVu Sans";
const MONO = "DejaVu Sans Mono";
/** Styles that show no hover highlight. */
export const NO_HOVER = new Set(["window", "titlebar", "list", "dialog", "textarea", "desktop", "menu", "sidebar"]);

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function fit(text: string, width: number, size: number, mono = false): string {
  const per = mono ? size * 0.602 : size * 0.6;
  const max = Math.max(1, Math.floor(width / per));
  return text.length > max ? text.slice(0, Math.max(0, max - 1)) + "…" : text;
}

function rect(r: Rect, fill: string, extra = ""): string {
  return `<rect x="${r[0]}" y="${r[1]}" width="${r[2]}" height="${r[3]}" fill="${fill}" ${extra}/>`;
}

function text(x: number, y: number, t: string, size: number, fill: string, extra = ""): string {
  if (!t) return "";
  return `<text x="${x}" y="${y}" font-family="${SANS}" font-size="${size}" fill="${fill}" ${extra}>${esc(t)}</text>`;
}

/** Vertically centred label inside a rect. */
function label(
  r: Rect,
  t: string | undefined,
  size: number,
  fill: string,
  opts: { pad?: number; anchor?: "start" | "middle" | "end"; bold?: boolean } = {},
): string {
  if (!t) return "";
  const pad = opts.pad ?? 8;
  const anchor = opts.anchor ?? "start";
  const x = anchor === "middle" ? r[0] + r[2] / 2 : anchor === "end" ? r[0] + r[2] - pad : r[0] + pad;
  const y = Math.round(r[1] + r[3] / 2 + size * 0.36);
  return text(
    Math.round(x),
    y,
    fit(t, r[2] - 2 * pad, size),
    size,
    fill,
    `text-anchor="${anchor}"${opts.bold ? ' font-weight="bold"' : ""}`,
  );
}

function has(n: UiNode, state: string): boolean {
  return n.states?.includes(state) ?? false;
}

function drawNode(n: UiNode, ctx: UiContext, hover: string | undefined, out: string[]): void {
  const r = n.rect;
  const a = ctx.accent;
  const hovered = hover === n.id;
  const disabled = has(n, "disabled");
  switch (n.style) {
    case "desktop":
      out.push(rect(r, "#2d3e50"));
      break;
    case "taskbar":
      out.push(rect(r, "#1c232c"));
      break;
    case "launcher":
      out.push(
        rect(r, hovered ? "#4a5a6e" : "#323d4a", 'rx="4"'),
        label(r, n.text, 13, "#ffffff", { anchor: "middle" }),
      );
      break;
    case "taskitem":
      out.push(rect(r, hovered ? "#3f4c5c" : has(n, "active") ? "#34414f" : "#262e38", 'rx="3"'));
      if (has(n, "active")) out.push(rect([r[0], r[1] + r[3] - 3, r[2], 3], a));
      out.push(label(r, n.text, 12, has(n, "minimized") ? "#9aa6b4" : "#e8edf2"));
      break;
    case "clock":
      out.push(label(r, n.text, 14, "#ffffff", { anchor: "end" }));
      break;
    case "window":
      out.push(
        rect([r[0] + 4, r[1] + 4, r[2], r[3]], "#00000033"),
        rect(r, "#ffffff", 'stroke="#8d97a3" stroke-width="1"'),
      );
      break;
    case "titlebar": {
      const active = has(n, "active");
      out.push(rect(r, active ? "#d9dfe6" : "#eef1f4"));
      if (active) out.push(rect([r[0], r[1], r[2], 2], a));
      out.push(
        label([r[0], r[1], r[2] - 70, r[3]], n.text, ctx.largeTitles ? 16 : 13, active ? "#1d232a" : "#7a838d", {
          pad: 12,
          bold: active,
        }),
      );
      break;
    }
    case "winbtn":
    case "winbtn close":
      out.push(
        rect(r, hovered ? (n.style === "winbtn close" ? "#d9443b" : "#c3cad3") : "none", 'rx="3"'),
        label(r, n.text, 15, hovered && n.style === "winbtn close" ? "#ffffff" : "#3a424b", { anchor: "middle" }),
      );
      break;
    case "menubar":
      out.push(rect(r, "#f3f4f6"), rect([r[0], r[1] + r[3] - 1, r[2], 1], "#dde1e6"));
      break;
    case "menulabel":
      if (has(n, "expanded")) out.push(rect(r, a, 'rx="3"'));
      else if (hovered) out.push(rect(r, "#dfe5ec", 'rx="3"'));
      out.push(label(r, n.text, 13, has(n, "expanded") ? "#ffffff" : "#1f262d", { anchor: "middle" }));
      break;
    case "menu":
      out.push(rect([r[0] + 3, r[1] + 3, r[2], r[3]], "#00000040"), rect(r, "#ffffff", 'stroke="#9aa3ad"'));
      break;
    case "menuitem":
      if (hovered) out.push(rect(r, a, 'rx="3"'));
      out.push(label(r, n.text, 13, disabled ? "#a9b0b8" : hovered ? "#ffffff" : "#1f262d", { pad: 10 }));
      if (n.data?.shortcut)
        out.push(label(r, String(n.data.shortcut), 11, hovered ? "#e8eef6" : "#8a929b", { anchor: "end", pad: 10 }));
      break;
    case "button":
    case "primary": {
      const primary = n.style === "primary";
      const fill = primary ? a : hovered ? "#dde4ec" : "#eef0f3";
      out.push(rect(r, fill, `rx="4" stroke="${hovered ? a : "#b4bcc6"}" stroke-width="${hovered ? 2 : 1}"`));
      if (primary && hovered) out.push(rect(r, "#ffffff30", 'rx="4"'));
      out.push(label(r, n.text, 13, disabled ? "#a9b0b8" : primary ? "#ffffff" : "#1f262d", { anchor: "middle" }));
      break;
    }
    case "chip":
    case "option": {
      const on = has(n, "checked") || has(n, "selected");
      out.push(rect(r, on ? a : hovered ? "#dde4ec" : "#f1f3f6", `rx="13" stroke="${hovered ? a : "#b4bcc6"}"`));
      out.push(label(r, n.text, 13, on ? "#ffffff" : "#1f262d", { anchor: "middle" }));
      break;
    }
    case "sidebar":
      out.push(rect(r, "#eef1f5"), rect([r[0] + r[2] - 1, r[1], 1, r[3]], "#d6dbe1"));
      break;
    case "sideitem": {
      const sel = has(n, "selected");
      if (sel) out.push(rect(r, a, 'rx="4"'));
      else if (hovered) out.push(rect(r, "#d9e0e8", 'rx="4"'));
      out.push(label(r, n.text, 13, sel ? "#ffffff" : "#1f262d", { pad: 12, bold: sel }));
      break;
    }
    case "pathlabel":
      out.push(rect(r, "#f6f7f9", 'rx="4" stroke="#d3d8de"'), label(r, n.text, 13, "#39414a"));
      break;
    case "header": {
      out.push(rect(r, "#f6f7f9"), rect([r[0], r[1] + r[3] - 1, r[2], 1], "#d6dbe1"));
      for (const [name, dx] of (n.data?.cols as Array<[string, number]>) ?? [])
        out.push(label([r[0] + dx, r[1], 200, r[3]], name, 12, "#5b646e", { pad: 4, bold: true }));
      break;
    }
    case "list":
      out.push(rect(r, "#ffffff"));
      break;
    case "fileitem": {
      const sel = has(n, "selected");
      if (sel) out.push(rect(r, a + "40"));
      if (hovered) out.push(rect(r, a + "1f", `stroke="${a}"`));
      const dim = has(n, "cut") ? ' opacity="0.45"' : "";
      const ix = r[0] + 10;
      const iy = r[1] + 5;
      out.push(
        n.data?.dir
          ? `<path d="M${ix} ${iy + 3}h6l2 2h8v11h-16z" fill="#e3b341"${dim}/>`
          : `<path d="M${ix + 2} ${iy}h9l4 4v12h-13z" fill="#8fa6c9"${dim}/>`,
      );
      const rename = n.data?.rename as { text: string; all: boolean } | undefined;
      if (rename) {
        const fr: Rect = [r[0] + 32, r[1] + 2, Math.min(300, r[2] * 0.55), r[3] - 4];
        out.push(rect(fr, "#ffffff", `stroke="${a}" stroke-width="2"`));
        if (rename.all)
          out.push(
            rect([fr[0] + 4, fr[1] + 3, Math.min(fr[2] - 8, rename.text.length * 7.8 + 2), fr[3] - 6], a + "55"),
          );
        out.push(label(fr, rename.text + (rename.all ? "" : "|"), 13, "#111111", { pad: 5 }));
      } else
        out.push(label([r[0] + 32, r[1], r[2] * 0.62 - 32, r[3]], n.text, 13, "#1b2128", { pad: 4 }) + (dim ? "" : ""));
      out.push(
        label([r[0] + Math.round(r[2] * 0.62), r[1], r[2] * 0.38, r[3]], String(n.data?.detail ?? ""), 12, "#6b747e", {
          pad: 4,
        }),
      );
      break;
    }
    case "statusbar":
      out.push(rect(r, "#f3f4f6"), rect([r[0], r[1], r[2], 1], "#dde1e6"), label(r, n.text, 11, "#5d6670"));
      break;
    case "textarea":
      drawTextArea(n, a, out);
      break;
    case "field":
    case "input": {
      const focused = n.style === "input";
      out.push(rect(r, "#ffffff", `rx="3" stroke="${focused ? a : "#c2c9d1"}" stroke-width="${focused ? 2 : 1}"`));
      if (n.data?.selected && n.text)
        out.push(rect([r[0] + 5, r[1] + 5, Math.min(r[2] - 10, n.text.length * 7.8 + 2), r[3] - 10], a + "55"));
      out.push(label(r, n.text + (focused && !n.data?.selected ? "|" : ""), 13, "#111111", { pad: 7 }));
      break;
    }
    case "gridhead":
      out.push(
        rect(r, hovered ? "#dfe5ec" : "#eceff3", 'stroke="#c9cfd6"'),
        label(r, n.text, 12, "#4d565f", { anchor: "middle" }),
      );
      break;
    case "cell": {
      out.push(rect(r, hovered ? "#eef3fa" : "#ffffff", 'stroke="#d7dce2"'));
      const editing = has(n, "editing");
      out.push(
        label(r, (n.text ?? "") + (editing ? "|" : ""), 13, "#15191e", {
          anchor: editing ? "start" : ((n.data?.align as "start" | "end") ?? "start"),
          pad: 6,
        }),
      );
      if (has(n, "selected"))
        out.push(rect([r[0] + 1, r[1] + 1, r[2] - 2, r[3] - 2], "none", `stroke="${a}" stroke-width="2"`));
      break;
    }
    case "heading":
      out.push(label(r, n.text, 20, "#1b2128", { pad: 0, bold: true }));
      break;
    case "rowlabel":
      out.push(label(r, n.text, 14, "#242b33", { pad: 0 }));
      break;
    case "switch": {
      const on = has(n, "checked");
      out.push(rect(r, on ? a : "#c3c9d0", `rx="${r[3] / 2}"${hovered ? ` stroke="#1b2128" stroke-width="2"` : ""}`));
      const cx = on ? r[0] + r[2] - r[3] / 2 : r[0] + r[3] / 2;
      out.push(`<circle cx="${cx}" cy="${r[1] + r[3] / 2}" r="${r[3] / 2 - 3}" fill="#ffffff"/>`);
      break;
    }
    case "separator":
      out.push(rect(r, "#e3e6ea"));
      break;
    case "dialog":
      out.push(rect([r[0] + 5, r[1] + 5, r[2], r[3]], "#00000055"), rect(r, "#fbfbfc", 'rx="6" stroke="#7f8994"'));
      break;
    case "dlgtitle":
      out.push(label(r, n.text, 15, "#14181d", { pad: 0, bold: true }));
      break;
    case "message":
      out.push(label(r, n.text, 13, "#2a3139", { pad: 0 }));
      break;
    case "popup":
      out.push(rect(r, hovered ? "#3c4654" : "#2b333e", 'rx="8" stroke="#56606c"'));
      out.push(text(r[0] + 14, r[1] + 24, "Notification", 12, "#9fb0c2", 'font-weight="bold"'));
      out.push(text(r[0] + 14, r[1] + 48, fit(n.text ?? "", r[2] - 28, 13), 13, "#ffffff"));
      break;
    default:
      if (n.text) out.push(label(r, n.text, 13, "#1f262d"));
  }
  if (
    hovered &&
    !NO_HOVER.has(n.style) &&
    ![
      "fileitem",
      "button",
      "primary",
      "menuitem",
      "launcher",
      "taskitem",
      "sideitem",
      "chip",
      "option",
      "switch",
      "cell",
      "gridhead",
      "menulabel",
      "winbtn",
      "winbtn close",
      "popup",
    ].includes(n.style)
  ) {
    out.push(rect(r, a + "22", `stroke="${a}"`));
  }
  if (has(n, "inert") && n.style !== "window") return;
}

function drawTextArea(n: UiNode, accent: string, out: string[]): void {
  const r = n.rect;
  const d = n.data as {
    lines: string[];
    pad: number;
    lineH: number;
    charW: number;
    font: number;
    cursor: [number, number] | null;
    sel: [[number, number], [number, number]] | null;
    first: number;
  };
  out.push(rect(r, "#ffffff"));
  const x0 = r[0] + d.pad;
  const y0 = r[1] + d.pad;
  if (d.sel) {
    const [[l1, c1], [l2, c2]] = d.sel;
    for (let l = Math.max(l1, d.first); l <= Math.min(l2, d.first + d.lines.length - 1); l++) {
      const line = d.lines[l - d.first] ?? "";
      const from = l === l1 ? c1 : 0;
      const to = l === l2 ? c2 : line.length + 1;
      out.push(
        rect(
          [
            Math.round(x0 + from * d.charW),
            y0 + (l - d.first) * d.lineH,
            Math.max(4, Math.round((to - from) * d.charW)),
            d.lineH,
          ],
          accent + "55",
        ),
      );
    }
  }
  d.lines.forEach((line, i) => {
    if (!line) return;
    const shown = line.length > 200 ? line.slice(0, 200) : line;
    out.push(
      `<text x="${x0}" y="${y0 + i * d.lineH + 15}" font-family="${MONO}" font-size="${d.font}" fill="#15191e">${esc(shown.replace(/ /g, "\u00a0"))}</text>`,
    );
  });
  if (d.cursor && d.cursor[0] >= 0 && d.cursor[0] < Math.max(1, d.lines.length)) {
    out.push(rect([Math.round(x0 + d.cursor[1] * d.charW), y0 + d.cursor[0] * d.lineH + 2, 2, d.lineH - 4], "#111111"));
  }
}

function drawTree(n: UiNode, ctx: UiContext, hover: string | undefined, out: string[]): void {
  drawNode(n, ctx, hover, out);
  for (const c of n.children ?? []) drawTree(c, ctx, hover, out);
  if (has(n, "inert") && n.style === "window") return;
}

/** SVG text of a UI tree, with `hover` the id of the widget under the pointer. */
export function renderSvg(root: UiNode, ctx: UiContext, hover: string | undefined): string {
  const out: string[] = [];
  drawTree(root, ctx, hover, out);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${ctx.width}" height="${ctx.height}" viewBox="0 0 ${ctx.width} ${ctx.height}">${out.join("")}</svg>`;
}

/**
 * Names the SVG->PNG function for derived-blob memos (BlobStore.derived): the same SVG gives the
 * same PNG under one libvips/librsvg build, so workers sharing a blob store reuse each other's renders.
 */
export const pngRenderFn: () => Promise<string> = svgPngRenderer;

/** Rasterise SVG to PNG (the shared rasteriser in packages/core/src/image/svg-png.ts). */
export { svgToPng };
