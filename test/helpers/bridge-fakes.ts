import { PrintServiceClient } from '../../src/print-service/client.js';
import { PrintServiceBadRequestError, PrintServiceNotFoundError } from '../../src/print-service/errors.js';
import type { Acknowledgement, OrderRecord, PrintOrder } from '../../src/print-service/schema.js';
import type { Database } from '../../src/db/database.js';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { MemoryOrderStore } from './memory-order-store.js';
import type { BridgeDeps, JobMentions, MapOutcome, OrderStore, MappingPort, PrintServicePort, Scheduler, ShopifyEffects, SubmitSettings } from '../../src/bridge/ports.js';
import { silentLogger } from '../../src/logger.js';
import type { PrintAccountsPort, PrintSetup } from '../../src/shops/print-accounts.js';
import type { PrintMode } from '../../src/shops/model.js';
import { syncOrderToShopify } from '../../src/bridge/shopify-sync.js';
import type { Redis } from 'ioredis';
import type { OrderWebhook } from '../../src/shopify/order-webhook.js';
import { parseJsonLossless } from '../../src/shopify/json.js';
import type { OrderStanding, StatusChange, StatusShown } from '../../src/bridge/shopify-data.js';

/** In-memory stand-ins for the use cases' ports, recording what they were asked to do. */

export class FakeShopify implements ShopifyEffects {
  tags = new Map<string, Set<string>>();
  statuses = new Map<string, unknown>();
  notes = new Map<string, string[]>();
  /** Every showStatus request, as sent. */
  writes: { orderId: string; change: StatusChange }[] = [];
  reads = 0;
  failNext = 0;
  /** Orders this fake store does not have (another store's body re-sent with its domain). */
  notInShop = new Set<string>();
  /** How many times the store was asked whether it has an order. */
  inShopReads = 0;
  /** Orders Shopify shows cancelled. */
  cancelledInShop = new Set<string>();
  async orderCancelled(_shop: string, orderId: string): Promise<boolean | null> {
    return this.notInShop.has(orderId) ? null : this.cancelledInShop.has(orderId);
  }
  /** What Shopify shows of each order's risk and holds; an order not named here is accepted, unheld, one fulfillment order. */
  standings = new Map<string, Partial<OrderStanding>>();
  /** The line items on each fulfillment order (a held one is read to see whether it holds printed lines). */
  fulfillmentOrderLines = new Map<string, string[]>();
  async orderInShop(_shop: string, orderId: string): Promise<OrderStanding | null> {
    this.inShopReads += 1;
    if (this.notInShop.has(orderId)) return null;
    return { createdAt: '2026-11-21T15:00:00Z', riskRecommendation: 'NONE', fulfillmentOrders: [], moreFulfillmentOrders: false, ...this.standings.get(orderId) };
  }
  async fulfillmentOrderLineItemIds(_shop: string, fulfillmentOrderId: string): Promise<string[] | null> {
    return this.fulfillmentOrderLines.get(fulfillmentOrderId) ?? null;
  }
  async orderShows(_shop: string, orderId: string): Promise<StatusShown> {
    this.maybeFail();
    this.reads += 1;
    return { tags: [...(this.tags.get(orderId) ?? [])], status: this.statuses.get(orderId) ?? null };
  }
  async showStatus(_shop: string, orderId: string, change: StatusChange) {
    this.maybeFail();
    this.writes.push({ orderId, change: structuredClone(change) });
    const set = this.tags.get(orderId) ?? new Set<string>();
    change.addTags.forEach((t) => set.add(t));
    change.removeTags.forEach((t) => set.delete(t));
    this.tags.set(orderId, set);
    if (change.status !== undefined) this.statuses.set(orderId, structuredClone(change.status));
  }
  async appendNote(_shop: string, orderId: string, line: string) {
    const lines = this.notes.get(orderId) ?? [];
    if (!lines.includes(line)) lines.push(line);
    this.notes.set(orderId, lines);
  }
  tagsOf(orderId: string): string[] {
    return [...(this.tags.get(orderId) ?? [])].sort();
  }
  private maybeFail() {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw Object.assign(new Error('Shopify is throttling'), { retryable: true });
    }
  }
}

export class FakeScheduler implements Scheduler {
  calls: { kind: string; shop: string; orderId: string; delayMs?: number; generation?: string | number }[] = [];
  dropped = 0;
  /** Shopify jobs waiting, as the Shopify queue would hold them; `runShopifyJobs` runs them. */
  shopifyJobs: { kind: 'sync' | 'note'; shop: string; orderId: string; line?: string }[] = [];
  async syncShopify(shop: string, orderId: string) {
    this.shopifyJobs.push({ kind: 'sync', shop, orderId });
  }
  async fulfillmentOrderChanged(shop: string, change: { fulfillmentOrderId: string }) {
    this.calls.push({ kind: 'fulfillment-order', shop, orderId: change.fulfillmentOrderId });
  }
  async noteShopify(shop: string, orderId: string, line: string) {
    this.shopifyJobs.push({ kind: 'note', shop, orderId, line });
  }
  /** Runs the waiting Shopify jobs; a failing job stays waiting, as a retried queue job would. */
  async runShopifyJobs(deps: Pick<BridgeDeps, 'store' | 'shopify'>) {
    const jobs = this.shopifyJobs.splice(0);
    for (const job of jobs) {
      try {
        if (job.kind === 'sync') await syncOrderToShopify(deps, job.shop, job.orderId);
        else await deps.shopify.appendNote(job.shop, job.orderId, job.line!);
      } catch {
        this.shopifyJobs.push(job);
      }
    }
  }
  async submit(shop: string, orderId: string, delayMs: number, generation = 0) {
    this.calls.push({ kind: 'submit', shop, orderId, delayMs, generation });
  }
  async cancel(shop: string, orderId: string) {
    this.calls.push({ kind: 'cancel', shop, orderId });
  }
  async amendShipping(shop: string, orderId: string, generation: string) {
    this.calls.push({ kind: 'amend-shipping', shop, orderId, generation });
  }
  async dropPendingForShop() {
    return this.dropped;
  }
  /** What redaction asked the queues to erase. */
  erased: JobMentions[] = [];
  async eraseJobRecords(mentions: JobMentions) {
    this.erased.push(mentions);
    return 0;
  }
  async takeFulfillmentRequests(shop: string, cause: string) {
    this.calls.push({ kind: 'fulfillment-requests', shop, orderId: '', generation: cause });
  }
  async answerFulfillmentRequests(shop: string, orderId: string) {
    this.calls.push({ kind: 'answer-requests', shop, orderId });
  }
  async flowTrigger(shop: string, orderId: string, handle: string, event: string) {
    this.calls.push({ kind: 'flow-trigger', shop, orderId, generation: `${handle} ${event}` });
  }

  async reexamine(shop: string, cause: string) {
    this.calls.push({ kind: 'reexamine', shop, orderId: '', generation: cause });
  }
  kinds(): string[] {
    return this.calls.map((c) => c.kind);
  }
}

/** A tiny print service in memory: stores creates, answers lookups, cancels and amends by its rules. */
export class FakePrintService implements PrintServicePort {
  orders = new Map<string, { record: OrderRecord; shipTo: unknown[] }>();
  creates = 0;
  /** Scripted failures for the next creates: an error to throw, optionally after storing. */
  createScript: { error: Error; store: boolean }[] = [];
  validateError?: Error;
  cancelError?: Error;
  amendError?: Error;
  private readonly helper = new PrintServiceClient({ baseUrl: 'http://fake.invalid', token: 't', secret: 's', retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  readonly retryPolicy = this.helper.retryPolicy;
  backoffDelay = (attempt: number) => attempt;

  async validate(_order: unknown) {
    if (this.validateError) throw this.validateError;
    return { valid: true as const };
  }
  async create(order: unknown): Promise<Acknowledgement> {
    this.creates += 1;
    const o = order as PrintOrder;
    const scripted = this.createScript.shift();
    if (!scripted || scripted.store) {
      const _id = (this.orders.size + 1).toString(16).padStart(24, '0');
      this.orders.set(`${o.orderData.sourceOrderId}#${this.orders.size}`, {
        record: { _id, status: 'received', destination: o.destination, orderData: o.orderData as never },
        shipTo: o.orderData.shipments.map((s) => s.shipTo),
      });
      if (!scripted) return { _id, url: `http://fake/${_id}`, timestamp: new Date().toISOString(), sourceAccountId: 'acc' };
    }
    throw scripted.error;
  }
  async findBySourceId(id: string) {
    return [...this.orders.values()].find((o) => o.record.orderData.sourceOrderId === id)?.record;
  }
  async getBySourceId(id: string) {
    const found = await this.findBySourceId(id);
    if (!found) throw new PrintServiceNotFoundError('getBySourceId', id);
    return found;
  }
  async cancel(id: string) {
    if (this.cancelError) throw this.cancelError;
    const found = [...this.orders.values()].find((o) => o.record.orderData.sourceOrderId === id);
    if (!found) throw new PrintServiceNotFoundError('cancel', id);
    if (found.record.status === 'cancelled') {
      throw new PrintServiceBadRequestError('cancel', 400, { name: 'OrderAlreadyCancelled', code: 4004, message: 'already cancelled' });
    }
    found.record.status = 'cancelled';
    return found.record;
  }
  async updateShipping(id: string, index: number, body: unknown) {
    if (this.amendError) throw this.amendError;
    const found = [...this.orders.values()].find((o) => o.record.orderData.sourceOrderId === id);
    if (!found || index >= found.shipTo.length) throw new PrintServiceNotFoundError('updateShipping', id);
    found.shipTo[index] = (body as { shipTo: unknown }).shipTo;
    return { shipmentIndex: index, sourceOrderId: id, items: [], shipTo: found.shipTo[index] as never };
  }
  count(): number {
    return this.orders.size;
  }
}

/**
 * A mapping that turns every line item with a SKU into one print item, one shipment, and reports a problem for a
 * line without SKU: enough to drive the pipeline without the mapping engine.
 */
export class FakeMapping implements MappingPort {
  settings: SubmitSettings | undefined = { on: 'orders/paid', holdMinutes: 0, validate: false };
  settingsFor() {
    return this.settings;
  }
  async map(shop: string, body: string): Promise<MapOutcome> {
    const order = parseJsonLossless(body) as OrderWebhook & { shipping_address?: Record<string, string> };
    const problems = order.line_items
      .filter((l) => !l.sku)
      .map((l) => ({ subject: `line item ${l.id} (${l.title ?? ''})`, message: 'no product rule matches this line item' }));
    if (problems.length) return { ok: false, problems };
    const a = order.shipping_address ?? {};
    const printOrder: PrintOrder = {
      destination: { name: 'demo-printer' },
      orderData: {
        sourceOrderId: `${shop.split('.')[0]}-${String(order.order_number)}`,
        items: order.line_items.map((l) => ({
          sourceItemId: String(l.id),
          sku: l.sku!,
          quantity: l.quantity,
          shipmentIndex: 0,
          components: [{ code: 'cover', path: `https://files.example.com/${l.sku}.pdf`, fetch: true, localFile: false, preflight: false, duplicate: 1 }],
        })),
        shipments: [
          {
            canShipEarly: true,
            shipTo: { name: a.name ?? 'x', address1: a.address1 ?? 'x', town: a.city ?? 'x', postcode: a.zip ?? 'x', isoCountry: a.country_code ?? 'GB' },
            returnAddress: { name: 'Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
            carrier: { alias: 'standard' },
          },
        ],
      },
    };
    return {
      ok: true,
      order: printOrder,
      shipments: [{ index: 0, lineItems: order.line_items.map((l) => ({ lineItemId: l.admin_graphql_api_id ?? '', quantity: l.quantity, sku: l.sku ?? undefined })) }],
      leftOut: [],
    };
  }
}

/**
 * Which account and mode serve each store: by default every store is on the operator's account (the fake print
 * service), live. A test puts a store in test mode, or takes its account away.
 */
export class FakePrintAccounts implements PrintAccountsPort {
  readonly modes = new Map<string, PrintMode>();
  readonly withoutAccount = new Set<string>();
  readonly validated: string[] = [];
  constructor(readonly service: PrintServicePort) {}
  async setupOf(shop: string): Promise<PrintSetup> {
    const mode = this.modes.get(shop) ?? 'live';
    return this.withoutAccount.has(shop) ? { account: 'none', mode } : { account: 'env', mode, service: this.service };
  }
  async forOrder(): Promise<PrintServicePort> {
    return this.service;
  }
  async recordTestValidated(shop: string): Promise<void> {
    this.validated.push(shop);
  }
}

export class FakeConnections {
  disconnected = new Set<string>();
  async isConnected(shop: string) {
    return !this.disconnected.has(shop);
  }
}

export function fakeDeps(redis: Redis, prefix: string, database: Database) {
  return fakeDepsOn(new PostgresOrderStore({ database, redis, prefix }));
}

/** The same fakes on the in-memory OrderStore: use-case tests that need no database (test/helpers/memory-order-store.ts). */
export function memoryDeps() {
  return fakeDepsOn(new MemoryOrderStore());
}

function fakeDepsOn<S extends OrderStore>(store: S) {
  const printService = new FakePrintService();
  const deps = {
    store,
    mapping: new FakeMapping(),
    printAccounts: new FakePrintAccounts(printService),
    shopify: new FakeShopify(),
    scheduler: new FakeScheduler(),
    sessions: { deleted: [] as string[], async deleteShopSessions(shop: string) { this.deleted.push(shop); return 1; } },
    /** Stores the app holds an Admin API token for; every store unless a test takes it out. */
    connections: new FakeConnections(),
    // Artwork hosts are judged in their own tests (test/mapping/artwork-hosts.test.ts); here every one is public.
    artworkHosts: { problems: async () => [] },
    logger: silentLogger,
    clock: () => new Date(),
  };
  return { ...(deps satisfies BridgeDeps), printService };
}

let orderCounter = 1000;
/** A Shopify order webhook body, written for the project's tests (REST JSON). */
export function shopifyOrderBody(overrides: Record<string, unknown> = {}) {
  orderCounter += 1;
  const n = orderCounter;
  return {
    id: 5_500_000_000 + n,
    admin_graphql_api_id: `gid://shopify/Order/55000000000000${n}`,
    name: `#${n}`,
    order_number: n,
    created_at: '2026-11-21T10:00:00-05:00',
    updated_at: '2026-11-21T10:00:00-05:00',
    cancelled_at: null,
    financial_status: 'paid',
    email: 'zoe@example.com',
    shipping_address: { name: 'Zoë Ünal', address1: 'ul. Piotrkowska 1', city: 'Łódź', zip: '90-001', country_code: 'PL', country: 'Poland' },
    line_items: [
      { id: 14_000_000_000 + n, admin_graphql_api_id: `gid://shopify/LineItem/1400000000000${n}`, sku: 'BOOK-A5', title: 'Notebook', quantity: 2, current_quantity: 2 },
    ],
    ...overrides,
  };
}
