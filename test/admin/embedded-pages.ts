import { editorPage, versionDiffPage } from '../../src/admin/editor-views.js';
import { html } from '../../src/admin/html.js';
import { mappingsPage } from '../../src/admin/mapping-views.js';
import { orderPage, ordersPage, problemsPage } from '../../src/admin/order-views.js';
import type { PageContext } from '../../src/admin/page-layout.js';
import { dataRequestsPage } from '../../src/admin/privacy-views.js';
import { settingsPage } from '../../src/admin/settings-views.js';
import type { HistoryEntry, OrderLink } from '../../src/orders/model.js';
import { SHOP } from '../helpers/harness.js';

/**
 * Every embedded (merchant) page, rendered in the states that draw the most of it, for the tests that hold the pages'
 * markup to a rule (polaris-classes.test.ts: Polaris components, not classes; shopify-element-contracts.test.ts:
 * Shopify's published element and attribute declarations).
 */
export const ctx: PageContext = {
  viewer: { kind: 'shop', shop: SHOP },
  link: (path) => path,
  formFields: html``,
  embedded: { apiKey: 'test-key' },
  setup: true,
};
const at = '2026-01-02T03:04:05.000Z';
export const link = (status: OrderLink['status'], extra: Partial<OrderLink> = {}): OrderLink => ({
  shop: SHOP,
  orderId: `gid://shopify/Order/${status.length}00`,
  orderName: `#${status}`,
  status,
  statusAt: at,
  sourceOrderId: 'acme-1001',
  printOrderId: 'p-1',
  submitAttempts: 1,
  submitAfter: at,
  topics: { 'orders/paid': at },
  cancelRequested: { at, by: 'shopify' },
  problems: [
    { kind: 'store-not-connected', message: 'not connected', at },
    { kind: 'mapping', subject: 'order.line_items[1]', message: 'no rule', at },
    { kind: 'test-mode', message: 'test mode', at },
  ],
  shipments: [
    { index: 0, status: 'shipped', lineItems: [{ lineItemId: 'gid://shopify/LineItem/1', quantity: 1, sku: 'PRINT-A5', title: 'Poster' }], trackingNumber: 'RM1', carrier: { code: 'royalmail' }, trackingUrl: 'https://track.example/RM1', shippedAt: at, fulfillmentId: 'gid://shopify/Fulfillment/1', fulfilledTrackingNumber: 'RM1' },
    { index: 1, status: 'shipped', lineItems: [{ lineItemId: 'gid://shopify/LineItem/2', quantity: 1, sku: 'MUG-1' }], trackingNumber: 'RM2', waitingForRelease: { since: at, message: 'on hold', fulfillmentOrderIds: [], nextCheckAt: at } as never },
  ],
  testRun: {
    at,
    valid: false,
    problems: ['orderData.shipments[0].shipTo.postcode: required'],
    order: { orderData: { items: [{ sku: 'PRINT-A5', quantity: 2, shipmentIndex: 1, components: [{ code: 'cover', path: 'https://files.example.com/a.pdf' }] }], shipments: [{ shipTo: { name: 'Zoë' }, carrier: { alias: 'standard' } }, { shipTo: { name: 'Ana' } }] } },
  },
  fulfillmentRequest: {
    fulfillmentOrders: [
      { id: 'gid://shopify/FulfillmentOrder/1', requestedAt: at, answer: 'accepted', answeredAt: at, cancellation: 'requested', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/1', lineItemId: 'gid://shopify/LineItem/1', sku: 'PRINT-A5', quantity: 1 }] },
      { id: 'gid://shopify/FulfillmentOrder/2', requestedAt: at, answerRefused: 'withdrawn', movedAway: 'elsewhere', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/2', lineItemId: 'gid://shopify/LineItem/2', quantity: 1 }] },
    ],
    rejection: { reason: 'INVALID_SKU', message: 'cannot print', lineItems: [{ fulfillmentOrderLineItemId: 'gid://shopify/FulfillmentOrderLineItem/2', message: 'no rule' }] },
  } as never,
  createdAt: at,
  updatedAt: at,
  version: 1,
  ...extra,
});
const history: HistoryEntry[] = [
  { at, event: 'submitted', source: 'worker', status: 'submitted', detail: 'as acme-1001' },
  { at, event: 'order paid received', source: 'shopify' },
];
const carriers = () => 'Royal Mail';
const checklist = { items: [{ key: 'account' as const, label: 'Print account connected', done: true, detail: 'ok' }, { key: 'test-order' as const, label: 'One test order', done: false, detail: 'none yet' }], ready: true };
const account = { baseUrl: 'https://print.example', sourceAccount: 'acme', connectedAt: at } as never;
const postback = { url: 'https://app.example/postbacks/x', triggers: [{ event: 'Order Received', url: 'https://app.example/postbacks/x', method: 'POST', headers: {}, template: '{}' }] };

/** Each embedded page in the states that draw the most of it. */
export function pages(): Record<string, string> {
  const orders = [link('submitted'), link('waiting'), link('held', { shipments: [] })];
  const setup = { shop: SHOP, mode: 'test' as const, fulfillment: 'service' as const, printAccount: account, accountCheck: { ok: true, message: 'fine', at }, revision: 1 };
  return {
    orders: ordersPage(ctx, { links: orders, filters: { q: 'x' }, next: 'c', paged: true, counts: { submitted: 1, waiting: 1 }, all: 3, problems: 2, connectUrl: '/auth', carriers }).value,
    'orders (none yet)': ordersPage(ctx, { links: [], filters: {}, paged: false, counts: {}, all: 0, problems: 0 }).value,
    'orders (none match)': ordersPage(ctx, { links: [], filters: { status: 'held' }, paged: false, counts: {}, all: 0, problems: 0 }).value,
    order: orderPage(ctx, { link: link('cancelled'), history, allowed: { resubmit: true, retry: true, cancel: true, keep: true }, failedJobs: [{ queue: 'orders', name: 'submit', failedReason: 'timeout' }], problems: 1, carriers }).value,
    'order (not printed, no shipments)': orderPage(ctx, { link: link('not-printed', { notPrintedReason: 'nothing to print', shipments: [], testRun: { at, valid: true, order: undefined, problems: [] } }), history: [], allowed: { resubmit: false, retry: false, cancel: false }, failedJobs: [], problems: 0 }).value,
    problems: problemsPage(ctx, {
      waiting: [link('waiting')],
      held: [link('held', { problems: [] })],
      errored: [link('error')],
      unconfirmed: [],
      failedJobs: [{ link: link('error'), shop: SHOP, orderId: 'gid://shopify/Order/9', queue: 'orders', name: 'submit', failedReason: 'timeout' }, { shop: SHOP, orderId: 'gid://shopify/Order/8', queue: 'shopify', name: 'sync', failedReason: '429' }],
      postbacks: { total: 1, entries: [{ id: 'u1', receivedAt: at, headers: {}, body: '<b>', error: 'not JSON' }] },
      problems: 3,
    }).value,
    settings: settingsPage(ctx, { shop: SHOP, setup, checklist, postback, problems: 0, fulfillment: 'service', holdPolicy: { policy: { waitForHolds: ['HIGH_RISK_OF_FRAUD'], waitForRisk: 'investigate' }, source: 'store', mapping: { waitForHolds: 'all', waitForRisk: 'cancel' } }, refused: 'The secret is wrong.', input: { baseUrl: 'https://print.example' } }).value,
    'settings (live, merchant mode)': settingsPage(ctx, { shop: SHOP, setup: { ...setup, mode: 'live', fulfillment: 'merchant' }, checklist, postback, problems: 0, fulfillment: 'merchant', holdPolicy: { policy: { waitForHolds: 'all', waitForRisk: 'cancel' }, source: 'default' } }).value,
    'settings (the app’s account)': settingsPage(ctx, { shop: SHOP, setup: { shop: SHOP, mode: 'live', fulfillment: 'merchant', revision: 0 }, checklist, postback: undefined, problems: 0 }).value,
    editor: editorPage(ctx, { shop: SHOP, text: 'a: 1', source: 'Version 2.', currentVersion: 2, versions: [{ shop: SHOP, version: 2, author: 'x', createdAt: at, note: 'n' }, { shop: SHOP, version: 1, author: 'x', createdAt: at }], problems: [{ line: 1, col: 2, message: 'bad' }], note: 'n', problemsCount: 0 }).value,
    'editor (read only)': editorPage(ctx, { shop: SHOP, text: 'a: 1', source: 'The files.', versions: [], readOnly: 'On the app’s account.', problemsCount: 0 }).value,
    diff: versionDiffPage(ctx, { shop: SHOP, version: { shop: SHOP, version: 2, yaml: 'a: 2', author: 'x', createdAt: at, note: 'n' }, previous: 1, changes: [{ value: 'a: 1\n', removed: true, added: false, count: 1 }, { value: 'a: 2\n', added: true, removed: false, count: 1 }, { value: 'b: 1\n', count: 1 } as never], problemsCount: 0 }).value,
    mappings: mappingsPage(ctx, { files: [{ file: 'm.yaml', shops: [SHOP] }], problems: ['m.yaml: bad'], warnings: ['w'], preview: { ok: true, shop: SHOP, file: 'm.yaml', order: {}, notes: ['order.line_items[0] skipped'] }, problems_count: 0 }).value,
    'mappings (cannot map)': mappingsPage(ctx, { files: [], problems: [], warnings: [], preview: { ok: false, shop: SHOP, problems: ['no rule'] }, problems_count: 0 }).value,
    privacy: dataRequestsPage(ctx, { requests: [{ shop: SHOP, requestId: 'r1', createdAt: at, expiresAt: at, orders: 1 }], problems: 0 }).value,
    'privacy (none)': dataRequestsPage(ctx, { requests: [], problems: 0 }).value,
  };
}
