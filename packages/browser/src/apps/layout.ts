/**
 * Where every interactive element of the built-in apps sits (1280x800 viewport). The apps draw
 * them here and the tasks' reference plans click here, so both read the same numbers.
 */
import { navRect, type Rect } from "./ui.ts";

const row =
  (x: number, y0: number, dy: number, w: number, h: number) =>
  (i: number): Rect => [x, y0 + i * dy, w, h];
/** A field of the form column (x 390, where `label()` leaves room on the left); text fields are 34 px high. */
const field = (y: number, w: number, h = 34): Rect => [390, y, w, h];
/** A 20x20 checkbox or radio button. */
const tick = (x: number, y: number): Rect => [x, y, 20, 20];
/** A button of the mail view's toolbar (y 60, 36 px high). */
const tool = (x: number, w: number): Rect => [x, 60, w, 36];

/** Webmail (/mail). */
export const MAIL = {
  folder: {
    inbox: [20, 60, 170, 34],
    archive: [20, 100, 170, 34],
    trash: [20, 140, 170, 34],
    sent: [20, 180, 170, 34],
  } as Record<"inbox" | "archive" | "trash" | "sent", Rect>,
  compose: [20, 240, 170, 40] as Rect,
  /** The i-th message row of a folder list (a link opening the message). */
  row: row(220, 60, 46, 780, 40),
  /** The star toggle of the i-th row. */
  star: row(1010, 60, 46, 90, 40),
  /** The message view's toolbar; `move` is "Archive" in the inbox, "Move to Inbox" elsewhere. */
  view: {
    reply: tool(220, 100),
    forward: tool(330, 100),
    move: tool(440, 130),
    delete: tool(580, 100),
    unread: tool(690, 130),
    star: tool(830, 100),
  },
  /** The compose form. */
  to: field(60, 600),
  subject: field(110, 600),
  body: field(160, 600, 200),
  send: field(380, 120, 40),
};

/** Shop (/shop). */
export const SHOP = {
  nav: { products: navRect(0), cart: navRect(1), orders: navRect(2) },
  /** The card of the i-th product (0-based, 3 per row). */
  card: (i: number): Rect => [40 + (i % 3) * 340, 70 + Math.floor(i / 3) * 230, 320, 210],
  /** The "Add to cart" button of the i-th product. */
  add: (i: number): Rect => [60 + (i % 3) * 340, 70 + Math.floor(i / 3) * 230 + 150, 150, 40],
  /** The cart: quantity and remove per line, then update and checkout. */
  qty: row(600, 110, 50, 80, 36),
  remove: row(700, 110, 50, 110, 36),
  update: [600, 420, 150, 40] as Rect,
  checkout: [780, 420, 180, 40] as Rect,
  /** The checkout form: name, address, shipping (standard or express), promo code, place order. */
  name: field(110, 500),
  address: field(160, 500),
  standard: tick(390, 217),
  express: tick(560, 217),
  promo: field(260, 200),
  place: field(320, 180, 40),
};

/** Admin settings (/admin). */
export const ADMIN = {
  nav: { settings: navRect(0), users: navRect(1) },
  /** The settings form. */
  siteName: field(70, 400),
  supportEmail: field(120, 400),
  tz: { UTC: tick(390, 177), "Europe/Lisbon": tick(500, 177), "America/New_York": tick(680, 177) } as Record<
    "UTC" | "Europe/Lisbon" | "America/New_York",
    Rect
  >,
  maintenance: tick(390, 225),
  signups: tick(390, 265),
  maxUpload: field(305, 120),
  save: field(365, 120, 40),
  /** The dark/light theme toggle (client side, kept in localStorage). */
  theme: [1100, 56, 150, 34] as Rect,
  /** The users table: role buttons and the active toggle per row, then the new-user form. */
  role: { viewer: row(480, 70, 50, 90, 36), editor: row(580, 70, 50, 90, 36), admin: row(680, 70, 50, 90, 36) },
  active: row(790, 70, 50, 130, 36),
  newName: field(330, 300),
  newEmail: field(380, 300),
  add: field(430, 120, 40),
};

/** The centre of a rectangle, where plans click. */
export function centre(r: Rect): { x: number; y: number } {
  return { x: r[0] + Math.round(r[2] / 2), y: r[1] + Math.round(r[3] / 2) };
}
