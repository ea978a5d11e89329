import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { OrderStatus } from './status.js';
import { WebhookBodies } from './webhook-bodies.js';

/**
 * The order link store: for every Shopify order the app has seen, the link to its print order (sourceOrderId,
 * print `_id`), its shipments with the Shopify line items in each and their fulfillments, its status, the reasons
 * shown to the merchant, and a capped history. Redis is the only state; web and worker processes are stateless.
 *
 * Writes are compare-and-set on a version number inside one Lua script, so concurrent workers sharing a connection
 * never lose each other's updates (WATCH is per connection and unsafe with a shared one).
 */

export interface ShipmentLineItem {
  /** Shopify line item gid. */
  lineItemId: string;
  quantity: number;
  sku?: string;
  title?: string;
}

export interface ShipmentLink {
  index: number;
  lineItems: ShipmentLineItem[];
  status: 'pending' | 'shipped';
  trackingNumber?: string;
  carrier?: { alias?: string; code?: string; service?: string };
  shippedAt?: string;
  /** Shopify fulfillment gid, once fulfilled. */
  fulfillmentId?: string;
  /** The tracking number the fulfillment carries in Shopify. */
  fulfilledTrackingNumber?: string;
  /** When the shipment's Shipped postback was carried out in Shopify (fulfilled, or nothing was left to fulfill). */
  appliedAt?: string;
  /**
   * Shipped, but Shopify holds a fulfillment order it needs (ON_HOLD, or SCHEDULED for later): it is fulfilled with its
   * tracking once released (fulfillment-order webhooks, and re-checks). Cleared when fulfilled.
   */
  waitingForRelease?: HoldWait;
}

export interface HoldWait {
  since: string;
  /** What the merchant reads, e.g. "waiting for the fulfillment hold to be released: Awaiting payment (bank transfer)". */
  message: string;
  fulfillmentOrderIds: string[];
  /** How many times the wait was found still in force; spaces the re-checks out. */
  checks: number;
  nextCheckAt?: string;
}

export interface Problem {
  /** Machine-readable kind: mapping, validation, submission-error, print-error, cancel-refused, ... */
  kind: string;
  message: string;
  /** What the problem is about, e.g. a line item or a field. */
  subject?: string;
  at: string;
}

export interface OrderLink {
  shop: string;
  /** Shopify order gid (`gid://shopify/Order/…`): exact, unlike the numeric id in webhook bodies. */
  orderId: string;
  orderName?: string;
  status: OrderStatus;
  statusAt: string;
  sourceOrderId?: string;
  printOrderId?: string;
  /** `updated_at` of the newest order version applied. */
  shopifyUpdatedAt?: string;
  /** Creates sent so far; above 0 means the next one must ask the service first. */
  submitAttempts: number;
  /** End of the hold window. */
  submitAfter?: string;
  /**
   * When each order topic (`orders/create`, `orders/paid`, ...) first arrived: a mapping that appears or changes later
   * knows whether its submit topic already came, and from when its hold window runs.
   */
  topics?: Record<string, string>;
  /** Why nothing of the order goes to the printer (status `not-printed`). */
  notPrintedReason?: string;
  cancelRequested?: { at: string; by: 'shopify' | 'print-service' | 'operator' };
  /** Last time the reconciliation asked the print service about this order. */
  reconciledAt?: string;
  /** Fingerprint of the shipping address the printer has, to notice a change after submission. */
  sentShipToHash?: string;
  problems: Problem[];
  shipments: ShipmentLink[];
  createdAt: string;
  updatedAt: string;
  version: number;
}

export interface HistoryEntry {
  at: string;
  event: string;
  source: 'shopify' | 'print-service' | 'worker' | 'operator';
  status?: OrderStatus;
  detail?: string;
}

export interface Mutation {
  link: OrderLink;
  history?: Omit<HistoryEntry, 'at'>[];
}

export const HISTORY_LIMIT = 200;
const WEBHOOK_SEEN_SECONDS = 8 * 24 * 3600;

// KEYS: link, updatedIndex, statusIndexOld, statusIndexNew, history, sourceIndex (or "" when none)
// ARGV: expectedVersion, json, member, updatedScore, statusScore, historyLimit, sourceMember, history...
const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local version = 0
if current then version = tonumber(cjson.decode(current).version) end
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
if KEYS[3] ~= KEYS[4] then redis.call('ZREM', KEYS[3], ARGV[3]) end
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[3])
for i = 8, #ARGV do redis.call('LPUSH', KEYS[5], ARGV[i]) end
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[6]) - 1)
if ARGV[7] ~= '' then
  -- A sourceOrderId belongs to the first order that claimed it (claimSourceOrderId): never taken over here.
  local owner = redis.call('GET', KEYS[6])
  if (not owner) or owner == ARGV[7] then redis.call('SET', KEYS[6], ARGV[7]) end
end
return 1
`;

// KEYS: body key. ARGV: updatedAt (ISO), raw body. Keeps only the newest version by Shopify's updated_at.
const SAVE_BODY_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], 'updatedAt')
if stored and stored >= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[1], 'body', ARGV[2])
return 1
`;

const RENEW_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export class OrderStoreConflictError extends Error {
  readonly retryable = true;
  constructor(shop: string, orderId: string) {
    super(`Order ${orderId} of ${shop} kept changing under concurrent updates; the job will retry.`);
    this.name = 'OrderStoreConflictError';
  }
}

export class OrderStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  private member(shop: string, orderId: string): string {
    return `${shop}|${orderId}`;
  }

  async get(shop: string, orderId: string): Promise<OrderLink | undefined> {
    const raw = await this.redis.get(this.key('link', shop, orderId));
    return raw ? (JSON.parse(raw) as OrderLink) : undefined;
  }

  /** A new record for an order seen for the first time. */
  blank(shop: string, orderId: string): OrderLink {
    const now = this.clock().toISOString();
    return {
      shop,
      orderId,
      status: 'pending',
      statusAt: now,
      submitAttempts: 0,
      problems: [],
      shipments: [],
      createdAt: now,
      updatedAt: now,
      version: 0,
    };
  }

  /**
   * Reads, lets `mutate` decide, and writes only if nobody wrote in between; otherwise reads again. `mutate` returns
   * undefined to change nothing. Returns the stored link (new or unchanged).
   */
  async update(
    shop: string,
    orderId: string,
    mutate: (current: OrderLink | undefined) => Mutation | undefined,
  ): Promise<{ link: OrderLink | undefined; changed: boolean }> {
    for (let attempt = 0; attempt < 50; attempt++) {
      // Contenders that lost spread out instead of colliding again on the next read.
      if (attempt > 0) await sleep(Math.random() * Math.min(50, 2 * attempt));
      const current = await this.get(shop, orderId);
      const mutation = mutate(current ? structuredClone(current) : undefined);
      if (!mutation) return { link: current, changed: false };
      const now = this.clock();
      const link: OrderLink = { ...mutation.link, updatedAt: now.toISOString(), version: (current?.version ?? 0) + 1 };
      const member = this.member(shop, orderId);
      const history = (mutation.history ?? []).map((h) => JSON.stringify({ at: now.toISOString(), ...h }));
      const written = (await this.redis.eval(
        CAS_SCRIPT,
        6,
        this.key('link', shop, orderId),
        this.key('index', 'updated'),
        this.key('index', 'status', current?.status ?? link.status),
        this.key('index', 'status', link.status),
        this.key('history', shop, orderId),
        link.sourceOrderId ? this.key('source', link.sourceOrderId) : this.key('source', '-'),
        String(current?.version ?? 0),
        JSON.stringify(link),
        member,
        String(now.getTime()),
        String(Date.parse(link.statusAt) || now.getTime()),
        String(HISTORY_LIMIT),
        link.sourceOrderId && link.sourceOrderId !== current?.sourceOrderId ? member : '',
        ...history,
      )) as number;
      if (written === 1) return { link, changed: true };
    }
    throw new OrderStoreConflictError(shop, orderId);
  }

  async history(shop: string, orderId: string, limit = HISTORY_LIMIT): Promise<HistoryEntry[]> {
    const raw = await this.redis.lrange(this.key('history', shop, orderId), 0, limit - 1);
    return raw.map((r) => JSON.parse(r) as HistoryEntry);
  }

  /** Adds a history entry without changing the link (e.g. an operator action that changed nothing). */
  async note(shop: string, orderId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void> {
    const key = this.key('history', shop, orderId);
    await this.redis
      .multi()
      .lpush(key, JSON.stringify({ at: this.clock().toISOString(), ...entry }))
      .ltrim(key, 0, HISTORY_LIMIT - 1)
      .exec();
  }

  /**
   * Claims a sourceOrderId for one order before it is sent: the first order to claim it owns it, and the same order
   * claiming again is fine. Another store's (or order's) claim is refused with the owner, so two stores whose mappings
   * render the same id never share one print order, nor each other's postbacks. An owner whose link is gone
   * (redacted) no longer holds it.
   */
  async claimSourceOrderId(shop: string, orderId: string, sourceOrderId: string): Promise<{ ok: true } | { ok: false; owner: { shop: string; orderId: string } }> {
    const key = this.key('source', sourceOrderId);
    const member = this.member(shop, orderId);
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await this.redis.set(key, member, 'NX')) === 'OK') return { ok: true };
      const owner = await this.redis.get(key);
      if (owner === null) continue;
      if (owner === member) return { ok: true };
      const [ownerShop, ownerOrder] = splitMember(owner);
      if (await this.redis.exists(this.key('link', ownerShop, ownerOrder))) return { ok: false, owner: { shop: ownerShop, orderId: ownerOrder } };
      // The owner's record is gone: the id is free again (compare-and-delete, so a new owner is never removed).
      await this.redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, key, owner);
    }
    throw new OrderStoreConflictError(shop, orderId);
  }

  async findBySourceOrderId(sourceOrderId: string): Promise<OrderLink | undefined> {
    const member = await this.redis.get(this.key('source', sourceOrderId));
    if (!member) return undefined;
    const [shop, orderId] = splitMember(member);
    return this.get(shop, orderId);
  }

  async findByPrintOrderId(printOrderId: string): Promise<OrderLink | undefined> {
    const member = await this.redis.get(this.key('print', printOrderId));
    if (!member) return undefined;
    const [shop, orderId] = splitMember(member);
    return this.get(shop, orderId);
  }

  async indexPrintOrderId(link: OrderLink): Promise<void> {
    if (link.printOrderId) await this.redis.set(this.key('print', link.printOrderId), this.member(link.shop, link.orderId));
  }

  /** Newest first; with a status, only orders in it. */
  async list(options: { status?: OrderStatus; offset?: number; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    const index = options.status ? this.key('index', 'status', options.status) : this.key('index', 'updated');
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 50;
    const [total, members] = await Promise.all([
      this.redis.zcard(index),
      this.redis.zrevrange(index, offset, offset + limit - 1),
    ]);
    if (members.length === 0) return { total, links: [] };
    const raws = await this.redis.mget(members.map((m) => this.key('link', ...splitMember(m))));
    return { total, links: raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as OrderLink) };
  }

  /**
   * One shop's orders, newest first (the embedded admin pages). Members are `shop|orderId`, so the index is scanned
   * for the shop's prefix without reading other shops' records.
   */
  async listOfShop(shop: string, options: { status?: OrderStatus; offset?: number; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    const index = options.status ? this.key('index', 'status', options.status) : this.key('index', 'updated');
    const scored = await this.scanShopMembers(index, shop);
    scored.sort((a, b) => b.score - a.score);
    const offset = options.offset ?? 0;
    const page = scored.slice(offset, offset + (options.limit ?? 50));
    if (page.length === 0) return { total: scored.length, links: [] };
    const raws = await this.redis.mget(page.map((m) => this.key('link', ...splitMember(m.member))));
    return { total: scored.length, links: raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as OrderLink) };
  }

  async countByStatusOfShop(shop: string, statuses: readonly OrderStatus[]): Promise<Record<string, number>> {
    const counts = await Promise.all(statuses.map(async (s) => (await this.scanShopMembers(this.key('index', 'status', s), shop)).length));
    return Object.fromEntries(statuses.map((s, i) => [s, counts[i] ?? 0]));
  }

  private async scanShopMembers(index: string, shop: string): Promise<{ member: string; score: number }[]> {
    const pattern = `${shop.replace(/[*?[\]\\]/g, '\\$&')}|*`;
    const found: { member: string; score: number }[] = [];
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.zscan(index, cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i + 1 < flat.length; i += 2) found.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    } while (cursor !== '0');
    // ZSCAN may return a member twice while the index changes.
    return [...new Map(found.map((f) => [f.member, f])).values()];
  }

  /** Orders in a status since before `beforeMs` (oldest first): candidates for a check with the print service. */
  async listQuietSince(status: OrderStatus, beforeMs: number, limit: number, offset = 0): Promise<OrderLink[]> {
    const members = await this.redis.zrangebyscore(this.key('index', 'status', status), '-inf', String(beforeMs), 'LIMIT', offset, limit);
    if (members.length === 0) return [];
    const raws = await this.redis.mget(members.map((m) => this.key('link', ...splitMember(m))));
    return raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as OrderLink);
  }

  async countByStatus(statuses: readonly OrderStatus[]): Promise<Record<string, number>> {
    const counts = await Promise.all(statuses.map((s) => this.redis.zcard(this.key('index', 'status', s))));
    return Object.fromEntries(statuses.map((s, i) => [s, counts[i] ?? 0]));
  }

  /** Keeps the newest version of a Shopify order body by `updated_at`; returns whether this one was newer. */
  async saveOrderBody(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<boolean> {
    const result = await this.redis.eval(SAVE_BODY_SCRIPT, 1, this.key('body', shop, orderId), normaliseTime(updatedAt), rawBody);
    return result === 1;
  }

  async getOrderBody(shop: string, orderId: string): Promise<{ updatedAt: string; body: string } | undefined> {
    const [updatedAt, body] = await this.redis.hmget(this.key('body', shop, orderId), 'updatedAt', 'body');
    return updatedAt && body ? { updatedAt, body } : undefined;
  }

  /** Records a webhook id; false when it was seen within the last days (a repeat delivery). */
  /**
   * Records when the app first handled an order of this shop (kept if already set): the lost-order recovery never
   * reaches back before it, so orders from before the install are never sent to the printer.
   */
  async markShopActive(shop: string): Promise<void> {
    await this.redis.set(this.key('shop-since', shop), this.clock().toISOString(), 'NX');
  }

  async shopActiveSince(shop: string): Promise<string | undefined> {
    return (await this.redis.get(this.key('shop-since', shop))) ?? undefined;
  }

  /** Uninstalled: orders placed until a reinstall are not this app's to recover. */
  async forgetShopActive(shop: string): Promise<void> {
    await this.redis.del(this.key('shop-since', shop));
  }

  async markWebhookSeen(webhookId: string): Promise<boolean> {
    return (await this.redis.set(this.key('webhook', webhookId), '1', 'EX', WEBHOOK_SEEN_SECONDS, 'NX')) === 'OK';
  }

  async isWebhookSeen(webhookId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('webhook', webhookId))) === 1;
  }

  /** Keeps the answer to a customer data request for an operator to send on (30 days). */
  async saveDataRequest(shop: string, requestId: string, report: unknown): Promise<void> {
    await this.redis.set(this.key('data-request', shop, requestId), JSON.stringify(report), 'EX', 30 * 24 * 3600);
  }

  async getDataRequest(shop: string, requestId: string): Promise<unknown> {
    const raw = await this.redis.get(this.key('data-request', shop, requestId));
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  }

  /** Every order of a shop (for redaction and uninstall). */
  async orderIdsOfShop(shop: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.key('link', shop, '*'), 'COUNT', 500);
      cursor = next;
      const head = this.key('link', shop, '');
      ids.push(...keys.map((k) => k.slice(head.length)));
    } while (cursor !== '0');
    return ids;
  }

  /** Deletes the stored Shopify order body, which holds the customer's personal data. */
  async deleteOrderBody(shop: string, orderId: string): Promise<void> {
    await this.redis.del(this.key('body', shop, orderId));
  }

  /** Raw webhook bodies between intake and the worker (queue jobs carry ids only). */
  webhookBodies(): WebhookBodies {
    return new WebhookBodies(this.redis, this.prefix);
  }

  /** Data-request reports of the shop (shop/redact), or the entries of these orders in them (customers/redact). */
  async redactDataRequests(shop: string, orderIds?: readonly string[]): Promise<number> {
    let changed = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.key('data-request', shop, '*'), 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        if (!orderIds) {
          changed += await this.redis.del(key);
          continue;
        }
        const raw = await this.redis.get(key);
        const report = raw ? (JSON.parse(raw) as { orderId?: string }[]) : [];
        const kept = Array.isArray(report) ? report.filter((entry) => !orderIds.includes(entry.orderId ?? '')) : report;
        if (Array.isArray(report) && kept.length !== report.length) {
          await this.redis.set(key, JSON.stringify(kept), 'KEEPTTL');
          changed++;
        }
      }
    } while (cursor !== '0');
    return changed;
  }

  /** Postbacks that could not be understood, kept for an operator (admin pages). */
  unreadablePostbacks(): UnreadablePostbacks {
    return new UnreadablePostbacks(this.redis, this.prefix);
  }

  async keepUnreadablePostback(entry: Omit<UnreadablePostback, 'id'>): Promise<UnreadablePostback> {
    return this.unreadablePostbacks().keep(entry);
  }

  async listUnreadablePostbacks(options: { offset?: number; limit?: number } = {}): Promise<{ total: number; entries: UnreadablePostback[] }> {
    return this.unreadablePostbacks().list(options);
  }

  async countUnreadablePostbacks(): Promise<number> {
    return this.unreadablePostbacks().count();
  }

  async removeUnreadablePostback(id: string): Promise<boolean> {
    return this.unreadablePostbacks().remove(id);
  }

  /**
   * A short lease on one order for steps that read Shopify and then write it (a fulfillment), so two jobs of the same
   * order do not both act on one read. Returns a token for `releaseLease`, or undefined when someone else holds it.
   */
  async tryLease(shop: string, orderId: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const ok = await this.redis.set(this.key('lease', shop, orderId), token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : undefined;
  }

  /** Extends a lease still held with `token`; false when it was lost (expired and maybe taken by another job). */
  async renewLease(shop: string, orderId: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(RENEW_LEASE_SCRIPT, 1, this.key('lease', shop, orderId), token, String(ttlMs))) === 1;
  }

  async releaseLease(shop: string, orderId: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE_LEASE_SCRIPT, 1, this.key('lease', shop, orderId), token);
  }

  /** Removes every trace of an order (shop redaction). */
  async deleteOrder(shop: string, orderId: string): Promise<void> {
    const link = await this.get(shop, orderId);
    const member = this.member(shop, orderId);
    const multi = this.redis
      .multi()
      .del(this.key('link', shop, orderId), this.key('body', shop, orderId), this.key('history', shop, orderId))
      .zrem(this.key('index', 'updated'), member);
    if (link) multi.zrem(this.key('index', 'status', link.status), member);
    if (link?.sourceOrderId) multi.del(this.key('source', link.sourceOrderId));
    if (link?.printOrderId) multi.del(this.key('print', link.printOrderId));
    await multi.exec();
  }
}

export interface UnreadablePostback {
  id: string;
  receivedAt: string;
  /** Request headers without credentials. */
  headers: Record<string, string>;
  /** The body as received (cut at UNREADABLE_BODY_LIMIT characters). */
  body: string;
  error: string;
}

export const UNREADABLE_POSTBACKS_LIMIT = 1000;
export const UNREADABLE_BODY_LIMIT = 64 * 1024;

/** Postbacks the app could not understand, kept for an operator; a capped list, newest first. */
export class UnreadablePostbacks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}postbacks:unreadable`;
  }

  async keep(entry: Omit<UnreadablePostback, 'id'>): Promise<UnreadablePostback> {
    const stored: UnreadablePostback = {
      id: randomUUID(),
      ...entry,
      body: entry.body.length > UNREADABLE_BODY_LIMIT ? entry.body.slice(0, UNREADABLE_BODY_LIMIT) : entry.body,
    };
    await this.redis.multi().lpush(this.key, JSON.stringify(stored)).ltrim(this.key, 0, UNREADABLE_POSTBACKS_LIMIT - 1).exec().then(failedExec);
    return stored;
  }

  async list(options: { offset?: number; limit?: number } = {}): Promise<{ total: number; entries: UnreadablePostback[] }> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 50;
    const [total, raw] = await Promise.all([this.redis.llen(this.key), this.redis.lrange(this.key, offset, offset + limit - 1)]);
    return { total, entries: raw.map((r) => JSON.parse(r) as UnreadablePostback) };
  }

  async count(): Promise<number> {
    return this.redis.llen(this.key);
  }

  /** Removes every kept postback whose body mentions one of these references (redaction). Returns how many. */
  async removeMentioning(references: readonly string[]): Promise<number> {
    const wanted = references.filter((r) => r.length >= 3);
    if (wanted.length === 0) return 0;
    let removed = 0;
    for (const raw of await this.redis.lrange(this.key, 0, -1)) {
      const entry = JSON.parse(raw) as UnreadablePostback;
      if (wanted.some((r) => entry.body.includes(r))) removed += await this.redis.lrem(this.key, 1, raw);
    }
    return removed;
  }

  /** An operator has dealt with it. Returns whether it was there. */
  async remove(id: string): Promise<boolean> {
    const raw = await this.redis.lrange(this.key, 0, -1);
    const match = raw.find((r) => (JSON.parse(r) as UnreadablePostback).id === id);
    return match ? (await this.redis.lrem(this.key, 1, match)) > 0 : false;
  }
}

function failedExec(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([error]) => error);
  if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction was discarded');
}

function splitMember(member: string): [string, string] {
  const at = member.indexOf('|');
  return [member.slice(0, at), member.slice(at + 1)];
}

/** ISO strings compare correctly as text only in one zone and form; Shopify sends offsets (`-04:00`). */
export function normaliseTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
