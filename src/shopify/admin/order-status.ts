import { z } from 'zod';
import type { StatusChange, StatusShown } from '../../bridge/shopify-data.js';
import { ShopifyUserError, type ShopifyUserErrorDetail } from './errors.js';
import { batchAnswers, ORDERS_BY_ID_MAX, parseJsonValue, userErrorSchema, type AdminRequests, type BatchAnswers } from './request.js';
import type { StatusWriteBatches } from './status-write-batches.js';
import type { Waiter } from './turn-batches.js';

/**
 * What an order shows of its print status in Shopify (its tags and the `$app:print_status` metafield), the writes
 * that change it, and the line the app adds to its note.
 */

/**
 * The order's print status, in the app-owned namespace (`$app`, which Shopify resolves to `app--<app id>`; only this
 * app writes it) with its definition declared in shopify.app.toml, so merchants see it on the order page.
 */
export const STATUS_METAFIELD = { namespace: '$app', key: 'print_status', type: 'json' } as const;

// What the order shows of its print status: about 2 points (the order and its metafield).
const ORDER_SHOWS = /* GraphQL */ `
  query PrintBridgeOrderShows($id: ID!) {
    order(id: $id) {
      id
      tags
      statusMetafield: metafield(namespace: "${STATUS_METAFIELD.namespace}", key: "${STATUS_METAFIELD.key}") { value }
    }
  }
`;

// The same for several orders (OrderReadBatches): the orders a store's syncs read in one turn.
const ORDERS_SHOW = /* GraphQL */ `
  query PrintBridgeOrdersShow($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Order {
        id
        tags
        statusMetafield: metafield(namespace: "${STATUS_METAFIELD.namespace}", key: "${STATUS_METAFIELD.key}") { value }
      }
    }
  }
`;

const ORDER_NOTE = /* GraphQL */ `
  query PrintBridgeOrderNote($id: ID!) {
    order(id: $id) { id note }
  }
`;

const ORDER_UPDATE_NOTE = /* GraphQL */ `
  mutation PrintBridgeOrderUpdateNote($input: OrderInput!) {
    orderUpdate(input: $input) { order { id note } userErrors { field message } }
  }
`;

const orderShowsSchema = z.object({ order: z.object({ id: z.string(), tags: z.array(z.string()), statusMetafield: z.object({ value: z.string() }).nullable() }).nullable() });
const mutationPayload = z.object({ userErrors: z.array(userErrorSchema) }).nullable().optional();
const showStatusSchema = z.object({ added: mutationPayload, removed: mutationPayload, status: mutationPayload });
const orderNoteSchema = z.object({ order: z.object({ id: z.string(), note: z.string().nullable() }).nullable() });

/** What the order shows of its print status (tags and metafield); null when the shop has no such order. */
export async function orderShows(api: AdminRequests, orderGid: string): Promise<StatusShown | null> {
  const data = await api.call(
    'orderShows',
    ORDER_SHOWS,
    { id: orderGid },
    orderShowsSchema,
    true,
  );
  if (!data.order) return null;
  return { tags: data.order.tags, status: data.order.statusMetafield ? parseJsonValue(data.order.statusMetafield.value) : null };
}

// A node of another type, or an id the shop does not have, answers null (or an object without the Order's fields).
const ordersShowSchema = z.object({
  nodes: z.array(
    z.object({ id: z.string().optional(), tags: z.array(z.string()).optional(), statusMetafield: z.object({ value: z.string() }).nullable().optional() }).nullable(),
  ),
});

/**
 * `orderShows` for several orders of one shop in one request (`nodes(ids:)`): an answer for each id given, null where
 * the shop has no such order; each answer is matched to its id by the id it carries.
 */
export async function ordersShow(api: AdminRequests, orderGids: readonly string[]): Promise<BatchAnswers<StatusShown>> {
  if (orderGids.length > ORDERS_BY_ID_MAX) throw new RangeError(`ordersShow reads at most ${ORDERS_BY_ID_MAX} orders at once, got ${orderGids.length}`);
  const nodeErrors: number[] = [];
  // Each id is an order and its metafield looked up: two points each.
  const pacing = { key: `ordersShow×${orderGids.length}`, estimate: 2 * orderGids.length };
  const data = await api.call('ordersShow', ORDERS_SHOW, { ids: orderGids }, ordersShowSchema, true, { pacing, nodeErrors });
  const found = new Map<string, StatusShown>();
  for (const node of data.nodes) {
    if (!node?.id || !node.tags) continue;
    found.set(node.id, { tags: node.tags, status: node.statusMetafield ? parseJsonValue(node.statusMetafield.value) : null });
  }
  return batchAnswers(orderGids, found, nodeErrors);
}

/**
 * Tags added and removed and the status metafield written in one request: Shopify runs the mutations of a document
 * one after the other and charges each (10 points), so only the ones `change` needs are sent. Idempotent: tags are a
 * set and the metafield an upsert. With `batches` (issue 27), while the shop's bucket is short of full, the metafield
 * goes instead with the status metafields of the shop's other orders written meanwhile, one `metafieldsSet` of up to
 * 25 for 10 points, and the tags in their own request; both are written when this resolves.
 *
 * Never `orderUpdate` for the tags: its `tags` replaces the order's whole list, so a tag a merchant adds between the
 * read the list came from and the write would be lost, and Shopify offers nothing to make that write conditional
 * (docs/pipeline.md, *What Shopify shows*).
 */
export async function showStatus(
  api: AdminRequests,
  orderGid: string,
  change: StatusChange,
  batches?: StatusMetafieldBatches,
  writes?: StatusWriteBatches,
): Promise<void> {
  // While the bucket is (nearly) full nothing is gained by waiting: the tags and the metafield go as one request.
  if (batches && change.status !== undefined && batches.worthWaiting(api)) {
    const { status, ...tags } = change;
    await Promise.all([showStatus(api, orderGid, tags, undefined, writes), batches.write(api, orderGid, status)]);
    return;
  }
  // With `writes`, the writes of the shop's other orders made in the same turn go in the same request.
  if (writes) return writes.write(api, orderGid, change);
  return sendStatusChange(api, orderGid, change);
}

/** One order's status change as one document: only the mutations it needs (none: nothing is sent). */
export async function sendStatusChange(api: AdminRequests, orderGid: string, change: StatusChange): Promise<void> {
  const operation = 'showStatus';
  const variables: string[] = [];
  const fields: string[] = [];
  const values: Record<string, unknown> = {};
  const errors = 'userErrors { field message }';
  if (change.addTags.length > 0 || change.removeTags.length > 0) {
    variables.push('$id: ID!');
    values.id = orderGid;
  }
  if (change.addTags.length > 0) {
    variables.push('$add: [String!]!');
    fields.push(`added: tagsAdd(id: $id, tags: $add) { ${errors} }`);
    values.add = change.addTags;
  }
  if (change.removeTags.length > 0) {
    variables.push('$remove: [String!]!');
    fields.push(`removed: tagsRemove(id: $id, tags: $remove) { ${errors} }`);
    values.remove = change.removeTags;
  }
  if (change.status !== undefined) {
    variables.push('$metafields: [MetafieldsSetInput!]!');
    fields.push(`status: metafieldsSet(metafields: $metafields) { ${errors} }`);
    values.metafields = [{ ownerId: orderGid, ...STATUS_METAFIELD, value: JSON.stringify(change.status) }];
  }
  if (fields.length === 0) return;
  const data = await api.call(
    operation,
    `mutation PrintBridgeShowStatus(${variables.join(', ')}) { ${fields.join(' ')} }`,
    values,
    showStatusSchema,
    true,
  );
  api.throwUserErrors(operation, orderGid, [...(data.added?.userErrors ?? []), ...(data.removed?.userErrors ?? []), ...(data.status?.userErrors ?? [])]);
}

/**
 * Adds `text` as a line of the order's note unless the note has that line already, so a repeated job does not
 * repeat it. Returns whether the note changed.
 */
export async function appendOrderNote(api: AdminRequests, orderGid: string, text: string): Promise<{ changed: boolean; note: string }> {
  const operation = 'appendOrderNote';
  const line = text.trim();
  if (line === '') throw new RangeError('appendOrderNote needs a non-empty text');
  const read = await api.call(
    operation,
    ORDER_NOTE,
    { id: orderGid },
    orderNoteSchema,
    true,
  );
  if (!read.order) throw new ShopifyUserError(operation, api.shop, orderGid, [{ field: ['id'], message: 'Order does not exist' }]);
  const current = read.order.note ?? '';
  if (current.split(/\r?\n/).some((l) => l.trim() === line)) return { changed: false, note: current };
  const note = current.trim() === '' ? line : `${current.replace(/\s+$/, '')}\n${line}`;
  const data = await api.call(
    operation,
    ORDER_UPDATE_NOTE,
    { input: { id: orderGid, note } },
    z.object({
      orderUpdate: z.object({
        order: z.object({ id: z.string(), note: z.string().nullable() }).nullable(),
        userErrors: z.array(userErrorSchema),
      }),
    }),
    true,
  );
  api.throwUserErrors(operation, orderGid, data.orderUpdate.userErrors);
  return { changed: true, note: data.orderUpdate.order?.note ?? note };
}

const STATUS_METAFIELDS_SET = /* GraphQL */ `
  mutation PrintBridgeShowStatusMetafields($metafields: [MetafieldsSetInput!]!) {
    metafieldsSet(metafields: $metafields) { userErrors { field message code } }
  }
`;

/** Shopify's limit of metafields in one `metafieldsSet`. */
export const METAFIELDS_SET_MAX = 25;

interface PendingMetafield {
  orderGid: string;
  value: string;
  waiters: Waiter[];
}
interface MetafieldBatch {
  api: AdminRequests;
  entries: Map<string, PendingMetafield>;
  timer?: NodeJS.Timeout;
}

/**
 * The `$app:print_status` metafields of a shop's orders, written together (issue 27): `metafieldsSet` takes up to 25
 * metafields of any owners and costs one mutation's 10 points however many it sets, where each order's own write cost
 * 10. While the shop's bucket is under `roomyShare` (90 %) of its maximum, as the pacer estimates it, a write waits at
 * most `windowMs` for others of the same shop (or until 25 are waiting), then all go as one request, a background call
 * for the pacer like the rest of the status: every point saved is one more for the next burst. While the bucket is
 * (nearly) full its refill would be lost anyway, and a write goes at once (with any that were waiting). One instance
 * per process, shared by the shops' Admin API clients as the pacer is.
 *
 * The guarantees are the single write's: each caller's promise settles when its own value is written (or refused);
 * the metafield is in the app's own namespace, which only the app writes, and an upsert, so writing it beside other
 * orders' changes nothing of what it means. A later write for the same order while one waits replaces it in the batch
 * and both callers learn it was written, as if the later write had landed last: each sync re-reads the link after
 * writing, so the one that wrote an older link finds the link moved and writes again (syncOrderToShopify).
 * `metafieldsSet` is all or nothing, so when Shopify refuses some entries (an order deleted meanwhile), those callers
 * get the error and the others are sent again without them.
 */
export class StatusMetafieldBatches {
  private readonly open = new Map<string, MetafieldBatch>();
  private readonly windowMs: number;
  private readonly max: number;
  private readonly roomyShare: number;

  constructor(
    options: {
      /** How long the first write of a batch waits for others. */
      windowMs?: number;
      max?: number;
      /** A batch goes at once while the shop's bucket holds at least this share of its maximum (its refill is lost). */
      roomyShare?: number;
    } = {},
  ) {
    this.windowMs = options.windowMs ?? 1_000;
    this.max = Math.min(options.max ?? METAFIELDS_SET_MAX, METAFIELDS_SET_MAX);
    this.roomyShare = options.roomyShare ?? 0.9;
  }

  /** Whether a write for this shop would wait for others now: its bucket is short of full. */
  worthWaiting(api: AdminRequests): boolean {
    return (api.bucketShare() ?? 1) < this.roomyShare;
  }

  /** Resolves when `value` is the order's `$app:print_status` in Shopify (or a newer value given meanwhile is). */
  write(api: AdminRequests, orderGid: string, value: unknown): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let batch = this.open.get(api.shop);
      if (!batch) {
        const created: MetafieldBatch = { api, entries: new Map() };
        created.timer = setTimeout(() => void this.flush(created), this.windowMs);
        this.open.set(api.shop, created);
        batch = created;
      }
      const json = JSON.stringify(value);
      const pending = batch.entries.get(orderGid);
      if (pending) {
        pending.value = json;
        pending.waiters.push({ resolve, reject });
      } else {
        batch.entries.set(orderGid, { orderGid, value: json, waiters: [{ resolve, reject }] });
      }
      // Waiting only saves points, so it is only worth it while the shop is short of them.
      if (batch.entries.size >= this.max || !this.worthWaiting(api)) {
        clearTimeout(batch.timer);
        void this.flush(batch);
      }
    });
  }

  private async flush(batch: MetafieldBatch): Promise<void> {
    if (this.open.get(batch.api.shop) === batch) this.open.delete(batch.api.shop);
    let entries = [...batch.entries.values()];
    while (entries.length > 0) {
      let userErrors: ShopifyUserErrorDetail[];
      try {
        userErrors = await sendStatusMetafields(batch.api, entries);
      } catch (error) {
        for (const entry of entries) for (const w of entry.waiters) w.reject(error);
        return;
      }
      if (userErrors.length === 0) {
        for (const entry of entries) for (const w of entry.waiters) w.resolve();
        return;
      }
      // Refused entries, by their index in the request; an error naming none of them refuses them all.
      const refused = new Map<number, ShopifyUserErrorDetail[]>();
      let unattributed = false;
      for (const e of userErrors) {
        const index = e.field?.[0] === 'metafields' ? Number(e.field[1]) : NaN;
        if (Number.isInteger(index) && entries[index]) refused.set(index, [...(refused.get(index) ?? []), e]);
        else unattributed = true;
      }
      if (unattributed || refused.size === 0) {
        for (const entry of entries) {
          const error = new ShopifyUserError('showStatusMetafields', batch.api.shop, entry.orderGid, userErrors);
          for (const w of entry.waiters) w.reject(error);
        }
        return;
      }
      for (const [index, errors] of refused) {
        const entry = entries[index]!;
        const error = new ShopifyUserError('showStatusMetafields', batch.api.shop, entry.orderGid, errors);
        for (const w of entry.waiters) w.reject(error);
      }
      // Nothing of the request was written: the others go again without the refused ones.
      entries = entries.filter((_, index) => !refused.has(index));
    }
  }
}

const statusMetafieldsSchema = z.object({ metafieldsSet: z.object({ userErrors: z.array(userErrorSchema) }) });

async function sendStatusMetafields(api: AdminRequests, entries: PendingMetafield[]): Promise<ShopifyUserErrorDetail[]> {
  const data = await api.call(
    'showStatusMetafields',
    STATUS_METAFIELDS_SET,
    { metafields: entries.map((e) => ({ ownerId: e.orderGid, ...STATUS_METAFIELD, value: e.value })) },
    statusMetafieldsSchema,
    true,
  );
  return data.metafieldsSet.userErrors;
}
