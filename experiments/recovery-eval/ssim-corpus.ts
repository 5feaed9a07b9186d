/**
 * A corpus of screenshot pairs for proving the fast SSIM against the ssim.js reference and for
 * the SSIM benchmark: a synthetic desktop (window, menu, text, buttons, taskbar clock) rendered
 * with sharp from SVG, and pairs that differ the way recovery states differ: not at all, by one
 * pixel row, a small dialog, a hover highlight, one word, a clock tick, low-amplitude noise, a
 * scrolled document, a different app. Deterministic for a given sharp/librsvg/font install.
 */
import sharp from "sharp";
import { createRng } from "@retrace-cua/core/rng";

/** One pair of the corpus. */
export interface ScreenshotPair {
  name: string;
  a: Buffer;
  b: Buffer;
}

/** What to change in the rendered desktop. */
interface DesktopVariant {
  title?: string;
  lines?: string[];
  scroll?: number;
  hover?: boolean;
  dialog?: boolean;
  clock?: string;
  rowLine?: boolean;
  caretX?: number;
  app?: "editor" | "files";
}

const BASE_LINES = Array.from(
  { length: 36 },
  (_, i) => `Line ${i + 1}: the quarterly report draft, section ${Math.floor(i / 6) + 1}`,
);

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

/** SVG of a simple desktop at width x height. */
function desktopSvg(width: number, height: number, v: DesktopVariant): string {
  const s = height / 1080;
  const font = `font-family="DejaVu Sans" font-size="${Math.round(16 * s)}"`;
  const lines = (v.lines ?? BASE_LINES).slice(v.scroll ?? 0);
  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="#2e3440"/>`);
  const wx = Math.round(60 * s),
    wy = Math.round(40 * s),
    ww = width - 2 * wx,
    wh = height - Math.round(120 * s);
  parts.push(`<rect x="${wx}" y="${wy}" width="${ww}" height="${wh}" fill="#ffffff" stroke="#888"/>`);
  parts.push(`<rect x="${wx}" y="${wy}" width="${ww}" height="${Math.round(36 * s)}" fill="#3465a4"/>`);
  parts.push(
    `<text x="${wx + 16}" y="${wy + Math.round(25 * s)}" ${font} fill="#fff">${esc(v.title ?? "notes.txt - Editor")}</text>`,
  );
  const menu = ["File", "Edit", "View", "Search", "Help"];
  menu.forEach((m, i) =>
    parts.push(`<text x="${wx + 16 + i * Math.round(80 * s)}" y="${wy + Math.round(62 * s)}" ${font}>${m}</text>`),
  );
  const bx = wx + ww - Math.round(140 * s),
    by = wy + Math.round(44 * s);
  parts.push(
    `<rect x="${bx}" y="${by}" width="${Math.round(120 * s)}" height="${Math.round(28 * s)}" fill="${v.hover ? "#d6e4f5" : "#e6e6e6"}" stroke="#999"/>`,
  );
  parts.push(`<text x="${bx + 20}" y="${by + Math.round(20 * s)}" ${font}>Save</text>`);
  if ((v.app ?? "editor") === "editor") {
    lines
      .slice(0, 28)
      .forEach((l, i) =>
        parts.push(`<text x="${wx + 24}" y="${wy + Math.round((110 + i * 30) * s)}" ${font}>${esc(l)}</text>`),
      );
  } else {
    for (let i = 0; i < 24; i++) {
      const x = wx + 40 + (i % 8) * Math.round(200 * s),
        y = wy + Math.round(110 * s) + Math.floor(i / 8) * Math.round(180 * s);
      parts.push(
        `<rect x="${x}" y="${y}" width="${Math.round(96 * s)}" height="${Math.round(80 * s)}" fill="#f0c674"/>`,
      );
      parts.push(`<text x="${x}" y="${y + Math.round(110 * s)}" ${font}>file-${i}.txt</text>`);
    }
  }
  if (v.caretX !== undefined)
    parts.push(
      `<rect x="${wx + 24 + v.caretX}" y="${wy + Math.round(92 * s)}" width="1" height="${Math.round(20 * s)}" fill="#000"/>`,
    );
  if (v.rowLine)
    parts.push(`<rect x="${wx}" y="${wy + Math.round(500 * s)}" width="${ww}" height="1" fill="#c0c0c0"/>`);
  if (v.dialog) {
    const dw = Math.round(420 * s),
      dh = Math.round(160 * s),
      dx = Math.round((width - dw) / 2),
      dy = Math.round((height - dh) / 2);
    parts.push(`<rect x="${dx}" y="${dy}" width="${dw}" height="${dh}" fill="#f5f5f5" stroke="#333"/>`);
    parts.push(`<text x="${dx + 20}" y="${dy + Math.round(50 * s)}" ${font}>Save changes before closing?</text>`);
    parts.push(
      `<rect x="${dx + dw - Math.round(200 * s)}" y="${dy + dh - Math.round(50 * s)}" width="${Math.round(80 * s)}" height="${Math.round(30 * s)}" fill="#ddd" stroke="#666"/>`,
    );
  }
  const ty = height - Math.round(40 * s);
  parts.push(`<rect x="0" y="${ty}" width="${width}" height="${Math.round(40 * s)}" fill="#1d2129"/>`);
  parts.push(
    `<text x="${width - Math.round(90 * s)}" y="${ty + Math.round(26 * s)}" ${font} fill="#eee">${v.clock ?? "09:41"}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join("")}</svg>`;
}

/** Render a synthetic desktop screenshot as PNG. */
export async function renderDesktop(width: number, height: number, variant: DesktopVariant = {}): Promise<Buffer> {
  return sharp(Buffer.from(desktopSvg(width, height, variant)))
    .png()
    .toBuffer();
}

/** Add seeded uniform noise of +-amplitude to every channel (sensor-like jitter). */
async function addNoise(png: Buffer, amplitude: number, seed: number): Promise<Buffer> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const rng = createRng(seed, "noise");
  for (let i = 0; i < data.length; i++) {
    if (info.channels === 4 && i % 4 === 3) continue;
    data[i] = Math.max(0, Math.min(255, data[i] + rng.int(-amplitude, amplitude)));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png()
    .toBuffer();
}

/** The synthetic pairs at one resolution. `full` adds the slower, rarer cases. */
export async function syntheticPairs(
  width: number,
  height: number,
  options: { full?: boolean; seed?: number; only?: RegExp } = {},
): Promise<ScreenshotPair[]> {
  const tag = `${width}x${height}`;
  const base = await renderDesktop(width, height);
  const changedLines = [...BASE_LINES];
  changedLines[7] = changedLines[7].replace("quarterly", "annual");
  const pairs: Array<[string, () => Promise<Buffer>]> = [
    ["identical-reencoded", () => sharp(base).png({ compressionLevel: 1 }).toBuffer()],
    ["one-pixel-row", () => renderDesktop(width, height, { rowLine: true })],
    ["small-dialog", () => renderDesktop(width, height, { dialog: true })],
    ["hover", () => renderDesktop(width, height, { hover: true })],
    ["text-one-word", () => renderDesktop(width, height, { lines: changedLines })],
    ["clock-tick", () => renderDesktop(width, height, { clock: "09:42" })],
    ["noise-2", () => addNoise(base, 2, options.seed ?? 1)],
  ];
  if (options.full) {
    pairs.push(
      ["caret", () => renderDesktop(width, height, { caretX: 40 })],
      ["noise-8", () => addNoise(base, 8, (options.seed ?? 1) + 1)],
      ["scrolled-one-line", () => renderDesktop(width, height, { scroll: 1 })],
      ["other-app", () => renderDesktop(width, height, { app: "files" })],
      ["title-change", () => renderDesktop(width, height, { title: "notes.txt (modified) - Editor" })],
    );
  }
  const wanted = pairs.filter(([name]) => !options.only || options.only.test(name));
  return Promise.all(wanted.map(async ([name, b]) => ({ name: `${tag}/${name}`, a: base, b: await b() })));
}

/**
 * Pairs of real SimDesk screenshots (1280x800 by default): a target state of a task's reference
 * plan against the states recovery sees around it: the same state re-rendered, the next step
 * (hover moves, a typed name, a dialog opens), a dialog left open, the pointer parked elsewhere,
 * and the same state with noise (clock ticks, a pop-up).
 */
export async function simDeskPairs(options: {
  width?: number;
  height?: number;
  dir: string;
  tasks?: string[];
}): Promise<ScreenshotPair[]> {
  const { BlobStore } = await import("@retrace-cua/core/blob-store");
  const { createSimDesk, getSimDeskTask } = await import("@retrace-cua/simdesk/simdesk");
  const blobs = new BlobStore({ dir: options.dir });
  const size = { width: options.width ?? 1280, height: options.height ?? 800 };
  const pairs: ScreenshotPair[] = [];
  const tag = `simdesk-${size.width}x${size.height}`;
  const png = async (ref: string) => blobs.get(ref);
  for (const id of options.tasks ?? ["files-rename-draft", "files-trash-two"]) {
    const task = getSimDeskTask(id);
    const desk = createSimDesk({ blobs, ...size });
    const shots = [(await desk.reset(task)).screenshot];
    for (const a of task.plan) shots.push((await desk.step(a)).observation.screenshot);
    const mid = Math.min(3, task.plan.length - 1);
    pairs.push({ name: `${tag}/${id}/next-step`, a: await png(shots[mid]), b: await png(shots[mid + 1]) });
    pairs.push({
      name: `${tag}/${id}/two-steps`,
      a: await png(shots[mid]),
      b: await png(shots[mid + 2] ?? shots[shots.length - 1]),
    });
    pairs.push({ name: `${tag}/${id}/start-vs-end`, a: await png(shots[0]), b: await png(shots[shots.length - 1]) });
    const s = desk.getState();
    s.windows[s.windows.length - 1].dialog = { kind: "message", text: "Operation finished." };
    desk.setState(s);
    pairs.push({
      name: `${tag}/${id}/dialog-left-open`,
      a: await png(shots[shots.length - 1]),
      b: await png((await desk.observe()).screenshot),
    });
    const moved = desk.getState();
    moved.windows[moved.windows.length - 1].dialog = undefined;
    moved.pointer = { x: 3, y: 3 };
    desk.setState(moved);
    pairs.push({
      name: `${tag}/${id}/pointer-parked`,
      a: await png(shots[shots.length - 1]),
      b: await png((await desk.observe()).screenshot),
    });
    // Noise: the same plan with a ticking clock and pop-ups.
    const noisy = createSimDesk({ blobs, ...size, noise: { seed: 7, popups: true, clock: true } });
    let o = await noisy.reset(task);
    const noisyShots = [o.screenshot];
    for (const a of task.plan) noisyShots.push((o = (await noisy.step(a)).observation).screenshot);
    for (let k = 1; k < noisyShots.length; k++) {
      if (noisyShots[k] !== shots[k])
        pairs.push({ name: `${tag}/${id}/noise-step-${k}`, a: await png(shots[k]), b: await png(noisyShots[k]) });
    }
  }
  return pairs;
}
