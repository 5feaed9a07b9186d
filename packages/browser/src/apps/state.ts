/**
 * The server-side state of the built-in web apps (webmail, shop, admin settings), one plain JSON
 * object. It is what task checkers read, what snapshots save and put back, and what the state
 * endpoint (`/__retrace/state`, GET/PUT) exposes, the same protocol a user's own app may offer.
 */

/** A message in the webmail. */
export interface MailMessage {
  id: number;
  from: string;
  subject: string;
  body: string;
  folder: "inbox" | "archive" | "trash";
  read: boolean;
  starred: boolean;
}

/** A sent message. */
export interface SentMessage {
  to: string;
  subject: string;
  body: string;
}

/** A product of the shop. */
export interface Product {
  id: number;
  name: string;
  /** Price in cents. */
  price: number;
}

/** A cart line. */
export interface CartLine {
  productId: number;
  qty: number;
}

/** A placed order. */
export interface Order {
  id: number;
  session: string;
  items: CartLine[];
  name: string;
  address: string;
  shipping: "standard" | "express";
  promo: string;
  /** Total in cents (items, 10% off with SAVE10, +1500 for express). */
  total: number;
}

/** Site settings of the admin app. */
export interface AdminSettings {
  siteName: string;
  supportEmail: string;
  timezone: "UTC" | "Europe/Lisbon" | "America/New_York";
  maintenance: boolean;
  signups: boolean;
  maxUploadMb: number;
}

/** A user managed in the admin app. */
export interface AdminUser {
  id: number;
  name: string;
  email: string;
  role: "viewer" | "editor" | "admin";
  active: boolean;
}

/** Everything the apps keep on the server. */
export interface AppsState {
  /** Next session number (sessions are `s1`, `s2`, ... so runs are deterministic). */
  nextSession: number;
  mail: { messages: MailMessage[]; sent: SentMessage[] };
  shop: { products: Product[]; carts: Record<string, CartLine[]>; orders: Order[] };
  admin: { settings: AdminSettings; users: AdminUser[]; saves: number };
}

/** Fixture names a task's setup may start from. */
export const FIXTURES = ["default", "cart-mug-lamp", "cart-cable", "trash-contract"] as const;
export type FixtureName = (typeof FIXTURES)[number];

const INBOX: MailMessage[] = [
  {
    id: 1,
    from: "alice@acme.test",
    subject: "Quarterly report",
    body: "Hi, the Q3 report is attached. Numbers look good.",
    folder: "inbox",
    read: false,
    starred: false,
  },
  {
    id: 2,
    from: "bob@acme.test",
    subject: "Lunch on Friday?",
    body: "Are you free for lunch on Friday at noon?",
    folder: "inbox",
    read: false,
    starred: false,
  },
  {
    id: 3,
    from: "promo@deals.test",
    subject: "You won a prize!!!",
    body: "Click here to claim your prize now.",
    folder: "inbox",
    read: false,
    starred: false,
  },
  {
    id: 4,
    from: "carol@acme.test",
    subject: "Server maintenance window",
    body: "The servers go down on Sunday 02:00-04:00 UTC.",
    folder: "inbox",
    read: false,
    starred: false,
  },
  {
    id: 5,
    from: "dave@acme.test",
    subject: "Invoice #4411",
    body: "Please find invoice #4411 for October.",
    folder: "inbox",
    read: false,
    starred: false,
  },
  {
    id: 6,
    from: "newsletter@news.test",
    subject: "Weekly digest",
    body: "This week: five tips for a tidy inbox.",
    folder: "inbox",
    read: true,
    starred: false,
  },
];

const PRODUCTS: Product[] = [
  { id: 1, name: "Coffee mug", price: 1200 },
  { id: 2, name: "Notebook", price: 800 },
  { id: 3, name: "Desk lamp", price: 3500 },
  { id: 4, name: "USB cable", price: 900 },
  { id: 5, name: "Backpack", price: 4900 },
  { id: 6, name: "Water bottle", price: 1500 },
];

const USERS: AdminUser[] = [
  { id: 1, name: "Ana Silva", email: "ana@acme.test", role: "admin", active: true },
  { id: 2, name: "Bruno Dias", email: "bruno@acme.test", role: "viewer", active: true },
  { id: 3, name: "Carla Mota", email: "carla@acme.test", role: "editor", active: true },
];

/** A fresh copy of a fixture's state. */
export function fixtureState(name: FixtureName = "default"): AppsState {
  const state: AppsState = {
    nextSession: 1,
    mail: { messages: INBOX.map((m) => ({ ...m })), sent: [] },
    shop: { products: PRODUCTS.map((p) => ({ ...p })), carts: {}, orders: [] },
    admin: {
      settings: {
        siteName: "Acme Intranet",
        supportEmail: "support@acme.test",
        timezone: "UTC",
        maintenance: false,
        signups: true,
        maxUploadMb: 10,
      },
      users: USERS.map((u) => ({ ...u })),
      saves: 0,
    },
  };
  // Carts belong to the first session, the one the agent's fresh browser context gets.
  if (name === "cart-mug-lamp")
    state.shop.carts.s1 = [
      { productId: 1, qty: 1 },
      { productId: 3, qty: 1 },
    ];
  if (name === "cart-cable") state.shop.carts.s1 = [{ productId: 4, qty: 1 }];
  if (name === "trash-contract")
    state.mail.messages.push({
      id: 7,
      from: "erin@acme.test",
      subject: "Contract draft",
      body: "Here is the contract draft for review.",
      folder: "trash",
      read: true,
      starred: false,
    });
  return state;
}

/** Order total in cents. */
export function orderTotal(products: Product[], items: CartLine[], shipping: string, promo: string): number {
  const sum = items.reduce((s, l) => s + (products.find((p) => p.id === l.productId)?.price ?? 0) * l.qty, 0);
  const discounted = promo.trim().toUpperCase() === "SAVE10" ? Math.round(sum * 0.9) : sum;
  return discounted + (shipping === "express" ? 1500 : 0);
}

/** Dollars for display. */
export function money(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
