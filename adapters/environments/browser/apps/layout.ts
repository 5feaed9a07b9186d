/**
 * Where every interactive element of the built-in apps sits (1280x800 viewport). The apps draw
 * them here and the tasks' reference plans click here, so both read the same numbers.
 */
import { navRect, type Rect } from "./ui.ts";

const row = (x: number, y0: number, dy: number, w: number, h: number) => (i: number): Rect => [x, y0 + i * dy, w, h];

/** Webmail (/mail). */
export const MAIL = {
  folder: { inbox: [20, 60, 170, 34], archive: [20, 100, 170, 34], trash: [20, 140, 170, 34], sent: [20, 180, 170, 34] } as Record<"inbox" | "archive" | "trash" | "sent", Rect>,
  compose: [20, 240, 170, 40] as Rect,
  /** The i-th message row of a folder list (a link opening the message). */
  row: row(220, 60, 46, 780, 40),
  /** The star toggle of the i-th row. */
  star: row(1010, 60, 46, 90, 40),
  view: {
    reply: [220, 60, 100, 36] as Rect,
    forward: [330, 60, 100, 36] as Rect,
    /** "Archive" in the inbox, "Move to Inbox" elsewhere. */
    move: [440, 60, 130, 36] as Rect,
    delete: [580, 60, 100, 36] as Rect,
    unread: [690, 60, 130, 36] as Rect,
    star: [830, 60, 100, 36] as Rect,
  },
  to: [390, 60, 600, 34] as Rect,
  subject: [390, 110, 600, 34] as Rect,
  body: [390, 160, 600, 200] as Rect,
  send: [390, 380, 120, 40] as Rect,
};

/** Shop (/shop). */
export const SHOP = {
  nav: { products: navRect(0), cart: navRect(1), orders: navRect(2) },
  /** The card of the i-th product (0-based, 3 per row). */
  card: (i: number): Rect => [40 + (i % 3) * 340, 70 + Math.floor(i / 3) * 230, 320, 210],
  /** The "Add to cart" button of the i-th product. */
  add: (i: number): Rect => [60 + (i % 3) * 340, 70 + Math.floor(i / 3) * 230 + 150, 150, 40],
  qty: row(600, 110, 50, 80, 36),
  remove: row(700, 110, 50, 110, 36),
  update: [600, 420, 150, 40] as Rect,
  checkout: [780, 420, 180, 40] as Rect,
  name: [390, 110, 500, 34] as Rect,
  address: [390, 160, 500, 34] as Rect,
  standard: [390, 217, 20, 20] as Rect,
  express: [560, 217, 20, 20] as Rect,
  promo: [390, 260, 200, 34] as Rect,
  place: [390, 320, 180, 40] as Rect,
};

/** Admin settings (/admin). */
export const ADMIN = {
  nav: { settings: navRect(0), users: navRect(1) },
  siteName: [390, 70, 400, 34] as Rect,
  supportEmail: [390, 120, 400, 34] as Rect,
  tz: { UTC: [390, 177, 20, 20], "Europe/Lisbon": [500, 177, 20, 20], "America/New_York": [680, 177, 20, 20] } as Record<"UTC" | "Europe/Lisbon" | "America/New_York", Rect>,
  maintenance: [390, 225, 20, 20] as Rect,
  signups: [390, 265, 20, 20] as Rect,
  maxUpload: [390, 305, 120, 34] as Rect,
  save: [390, 365, 120, 40] as Rect,
  /** The dark/light theme toggle (client side, kept in localStorage). */
  theme: [1100, 56, 150, 34] as Rect,
  role: { viewer: row(480, 70, 50, 90, 36), editor: row(580, 70, 50, 90, 36), admin: row(680, 70, 50, 90, 36) },
  active: row(790, 70, 50, 130, 36),
  newName: [390, 330, 300, 34] as Rect,
  newEmail: [390, 380, 300, 34] as Rect,
  add: [390, 430, 120, 40] as Rect,
};

/** The centre of a rectangle, where plans click. */
export function centre(r: Rect): { x: number; y: number } {
  return { x: r[0] + Math.round(r[2] / 2), y: r[1] + Math.round(r[3] / 2) };
}
