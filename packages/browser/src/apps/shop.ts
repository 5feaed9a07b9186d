/** The shop: products, a cart per session (quantities, remove), checkout with shipping and a promo code, orders. */
import { SHOP } from "./layout.ts";
import type { AppReply, AppRequest } from "./route.ts";
import { money, orderTotal, type AppsState, type CartLine } from "./state.ts";
import { button, choice, page, postButton, text, textField } from "./ui.ts";

const NAV: Array<[string, string]> = [
  ["/shop", "Products"],
  ["/shop/cart", "Cart"],
  ["/shop/orders", "Orders"],
];

function cartOf(state: AppsState, session: string): CartLine[] {
  return (state.shop.carts[session] ?? []).map((l) => ({ ...l }));
}

function products(state: AppsState, session: string): string {
  const count = cartOf(state, session).reduce((s, l) => s + l.qty, 0);
  const cards = state.shop.products
    .map((p, i) => {
      const c = SHOP.card(i);
      return `<div style="position:absolute;left:${c[0]}px;top:${c[1]}px;width:${c[2]}px;height:${c[3]}px;border:1px solid #cbd5e0"></div>${text(p.name, [c[0] + 20, c[1] + 20, 280, 28], { bold: true, role: "heading" })}${text(money(p.price), [c[0] + 20, c[1] + 60, 200, 24])}${postButton(`/shop/cart/add?pid=${p.id}`, "Add to cart", SHOP.add(i))}`;
    })
    .join("");
  return page(
    "Shop",
    NAV,
    `${text(`Cart: ${count} item(s)`, [1060, 50, 200, 20], { id: "cart-count" })}${cards}`,
    `localStorage.setItem('shop.visits',String(Number(localStorage.getItem('shop.visits')||0)+1));`,
  );
}

function cart(state: AppsState, session: string): string {
  const lines = cartOf(state, session);
  const rows = lines
    .map((l, i) => {
      const p = state.shop.products.find((x) => x.id === l.productId);
      return `${text(`${p?.name ?? "?"}  ${money(p?.price ?? 0)}`, [220, 110 + i * 50, 360, 36])}${textField(`qty-${l.productId}`, "Quantity", SHOP.qty(i), String(l.qty), "number").replace(/<label[^>]*>.*?<\/label>/, "")}${button("Remove", SHOP.remove(i), { formaction: `/shop/cart/remove?pid=${l.productId}` })}`;
    })
    .join("");
  const body = lines.length
    ? `<form method="post" action="/shop/cart/update" style="margin:0">${rows}${button("Update cart", SHOP.update)}${button("Checkout", SHOP.checkout, { formaction: "/shop/checkout/start", primary: true })}</form>`
    : text("Your cart is empty", [220, 110, 400, 36]);
  return page("Shop", NAV, `${text("Cart", [220, 70, 200, 30], { bold: true, role: "heading" })}${body}`);
}

function checkout(state: AppsState, session: string): string {
  const lines = cartOf(state, session);
  const summary = lines
    .map((l) => `${l.qty} x ${state.shop.products.find((p) => p.id === l.productId)?.name}`)
    .join(", ");
  const form = `<form method="post" action="/shop/order" style="margin:0">${textField("name", "Full name", SHOP.name)}${textField("address", "Address", SHOP.address)}${text("Shipping", [220, 215, 160, 24])}${choice("radio", "shipping", "standard", "Standard (free)", SHOP.standard, true)}${choice("radio", "shipping", "express", "Express (+$15.00)", SHOP.express, false)}${textField("promo", "Promo code", SHOP.promo)}${button("Place order", SHOP.place, { primary: true })}</form>`;
  return page(
    "Shop",
    NAV,
    `${text(`Checkout: ${summary || "nothing in the cart"}`, [220, 60, 900, 30], { bold: true })}${form}`,
  );
}

function orders(state: AppsState, session: string): string {
  const mine = state.shop.orders.filter((o) => o.session === session);
  const rows = mine
    .map((o, i) =>
      text(
        `Order #${o.id}: ${o.items.map((l) => `${l.qty} x ${state.shop.products.find((p) => p.id === l.productId)?.name}`).join(", ")}, ${o.shipping}, total ${money(o.total)}`,
        [220, 110 + i * 40, 900, 34],
      ),
    )
    .join("");
  return page(
    "Shop",
    NAV,
    `${text("Your orders", [220, 70, 300, 30], { bold: true, role: "heading" })}${rows || text("No orders yet", [220, 110, 400, 34])}`,
  );
}

/** Handle a /shop request. */
export function shopRoute(req: AppRequest, state: AppsState): AppReply {
  const { method, path, query, form, session } = req;
  const lines = cartOf(state, session);
  if (method === "GET" && path === "/shop") return { html: products(state, session) };
  if (method === "GET" && path === "/shop/cart") return { html: cart(state, session) };
  if (method === "GET" && path === "/shop/checkout") return { html: checkout(state, session) };
  if (method === "GET" && (path === "/shop/orders" || path.startsWith("/shop/orders/")))
    return { html: orders(state, session) };
  if (method !== "POST") return { status: 404, html: page("Shop", NAV, text("Not found", [220, 70, 300, 30])) };
  const pid = Number(query.get("pid"));
  if (path === "/shop/cart/add" && state.shop.products.some((p) => p.id === pid)) {
    const line = lines.find((l) => l.productId === pid);
    if (line) line.qty += 1;
    else lines.push({ productId: pid, qty: 1 });
    state.shop.carts[session] = lines;
    return { redirect: "/shop" };
  }
  if (path === "/shop/cart/update" || path === "/shop/cart/remove" || path === "/shop/checkout/start") {
    for (const l of lines) {
      const q = Number(form.get(`qty-${l.productId}`));
      if (form.has(`qty-${l.productId}`) && Number.isInteger(q) && q >= 0) l.qty = q;
    }
    state.shop.carts[session] = lines.filter(
      (l) => l.qty > 0 && !(path === "/shop/cart/remove" && l.productId === pid),
    );
    return { redirect: path === "/shop/checkout/start" ? "/shop/checkout" : "/shop/cart" };
  }
  if (path === "/shop/order") {
    if (!lines.length) return { redirect: "/shop/cart" };
    const shipping = form.get("shipping") === "express" ? "express" : "standard";
    const promo = (form.get("promo") ?? "").trim();
    const id = state.shop.orders.length + 1;
    state.shop.orders.push({
      id,
      session,
      items: lines.map((l) => ({ ...l })),
      name: (form.get("name") ?? "").trim(),
      address: (form.get("address") ?? "").trim(),
      shipping,
      promo,
      total: orderTotal(state.shop.products, lines, shipping, promo),
    });
    state.shop.carts[session] = [];
    return { redirect: `/shop/orders/${id}` };
  }
  return { status: 404, html: page("Shop", NAV, text("Not found", [220, 70, 300, 30])) };
}
