import { demoMappingYaml } from './mapping.js';
import {
  ADDRESSES,
  asCancelled,
  asCreated,
  DEMO_LATE_SHOP,
  DEMO_LATE_SHOP_HANDLE,
  DEMO_OWN_SHOP,
  DEMO_OWN_SHOP_HANDLE,
  DEMO_SERVICE_SHOP,
  DEMO_SERVICE_SHOP_HANDLE,
  DEMO_SHOP_HANDLE,
  orderBody,
  type OrderBody,
  PRODUCTS,
  SHIPPING,
  withNewShippingAddress,
} from './orders.js';
import type { DemoScenario, ScenarioActions } from './scenario-types.js';

export type { DemoScenario, Expectation, ExpectedStatus, MerchantActions, ScenarioActions } from './scenario-types.js';

/**
 * The demo's sample orders, each with the story it tells (what the demo does to it, as a merchant, a customer or
 * the printer would) and the end state it must reach. End states are checked in the real systems afterwards: the
 * app's order store, the emulator's records and the Shopify stand-in's orders (see `verify`).
 */

/** Every order starts the same way: checkout (`orders/create`), then the payment (`orders/paid`). */
async function checkout(actions: ScenarioActions, order: OrderBody): Promise<void> {
  await actions.send('orders/create', asCreated(order));
  await actions.send('orders/paid', order);
}

const TAG = {
  shipped: 'print-bridge:shipped',
  held: 'print-bridge:needs-mapping',
  cancelled: 'print-bridge:cancelled',
} as const;

const ARTWORK_1002 = 'https://uploads.print-bridge.example/personaliser/4f9c2a/cover-zoe.pdf';
const ARTWORK_1003 = 'https://uploads.print-bridge.example/personaliser/7be1d0/cover-hanako.pdf';

/** The sample orders, placed at `placedAt` (their `created_at`; later versions move `updated_at` on). */
export function demoScenarios(placedAt: Date = new Date()): DemoScenario[] {
  const make = (number: number, rest: Omit<Parameters<typeof orderBody>[0], 'number' | 'placedAt'>) =>
    orderBody({ number, placedAt, ...rest });
  // The mapping's sourceOrderId: "{{ shop.handle }}-{{ order.order_number }}".
  const handles = new Map([
    [DEMO_LATE_SHOP, DEMO_LATE_SHOP_HANDLE],
    [DEMO_OWN_SHOP, DEMO_OWN_SHOP_HANDLE],
    [DEMO_SERVICE_SHOP, DEMO_SERVICE_SHOP_HANDLE],
  ]);
  const scenario = (s: Omit<DemoScenario, 'sourceOrderId'>): DemoScenario => ({
    ...s,
    sourceOrderId: `${(s.shop && handles.get(s.shop)) || DEMO_SHOP_HANDLE}-${s.order.order_number}`,
  });

  return [
    scenario({
      name: 'several SKUs',
      story: 'two posters, four cards and envelopes from the printer’s shelf, in one parcel',
      order: make(1001, {
        email: 'juergen@example.de',
        shipTo: ADDRESSES.koeln,
        shipping: SHIPPING.standard,
        lines: [
          { product: PRODUCTS.posterA2 },
          { product: PRODUCTS.posterA3, quantity: 2 },
          { product: PRODUCTS.cardBirthday, quantity: 4 },
          { product: PRODUCTS.envelope, quantity: 4 },
        ],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 1 },
      play: (actions, { order }) => checkout(actions, order),
    }),
    scenario({
      name: 'personalised',
      story: 'a journal whose cover artwork comes from a line item property',
      order: make(1002, {
        email: 'zoe@example.pl',
        shipTo: ADDRESSES.lodz,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.journal, properties: { 'Name on cover': 'Zoë', _artwork_url: ARTWORK_1002 } }],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 1, artworkPath: ARTWORK_1002 },
      play: (actions, { order }) => checkout(actions, order),
    }),
    scenario({
      name: 'two shipments',
      story: 'a journal (bindery) and a poster (studio) ship separately by express, each with its own tracking',
      order: make(1003, {
        email: 'hanako@example.jp',
        shipTo: ADDRESSES.tokyo,
        shipping: SHIPPING.express,
        lines: [
          { product: PRODUCTS.journal, properties: { 'Name on cover': '花子', _artwork_url: ARTWORK_1003 } },
          { product: PRODUCTS.posterA2 },
        ],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 2, artworkPath: ARTWORK_1003 },
      play: (actions, { order }) => checkout(actions, order),
    }),
    scenario({
      name: 'unmapped item',
      story: 'a tote bag no mapping rule covers: the order is held with the reason',
      order: make(1004, {
        email: 'siobhan@example.ie',
        shipTo: ADDRESSES.dublin,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.cardBirthday, quantity: 2 }, { product: PRODUCTS.toteBag }],
      }),
      // Held by print-bridge: its own hold on the fulfillment order says why, in Shopify, where the merchant looks.
      expected: { status: 'held', tag: TAG.held, printer: 'nothing', fulfillments: 0, problemMentions: PRODUCTS.toteBag.sku, appHoldNotes: `Print Bridge: line 2 (SKU ${PRODUCTS.toteBag.sku})` },
      play: (actions, { order }) => checkout(actions, order),
    }),
    scenario({
      name: 'cancelled in hold',
      story: 'cancelled in Shopify inside the hold window: nothing reaches the printer',
      order: make(1005, {
        email: 'jose@example.es',
        shipTo: ADDRESSES.madrid,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA3 }],
      }),
      expected: { status: 'cancelled', tag: TAG.cancelled, printer: 'nothing', fulfillments: 0 },
      async play(actions, { order, holdMs }) {
        await checkout(actions, order);
        await actions.waitUntil('the app to schedule the submission', async () => Boolean((await actions.appLink())?.submitAfter));
        // The customer changes their mind a moment later, well inside the window.
        await actions.sleep(Math.min(1_000, holdMs / 4));
        actions.cancelInShopify();
        await actions.send('orders/cancelled', asCancelled(order, actions.now(), 'customer'));
        actions.note('cancelled in Shopify inside the hold window');
      },
    }),
    scenario({
      name: 'cancelled at printer',
      story: 'cancelled in Shopify after submission: the print service cancels it',
      order: make(1006, {
        email: 'amelia@example.co.uk',
        shipTo: ADDRESSES.leeds,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.cardBirthday, quantity: 2 }, { product: PRODUCTS.envelope, quantity: 2 }],
      }),
      expected: { status: 'cancelled', tag: TAG.cancelled, printer: 'cancelled', fulfillments: 0 },
      async play(actions, { order }) {
        await checkout(actions, order);
        // The printer keeps it in its queue, so the cancellation meets an order that has not shipped yet.
        await actions.holdAtPrinter();
        await actions.waitUntil('the app to record the print order', async () => Boolean((await actions.appLink())?.printOrderId));
        actions.cancelInShopify();
        await actions.send('orders/cancelled', asCancelled(order, actions.now(), 'customer'));
        actions.note('cancelled in Shopify after submission');
      },
    }),
    scenario({
      name: 'address change',
      story: 'the customer moves after submission: the printer ships to the new address',
      order: make(1007, {
        email: 'priya@example.co.uk',
        shipTo: ADDRESSES.york,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA2 }],
      }),
      expected: {
        status: 'shipped',
        tag: TAG.shipped,
        printer: 'shipped',
        fulfillments: 1,
        shipTo: { address1: ADDRESSES.yorkNew.address1, postcode: ADDRESSES.yorkNew.zip },
      },
      async play(actions, { order }) {
        await checkout(actions, order);
        await actions.holdAtPrinter();
        await actions.waitUntil('the app to record the print order', async () => Boolean((await actions.appLink())?.printOrderId));
        await actions.send('orders/updated', withNewShippingAddress(order, ADDRESSES.yorkNew, actions.now()));
        actions.note('shipping address changed in Shopify after submission');
        await actions.waitUntil('the printer to have the new address', () =>
          actions.printerShipTo().some((s) => s.postcode === ADDRESSES.yorkNew.zip),
        );
        await actions.releaseAtPrinter();
      },
    }),
    scenario({
      name: 'fraud hold',
      story: 'a fraud-analysis app holds the fulfillment order as the order comes in: nothing is printed until the merchant releases it',
      order: make(1008, {
        email: 'lukas@example.at',
        shipTo: ADDRESSES.koeln,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA2 }],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 1, waitedFor: 'shopify-hold' },
      async play(actions, { order, holdMs }) {
        // A fraud-analysis app holds the fulfillment order as the order comes in.
        actions.holdInShopify('HIGH_RISK_OF_FRAUD', 'manual review');
        await checkout(actions, order);
        await actions.waitUntil("the order to wait for Shopify's hold", async () => {
          const link = await actions.appLink();
          return link?.status === 'waiting' && link.problems.some((p) => p.kind === 'shopify-hold');
        });
        actions.note("Shopify holds it for a fraud review: nothing is sent to the printer");
        await actions.sleep(Math.min(500, holdMs / 4));
        actions.releaseHoldInShopify();
        actions.note('the merchant released the hold: sent to the printer, then fulfilled with the tracking');
      },
    }),
    scenario({
      name: 'late mapping',
      story: 'an order of a second store that has no mapping yet: it waits, then goes out by itself once one is saved',
      shop: DEMO_LATE_SHOP,
      order: make(1009, {
        email: 'ines@example.pt',
        shipTo: ADDRESSES.madrid,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA3 }],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 1, waitedFor: 'no-mapping' },
      async play(actions, { order, holdMs }) {
        await checkout(actions, order);
        await actions.waitUntil('the order to wait for a mapping', async () => (await actions.appLink())?.status === 'waiting');
        actions.note(`no mapping serves ${DEMO_LATE_SHOP}: the order waits, on the problems page`);
        await actions.sleep(Math.min(500, holdMs / 4));
        actions.writeMapping('late.yaml', demoMappingYaml({ holdMinutes: holdMs / 60_000, shop: DEMO_LATE_SHOP }));
        actions.note(`a mapping for ${DEMO_LATE_SHOP} was saved: the order goes out by itself`);
      },
    }),
    scenario({
      name: 'own print account',
      story: 'a store installs the app and sets itself up in it: its own print account, postback address and mapping; a test order is checked, then it goes live',
      shop: DEMO_OWN_SHOP,
      order: make(1010, {
        email: 'noor@example.nl',
        shipTo: ADDRESSES.koeln,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA3 }],
      }),
      expected: { status: 'shipped', tag: TAG.shipped, printer: 'shipped', fulfillments: 1, waitedFor: 'test-mode' },
      async play(actions, { order, holdMs }) {
        const { merchant } = actions;
        await merchant.openApp();
        actions.note(`${DEMO_OWN_SHOP} installed the app from Shopify (session token exchanged for an access token)`);
        await merchant.submit('/admin/settings/account', merchant.printAccount());
        actions.note('Settings: the store connected its own print account (checked with one signed call); it starts in test mode');
        const settings = await merchant.page('/admin/settings');
        const postbackUrl = /id="postback-url">([^<]+)</.exec(settings)?.[1];
        if (!postbackUrl) throw new Error('the Settings page shows no postback address');
        merchant.setUpTriggers(postbackUrl.trim());
        actions.note('Settings: the postback address and trigger templates were pasted into the print service');
        await merchant.submit('/admin/mappings/save', { yaml: demoMappingYaml({ holdMinutes: holdMs / 60_000, shop: DEMO_OWN_SHOP }), note: 'first mapping' });
        actions.note('Mapping editor: the store saved its own mapping (version 1)');
        await checkout(actions, order);
        await actions.waitUntil('the test order to be checked by the print service', async () => (await actions.appLink())?.testRun?.valid === true);
        actions.note('test mode: the print service found the order valid, and nothing was created');
        await merchant.submit('/admin/settings/mode', { mode: 'live', confirm: 'yes' });
        actions.note('Settings: every checklist step done; the merchant went live, and the test order goes out once');
      },
    }),
    scenario({
      name: 'service mode',
      story: 'a store in fulfillment-service mode, mixed cart: Shopify asks print-bridge for the poster and cards only; the merchant ships the tote bag',
      shop: DEMO_SERVICE_SHOP,
      order: make(1011, {
        email: 'amelia@example.co.uk',
        shipTo: ADDRESSES.leeds,
        shipping: SHIPPING.standard,
        lines: [{ product: PRODUCTS.posterA2 }, { product: PRODUCTS.cardBirthday, quantity: 2 }, { product: PRODUCTS.toteBag }],
      }),
      expected: {
        status: 'shipped',
        tag: TAG.shipped,
        printer: 'shipped',
        fulfillments: 1,
        service: { printerItems: ['PST-A2-MOUNTAINS×1', 'GREETING-CARD-A6×2'], merchantLines: [`${PRODUCTS.toteBag.sku}×1`] },
      },
      async play(actions, { order }) {
        // Shopify requests print-bridge's fulfillment order as the order is placed, and pings the app's callback.
        await checkout(actions, order);
        const ours = () => actions.fulfillmentOrdersInShopify().find((fo) => fo.at === 'print-bridge');
        await actions.waitUntil('print-bridge to accept Shopify’s fulfillment request', () => ours()?.answers.includes('FULFILLMENT_ACCEPTED') === true);
        actions.note(`${DEMO_SERVICE_SHOP} (fulfillment-service mode): Shopify asked print-bridge for the poster and 2 cards; sent to the printer, request accepted; the tote bag stays with the merchant`);
        await actions.waitUntil('print-bridge’s fulfillment order to be fulfilled', () => ours()?.status === 'CLOSED');
        actions.note('shipped: print-bridge’s fulfillment order is fulfilled with the printer’s tracking; the merchant’s (the tote bag) is still open for them to ship');
      },
    }),
  ];
}
