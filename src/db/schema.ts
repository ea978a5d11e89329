import { bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type { HistoryEntry, OrderLink } from '../orders/model.js';

/**
 * The system of record (DESIGN.md section 2). Tables carry no schema name: the app's schema is chosen per connection
 * (`DATABASE_SCHEMA`, `search_path`), so one database can hold several installs, and each test file its own schema.
 * No foreign keys for the same reason (drizzle-kit names the referenced table with its schema); the store deletes an
 * order's rows together.
 *
 * An order's link is one JSON document (`data`, the OrderLink the use cases read and write whole, under an optimistic
 * version) with the fields the pages filter, search and sort on copied into columns by the same statement.
 */
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

export const orders = pgTable(
  'orders',
  {
    shop: text('shop').notNull(),
    orderId: text('order_id').notNull(),
    orderName: text('order_name'),
    status: text('status').notNull(),
    statusAt: at('status_at').notNull(),
    sourceOrderId: text('source_order_id'),
    printOrderId: text('print_order_id'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    version: integer('version').notNull(),
    data: jsonb('data').$type<OrderLink>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shop, t.orderId] }),
    // Pages read newest first: (a, b, c) scanned backwards serves ORDER BY a DESC, b DESC, c DESC and keyset cursors.
    index('orders_updated_idx').on(t.updatedAt, t.shop, t.orderId),
    index('orders_shop_updated_idx').on(t.shop, t.updatedAt, t.orderId),
    index('orders_status_idx').on(t.status, t.statusAt, t.shop, t.orderId),
    index('orders_status_updated_idx').on(t.status, t.updatedAt, t.shop, t.orderId),
    index('orders_shop_status_idx').on(t.shop, t.status, t.statusAt),
    index('orders_name_idx').on(t.orderName),
    index('orders_source_idx').on(t.sourceOrderId),
    index('orders_print_idx').on(t.printOrderId),
    // The problems page lists orders carrying a postback the print service did not confirm, whatever their status;
    // few orders ever do, so a partial index keeps that list (and the problem count on every page) off the table.
    index('orders_unconfirmed_postback_idx')
      .on(t.updatedAt, t.shop, t.orderId)
      .where(sql`${t.data} -> 'problems' @> '[{"kind":"unconfirmed-postback"}]'::jsonb`),
  ],
);

/** The newest Shopify body of an order (`updated_at` order); cut by retention once the printer is done with it. */
export const orderBodies = pgTable(
  'order_bodies',
  {
    shop: text('shop').notNull(),
    orderId: text('order_id').notNull(),
    /** Normalised ISO time (text compares in time order), kept after the body is cut so an older version stays refused. */
    shopifyUpdatedAt: text('shopify_updated_at').notNull(),
    /** Null once retention cut it (RETENTION_DAYS after the printer's last change). */
    body: text('body'),
    reducedAt: at('reduced_at'),
  },
  (t) => [primaryKey({ columns: [t.shop, t.orderId] })],
);

export const orderHistory = pgTable(
  'order_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    shop: text('shop').notNull(),
    orderId: text('order_id').notNull(),
    at: at('at').notNull(),
    entry: jsonb('entry').$type<HistoryEntry>().notNull(),
  },
  (t) => [index('order_history_order_idx').on(t.shop, t.orderId, t.id.desc())],
);

/**
 * Which order owns a sourceOrderId on one print account: the first to claim it (two orders never share one print
 * order). The namespace is the print account the order goes out with (`env`: the operator's; `shop:DOMAIN`: that
 * store's own), so a store's claims never reach the orders of a store on another account (DESIGN section 9).
 */
export const sourceOrderIds = pgTable(
  'source_order_ids',
  {
    namespace: text('namespace').notNull().default('env'),
    sourceOrderId: text('source_order_id').notNull(),
    shop: text('shop').notNull(),
    orderId: text('order_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.sourceOrderId] })],
);

/** Stores the app has worked for, and from when (the lost-order recovery never reaches back before it). */
export const shops = pgTable('shops', {
  shop: text('shop').primaryKey(),
  activeSince: at('active_since'),
  createdAt: at('created_at').notNull().defaultNow(),
});

/** Shopify sessions (offline access tokens, encrypted before they get here: src/shopify/sessions.ts). */
export const shopifySessions = pgTable(
  'shopify_sessions',
  {
    id: text('id').primaryKey(),
    shop: text('shop').notNull(),
    isOnline: integer('is_online').notNull(),
    session: jsonb('session').$type<Record<string, unknown>>().notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [index('shopify_sessions_shop_idx').on(t.shop)],
);

/** Answers to customers/data_request, for the merchant and the operator; deleted after `expires_at`. */
export const dataRequests = pgTable(
  'data_requests',
  {
    shop: text('shop').notNull(),
    requestId: text('request_id').notNull(),
    report: jsonb('report').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.shop, t.requestId] })],
);

export const unreadablePostbacks = pgTable(
  'unreadable_postbacks',
  {
    id: text('id').primaryKey(),
    receivedAt: at('received_at').notNull(),
    headers: jsonb('headers').$type<Record<string, string>>().notNull(),
    body: text('body').notNull(),
    error: text('error').notNull(),
  },
  (t) => [index('unreadable_postbacks_received_idx').on(t.receivedAt.desc())],
);

/**
 * A store's own print set-up (issue 16; DESIGN section 2): its print-service account (the secret encrypted, in
 * `print_account.secret`), test or live mode, the current mapping version, and the onboarding facts. No row, or no
 * account in it: the store uses the operator's account from the environment, live, and the mapping files.
 */
export const shopSettings = pgTable('shop_settings', {
  shop: text('shop').primaryKey(),
  /** `test`: orders are mapped and validated at the print service, never created; `live`: created. */
  mode: text('mode').notNull().default('live'),
  printAccount: jsonb('print_account').$type<Record<string, unknown>>(),
  /** The last "Test connection" (or the check before saving an account): `{ok, message, at}`. */
  accountCheck: jsonb('account_check').$type<Record<string, unknown>>(),
  /** The first order of the store that the print service validated in test mode (the checklist's last item). */
  testValidatedAt: at('test_validated_at'),
  /** The store's current mapping version; null: the mapping files serve it. */
  mappingVersion: integer('mapping_version'),
  /**
   * `merchant`: the app fulfils the merchant's own fulfillment orders (the default); `service`: the app is a Shopify
   * fulfillment service and prints what Shopify requests of its location (docs/fulfillment.md).
   */
  fulfillmentMode: text('fulfillment_mode').notNull().default('merchant'),
  /** In service mode: the fulfillment service the app registered on the store `{id, locationId, callbackUrl, createdAt}`. */
  fulfillmentService: jsonb('fulfillment_service').$type<Record<string, unknown>>(),
  /**
   * Whether print-bridge's own waits (the edit window, a mapping problem, test mode) show in Shopify as a fulfillment
   * hold of the app's (handle `print-bridge`) on the fulfillment orders it will print. On unless the store turned it off.
   */
  appHolds: boolean('app_holds').notNull().default(true),
  /**
   * The store's choice, on the Settings page, of which of Shopify's holds and risk recommendations keep an order from
   * the printer `{waitForHolds, waitForRisk}`; null: the mapping's `submit.wait_for_holds` / `wait_for_risk` decide.
   */
  holdPolicy: jsonb('hold_policy').$type<Record<string, unknown>>(),
  /** Bumped on every change: print-account clients cached by other processes are rebuilt when it moves. */
  revision: integer('revision').notNull().default(1),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

/** Per-store postback tokens: looked up by their SHA-256; the token itself kept encrypted to show the URL again. */
export const postbackTokens = pgTable(
  'postback_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    shop: text('shop').notNull(),
    token: text('token').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    /** Set on rotation: the old token keeps working until then (24 h). */
    expiresAt: at('expires_at'),
  },
  (t) => [index('postback_tokens_shop_idx').on(t.shop)],
);

/** Every saved version of a store's own mapping (YAML, as written), with who saved it and why. */
export const mappingVersions = pgTable(
  'mapping_versions',
  {
    shop: text('shop').notNull(),
    version: integer('version').notNull(),
    yaml: text('yaml').notNull(),
    note: text('note'),
    author: text('author').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.shop, t.version] })],
);

/**
 * Which of the app's Shopify Flow triggers a store uses in an active workflow, as Flow's lifecycle callback tells it:
 * a trigger is sent only to stores that use it (Flow refuses, and counts against the app, triggers no workflow uses).
 */
export const flowTriggers = pgTable(
  'flow_triggers',
  {
    shop: text('shop').notNull(),
    /** The trigger extension's handle (`print-order-sent`, ...). */
    handle: text('handle').notNull(),
    enabled: boolean('enabled').notNull(),
    /** Flow's `timestamp` of the callback that set `enabled`: an older callback arriving late changes nothing. */
    changedAt: at('changed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.shop, t.handle] })],
);
