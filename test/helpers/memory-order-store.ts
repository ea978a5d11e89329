import { randomUUID } from 'node:crypto';
import type { OrderStore, PrintIdScope, WebhookBodiesPort } from '../../src/bridge/ports.js';
import { blankOrder, claimNamespace, ENV_NAMESPACE, normaliseTime, type HistoryEntry, type Mutation, type OrderLink } from '../../src/orders/model.js';
import type { OrderStatus } from '../../src/orders/status.js';
import { orderIdOf } from '../../src/storage/webhook-bodies.js';

/**
 * The use cases' OrderStore in memory, for use-case tests that need no database: the same compare-and-set on the
 * order's version, history newest first, per-account sourceOrderId claims (first claimant owns, a redacted owner frees
 * the id), bodies kept only when newer and leases that expire on the clock. test/storage/order-store-contract.test.ts
 * runs the same checks on it and on PostgresOrderStore, so the two cannot drift apart.
 */
export class MemoryOrderStore implements OrderStore {
  private readonly links = new Map<string, OrderLink>();
  private readonly histories = new Map<string, HistoryEntry[]>();
  private readonly claims = new Map<string, { shop: string; orderId: string }>();
  private readonly bodies = new Map<string, { updatedAt: string; body: string }>();
  private readonly leases = new Map<string, { token: string; until: number }>();
  private readonly active = new Map<string, string>();
  private readonly dataRequests = new Map<string, unknown>();
  private readonly webhookBodyMap = new Map<string, string>();
  private readonly unreadable: { references: string[] }[] = [];
  /** Writes that lost a compare-and-set, for tests that provoke contention. */
  conflicts = 0;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async get(shop: string, orderId: string): Promise<OrderLink | undefined> {
    const link = this.links.get(key(shop, orderId));
    return link ? structuredClone(link) : undefined;
  }

  blank(shop: string, orderId: string): OrderLink {
    return blankOrder(shop, orderId, this.clock());
  }

  async update(
    shop: string,
    orderId: string,
    mutate: (current: OrderLink | undefined) => Mutation | undefined,
    known?: OrderLink | null,
  ): Promise<{ link: OrderLink | undefined; changed: boolean }> {
    let guess: OrderLink | null | undefined = known === null ? null : known && known.shop === shop && known.orderId === orderId ? known : undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      const current = guess === null ? undefined : guess ? structuredClone(guess) : await this.get(shop, orderId);
      const guessed = guess !== undefined;
      guess = undefined;
      const mutation = mutate(current ? structuredClone(current) : undefined);
      if (!mutation) {
        if (guessed) continue;
        return { link: current, changed: false };
      }
      const stored = this.links.get(key(shop, orderId));
      if ((stored?.version ?? 0) !== (current?.version ?? 0)) {
        this.conflicts += 1;
        continue;
      }
      const now = this.clock();
      const at = now.toISOString();
      const link: OrderLink = { ...mutation.link, shop, orderId, updatedAt: at, version: (current?.version ?? 0) + 1 };
      this.links.set(key(shop, orderId), structuredClone(link));
      const history = this.histories.get(key(shop, orderId)) ?? [];
      for (const entry of mutation.history ?? []) history.unshift({ at, ...entry });
      this.histories.set(key(shop, orderId), history);
      if (link.sourceOrderId) {
        const claim = claimKey(claimNamespace(shop, link.printAccount), link.sourceOrderId);
        if (!this.claims.has(claim)) this.claims.set(claim, { shop, orderId });
      }
      return { link: structuredClone(link), changed: true };
    }
    throw new Error(`order ${orderId} of ${shop}: too many concurrent writes`);
  }

  async history(shop: string, orderId: string, limit = 200): Promise<HistoryEntry[]> {
    return structuredClone((this.histories.get(key(shop, orderId)) ?? []).slice(0, limit));
  }

  async note(shop: string, orderId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void> {
    const history = this.histories.get(key(shop, orderId)) ?? [];
    history.unshift({ at: this.clock().toISOString(), ...entry });
    this.histories.set(key(shop, orderId), history);
  }

  async redactHistory(shop: string, orderId: string, marker: string): Promise<number> {
    let changed = 0;
    for (const entry of this.histories.get(key(shop, orderId)) ?? []) {
      if (entry.detail === undefined || entry.detail === marker) continue;
      entry.detail = marker;
      changed += 1;
    }
    return changed;
  }

  async claimSourceOrderId(
    shop: string,
    orderId: string,
    sourceOrderId: string,
    namespace: string = ENV_NAMESPACE,
  ): Promise<{ ok: true } | { ok: false; owner: { shop: string; orderId: string } }> {
    const claim = claimKey(namespace, sourceOrderId);
    const owner = this.claims.get(claim);
    if (owner && !(owner.shop === shop && owner.orderId === orderId) && this.links.has(key(owner.shop, owner.orderId))) {
      return { ok: false, owner: { ...owner } };
    }
    this.claims.set(claim, { shop, orderId });
    return { ok: true };
  }

  async findBySourceOrderId(sourceOrderId: string, scope?: string): Promise<OrderLink | undefined> {
    const candidates = scope
      ? [this.claims.get(claimKey(claimNamespace(scope, 'own'), sourceOrderId)), this.claims.get(claimKey(ENV_NAMESPACE, sourceOrderId))].filter(
          (c, i) => c !== undefined && (i === 0 || c.shop === scope),
        )
      : [this.claims.get(claimKey(ENV_NAMESPACE, sourceOrderId))];
    for (const owner of candidates) {
      const link = owner && (await this.get(owner.shop, owner.orderId));
      if (link) return link;
    }
    return undefined;
  }

  async findByPrintOrderId(printOrderId: string, scope?: PrintIdScope): Promise<OrderLink | undefined> {
    const all = [...this.links.values()].filter((l) => l.printOrderId === printOrderId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const within = (l: OrderLink) => (scope === 'env-account' ? (l.printAccount ?? 'env') === 'env' : l.shop === scope?.shop);
    const found = (scope && all.find(within)) ?? all[0];
    return found ? structuredClone(found) : undefined;
  }

  async indexPrintOrderId(_link: OrderLink): Promise<void> {}

  async listOfShop(shop: string, options: { status?: OrderStatus; offset?: number; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    const all = [...this.links.values()]
      .filter((l) => l.shop === shop && (!options.status || l.status === options.status))
      .sort((a, b) => (options.status ? b.statusAt.localeCompare(a.statusAt) : b.updatedAt.localeCompare(a.updatedAt)));
    const offset = options.offset ?? 0;
    return { total: all.length, links: structuredClone(all.slice(offset, offset + (options.limit ?? 50))) };
  }

  async listQuietSince(status: OrderStatus, beforeMs: number, limit: number, offset = 0): Promise<OrderLink[]> {
    return structuredClone(
      [...this.links.values()]
        .filter((l) => l.status === status && Date.parse(l.statusAt) <= beforeMs)
        .sort((a, b) => Date.parse(a.statusAt) - Date.parse(b.statusAt) || a.shop.localeCompare(b.shop) || a.orderId.localeCompare(b.orderId))
        .slice(offset, offset + limit),
    );
  }

  async saveOrderBody(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<boolean> {
    const kept = this.bodies.get(key(shop, orderId));
    const at = normaliseTime(updatedAt);
    if (kept && Date.parse(kept.updatedAt) >= Date.parse(at)) return false;
    this.bodies.set(key(shop, orderId), { updatedAt: at, body: rawBody });
    return true;
  }

  async saveOrderBodyAndRead(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<{ newest: boolean; link: OrderLink | null }> {
    const link = (await this.get(shop, orderId)) ?? null;
    return { newest: await this.saveOrderBody(shop, orderId, updatedAt, rawBody), link };
  }

  async getOrderBody(shop: string, orderId: string): Promise<{ updatedAt: string; body: string } | undefined> {
    const kept = this.bodies.get(key(shop, orderId));
    return kept ? { ...kept } : undefined;
  }

  async deleteOrderBody(shop: string, orderId: string): Promise<void> {
    this.bodies.delete(key(shop, orderId));
  }

  async deleteOrder(shop: string, orderId: string): Promise<void> {
    this.links.delete(key(shop, orderId));
    this.bodies.delete(key(shop, orderId));
    this.histories.delete(key(shop, orderId));
    for (const [claim, owner] of this.claims) if (owner.shop === shop && owner.orderId === orderId) this.claims.delete(claim);
  }

  async orderIdsOfShop(shop: string): Promise<string[]> {
    return [...this.links.values()].filter((l) => l.shop === shop).map((l) => l.orderId).sort();
  }

  async markShopActive(shop: string): Promise<void> {
    if (!this.active.has(shop)) this.active.set(shop, this.clock().toISOString());
  }

  async shopActiveSince(shop: string): Promise<string | undefined> {
    return this.active.get(shop);
  }

  async forgetShopActive(shop: string): Promise<void> {
    this.active.delete(shop);
  }

  async removeShop(shop: string): Promise<void> {
    this.active.delete(shop);
  }

  async saveDataRequest(shop: string, requestId: string, report: unknown): Promise<void> {
    this.dataRequests.set(key(shop, requestId), structuredClone(report));
  }

  /** A data request's report, as kept (the tests read it back). */
  async getDataRequest(shop: string, requestId: string): Promise<unknown> {
    return structuredClone(this.dataRequests.get(key(shop, requestId)));
  }

  async redactDataRequests(shop: string, orderIds?: readonly string[]): Promise<number> {
    let changed = 0;
    for (const [k, report] of this.dataRequests) {
      if (!k.startsWith(`${shop}\u0000`)) continue;
      if (!orderIds) {
        this.dataRequests.delete(k);
        changed += 1;
        continue;
      }
      // A report is a list of orders; the redacted ones leave it (src/storage/data-requests.ts).
      if (!Array.isArray(report)) continue;
      const kept = (report as { orderId?: string }[]).filter((entry) => !orderIds.includes(entry.orderId ?? ''));
      if (kept.length === report.length) continue;
      this.dataRequests.set(k, kept);
      changed += 1;
    }
    return changed;
  }

  async tryLease(shop: string, orderId: string, ttlMs: number): Promise<string | undefined> {
    const held = this.leases.get(key(shop, orderId));
    if (held && held.until > this.clock().getTime()) return undefined;
    const token = randomUUID();
    this.leases.set(key(shop, orderId), { token, until: this.clock().getTime() + ttlMs });
    return token;
  }

  async renewLease(shop: string, orderId: string, token: string, ttlMs: number): Promise<boolean> {
    const held = this.leases.get(key(shop, orderId));
    if (!held || held.token !== token) return false;
    held.until = this.clock().getTime() + ttlMs;
    return true;
  }

  async releaseLease(shop: string, orderId: string, token: string): Promise<void> {
    if (this.leases.get(key(shop, orderId))?.token === token) this.leases.delete(key(shop, orderId));
  }

  webhookBodies(): WebhookBodiesPort {
    const bodies = this.webhookBodyMap;
    return {
      async keep(shop, webhookId, body) {
        bodies.set(key(shop, webhookId), body);
      },
      async get(shop, webhookId) {
        return bodies.get(key(shop, webhookId));
      },
      async drop(shop, webhookId) {
        bodies.delete(key(shop, webhookId));
      },
      async dropShop(shop) {
        let n = 0;
        for (const k of bodies.keys()) if (k.startsWith(`${shop}\u0000`) && bodies.delete(k)) n += 1;
        return n;
      },
      async dropOrders(shop, orderIds) {
        // An order body's exact `id` (numeric, as text), as src/storage/webhook-bodies.ts reads it.
        let n = 0;
        for (const [k, body] of bodies) {
          if (!k.startsWith(`${shop}\u0000`)) continue;
          const id = orderIdOf(body);
          if (id !== undefined && orderIds.includes(id)) {
            bodies.delete(k);
            n += 1;
          }
        }
        return n;
      },
    };
  }

  unreadablePostbacks(): { removeMentioning(references: readonly string[]): Promise<number> } {
    const entries = this.unreadable;
    return {
      async removeMentioning(references) {
        const before = entries.length;
        for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.references.some((r) => references.includes(r))) entries.splice(i, 1);
        return before - entries.length;
      },
    };
  }
}

function key(shop: string, id: string): string {
  return `${shop}\u0000${id}`;
}

function claimKey(namespace: string, sourceOrderId: string): string {
  return `${namespace}\u0000${sourceOrderId}`;
}
