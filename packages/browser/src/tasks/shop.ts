/** Shop tasks: buy with name and address, quantities, express shipping, a promo code, cart edits. */
import { SHOP } from "../apps/layout.ts";
import type { Action } from "@retrace-cua/core/action";
import type { AppsState, CartLine } from "../apps/state.ts";
import { act, defineBrowserTask, verdict, type AppsCheck, type BrowserTask } from "./types.ts";

const { click, type, hot, done } = act;

/** Cart -> checkout -> name, address, [express], [promo] -> place order. */
function checkout(
  name: string,
  address: string,
  opts: { express?: boolean; promo?: string; fromCart?: boolean } = {},
): Action[] {
  return [
    ...(opts.fromCart ? [] : [click(SHOP.nav.cart)]),
    click(SHOP.checkout),
    click(SHOP.name),
    type(name),
    click(SHOP.address),
    type(address),
    ...(opts.express ? [click(SHOP.express)] : []),
    ...(opts.promo ? [click(SHOP.promo), type(opts.promo)] : []),
    click(SHOP.place),
    done,
  ];
}

const sameLines = (a: CartLine[], b: CartLine[]) =>
  JSON.stringify([...a].sort((x, y) => x.productId - y.productId)) ===
  JSON.stringify([...b].sort((x, y) => x.productId - y.productId));

/** One order with these lines, for this person, with this shipping, promo and total; the cart emptied. */
function oneOrder(
  s: AppsState,
  want: { items: CartLine[]; name: string; address: string; shipping?: string; promo?: string; total: number },
): ReturnType<AppsCheck> {
  const o = s.shop.orders[0];
  return verdict([
    [s.shop.orders.length === 1, `${s.shop.orders.length} order(s) placed, expected 1`],
    [
      !!o && sameLines(o.items, want.items),
      `ordered ${JSON.stringify(o?.items)}, expected ${JSON.stringify(want.items)}`,
    ],
    [o?.name === want.name, `name "${o?.name}", expected "${want.name}"`],
    [o?.address === want.address, `address "${o?.address}", expected "${want.address}"`],
    [o?.shipping === (want.shipping ?? "standard"), `shipping ${o?.shipping}, expected ${want.shipping ?? "standard"}`],
    [(o?.promo ?? "").toUpperCase() === (want.promo ?? ""), `promo "${o?.promo}", expected "${want.promo ?? ""}"`],
    [o?.total === want.total, `total ${o?.total}, expected ${want.total}`],
  ]);
}

const ANA = ["Ana Lima", "12 Rua Azul, Lisbon"] as const;
const RUI = ["Rui Costa", "7 Av. Norte, Porto"] as const;
const INES = ["Ines Sousa", "3 Praca Velha, Braga"] as const;

/** Shop tasks with their checkers. */
export const SHOP_TASKS: Array<[BrowserTask, AppsCheck]> = [
  [
    defineBrowserTask({
      id: "shop-buy-mug",
      app: "shop",
      path: "/shop",
      instruction: `Buy one coffee mug with standard shipping for ${ANA[0]}, ${ANA[1]}.`,
      plan: [click(SHOP.add(0)), ...checkout(...ANA)],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(SHOP.add(1))], note: "adds the notebook instead" },
        { atStep: 4, kind: "typo", actions: [type("Ana Lma")], note: "misspells the name" },
      ],
    }),
    (s) => oneOrder(s, { items: [{ productId: 1, qty: 1 }], name: ANA[0], address: ANA[1], total: 1200 }),
  ],
  [
    defineBrowserTask({
      id: "shop-two-notebooks",
      app: "shop",
      path: "/shop",
      instruction: `Order two notebooks for ${RUI[0]}, ${RUI[1]}, standard shipping.`,
      plan: [click(SHOP.add(1)), click(SHOP.add(1)), ...checkout(...RUI)],
      mistakes: [
        { atStep: 1, kind: "skip", actions: [click(SHOP.nav.cart)], note: "adds only one" },
        { atStep: 7, kind: "typo", actions: [type("7 Av. Norte, Proto")], note: "misspells the city" },
      ],
    }),
    (s) => oneOrder(s, { items: [{ productId: 2, qty: 2 }], name: RUI[0], address: RUI[1], total: 1600 }),
  ],
  [
    defineBrowserTask({
      id: "shop-lamp-express",
      app: "shop",
      path: "/shop",
      instruction: `Buy a desk lamp with express shipping for ${INES[0]}, ${INES[1]}.`,
      plan: [click(SHOP.add(2)), ...checkout(...INES, { express: true })],
      mistakes: [
        { atStep: 7, kind: "skip", actions: [click(SHOP.place)], note: "places the order without choosing express" },
        { atStep: 0, kind: "wrong-item", actions: [click(SHOP.add(5))], note: "adds the water bottle" },
      ],
    }),
    (s) =>
      oneOrder(s, {
        items: [{ productId: 3, qty: 1 }],
        name: INES[0],
        address: INES[1],
        shipping: "express",
        total: 5000,
      }),
  ],
  [
    defineBrowserTask({
      id: "shop-backpack-promo",
      app: "shop",
      path: "/shop",
      instruction: `Buy a backpack for ${ANA[0]}, ${ANA[1]} (standard shipping) using the promo code SAVE10.`,
      plan: [click(SHOP.add(4)), ...checkout(...ANA, { promo: "SAVE10" })],
      mistakes: [
        { atStep: 8, kind: "typo", actions: [type("SAVE01")], note: "mistypes the promo code" },
        { atStep: 7, kind: "skip", actions: [click(SHOP.place)], note: "forgets the promo code" },
      ],
    }),
    (s) =>
      oneOrder(s, { items: [{ productId: 5, qty: 1 }], name: ANA[0], address: ANA[1], promo: "SAVE10", total: 4410 }),
  ],
  [
    defineBrowserTask({
      id: "shop-mug-and-cable",
      app: "shop",
      path: "/shop",
      instruction: `Buy a coffee mug and a USB cable in one order for ${RUI[0]}, ${RUI[1]}, standard shipping.`,
      plan: [click(SHOP.add(0)), click(SHOP.add(3)), ...checkout(...RUI)],
      mistakes: [
        {
          atStep: 1,
          kind: "wrong-item",
          actions: [click(SHOP.add(4))],
          note: "adds the backpack instead of the cable",
        },
        { atStep: 1, kind: "skip", actions: [click(SHOP.nav.cart)], note: "forgets the cable" },
      ],
    }),
    (s) =>
      oneOrder(s, {
        items: [
          { productId: 1, qty: 1 },
          { productId: 4, qty: 1 },
        ],
        name: RUI[0],
        address: RUI[1],
        total: 2100,
      }),
  ],
  [
    defineBrowserTask({
      id: "shop-remove-lamp",
      app: "shop",
      path: "/shop/cart",
      fixture: "cart-mug-lamp",
      instruction: `Remove the desk lamp from the cart and check out the rest for ${INES[0]}, ${INES[1]}, standard shipping.`,
      plan: [click(SHOP.remove(1)), ...checkout(...INES, { fromCart: true })],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(SHOP.remove(0))], note: "removes the mug instead" },
        { atStep: 0, kind: "skip", actions: [click(SHOP.checkout)], note: "checks out without removing the lamp" },
      ],
    }),
    (s) => oneOrder(s, { items: [{ productId: 1, qty: 1 }], name: INES[0], address: INES[1], total: 1200 }),
  ],
  [
    defineBrowserTask({
      id: "shop-cable-qty",
      app: "shop",
      path: "/shop/cart",
      fixture: "cart-cable",
      instruction: `Change the USB cable quantity in the cart to 3 and check out for ${ANA[0]}, ${ANA[1]}, standard shipping.`,
      plan: [click(SHOP.qty(0)), hot("ctrl", "a"), type("3"), ...checkout(...ANA, { fromCart: true })],
      mistakes: [
        { atStep: 2, kind: "typo", actions: [type("4")], note: "types 4" },
        { atStep: 1, kind: "skip", actions: [type("3")], note: "types without selecting, making 13" },
      ],
    }),
    (s) => oneOrder(s, { items: [{ productId: 4, qty: 3 }], name: ANA[0], address: ANA[1], total: 2700 }),
  ],
  [
    defineBrowserTask({
      id: "shop-cart-only",
      app: "shop",
      path: "/shop",
      instruction: "Put a water bottle and a backpack in the cart, but do not place an order.",
      plan: [click(SHOP.add(5)), click(SHOP.add(4)), done],
      mistakes: [
        { atStep: 1, kind: "wrong-item", actions: [click(SHOP.add(2))], note: "adds the lamp instead of the backpack" },
        { atStep: 0, kind: "misclick", actions: [click(SHOP.card(5))], note: "clicks the card, not its button" },
      ],
    }),
    (s) =>
      verdict([
        [
          sameLines(s.shop.carts.s1 ?? [], [
            { productId: 6, qty: 1 },
            { productId: 5, qty: 1 },
          ]),
          `cart is ${JSON.stringify(s.shop.carts.s1 ?? [])}`,
        ],
        [s.shop.orders.length === 0, `${s.shop.orders.length} order(s) placed`],
      ]),
  ],
  [
    defineBrowserTask({
      id: "shop-empty-cart",
      app: "shop",
      path: "/shop/cart",
      fixture: "cart-mug-lamp",
      instruction: "Empty the shopping cart without ordering anything.",
      plan: [click(SHOP.remove(0)), click(SHOP.remove(0)), done],
      mistakes: [
        { atStep: 1, kind: "premature-done", actions: [done], note: "stops with the lamp still in the cart" },
        { atStep: 1, kind: "wrong-item", actions: [click(SHOP.checkout)], note: "goes to checkout" },
      ],
    }),
    (s) =>
      verdict([
        [(s.shop.carts.s1 ?? []).length === 0, `cart still holds ${JSON.stringify(s.shop.carts.s1)}`],
        [s.shop.orders.length === 0, `${s.shop.orders.length} order(s) placed`],
      ]),
  ],
  [
    defineBrowserTask({
      id: "shop-bottle-express-promo",
      app: "shop",
      path: "/shop",
      instruction: `Buy a water bottle for ${RUI[0]}, ${RUI[1]} with express shipping and the promo code SAVE10.`,
      plan: [click(SHOP.add(5)), ...checkout(...RUI, { express: true, promo: "SAVE10" })],
      mistakes: [
        { atStep: 7, kind: "wrong-item", actions: [click(SHOP.standard)], note: "keeps standard shipping" },
        { atStep: 9, kind: "typo", actions: [type("SAVE1O")], note: "types the letter O for zero" },
      ],
    }),
    (s) =>
      oneOrder(s, {
        items: [{ productId: 6, qty: 1 }],
        name: RUI[0],
        address: RUI[1],
        shipping: "express",
        promo: "SAVE10",
        total: 2850,
      }),
  ],
];
