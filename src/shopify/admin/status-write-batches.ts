import { z } from 'zod';
import type { StatusChange } from '../../bridge/shopify-data.js';
import { ShopifyUserError, type ShopifyUserErrorDetail } from './errors.js';
import { sendStatusChange, STATUS_METAFIELD } from './order-status.js';
import { userErrorSchema, type AdminRequests } from './request.js';
import { TurnBatches, type Waiter } from './turn-batches.js';

interface Entry {
  orderGid: string;
  change: StatusChange;
  waiters: Waiter[];
}

interface OpenWrites {
  /** The client of the batch's first write; the others of its shop are sent by it. */
  api: AdminRequests;
  entries: Map<string, Entry>;
}

/** The most orders one status request writes (two tag mutations each and one `metafieldsSet`: 210 points at most). */
export const STATUS_WRITES_MAX = 10;

const payloadSchema = z.object({ userErrors: z.array(userErrorSchema) }).nullable().optional();
const statusesSchema = z.record(z.string(), payloadSchema);

/**
 * The status writes of several orders of one shop in one request (issue 27): the syncs that write within the same turn
 * of the event loop send one document holding each order's `tagsAdd` and `tagsRemove` (aliased by its place) and one
 * `metafieldsSet` of every order's status (TurnBatches): a lone write goes at once with the one-order document
 * (`sendStatusChange`). Shopify runs the mutations of a document one after the other, each as if sent alone, and
 * charges each 10 points, so the tags cost what they cost alone and the metafields one mutation instead of one an
 * order; the process spends one request's work for many orders.
 *
 * The guarantees are the single write's: each write resolves when its own order shows the change, and is refused with
 * the errors Shopify gives about its own order. The tags of an order are its own mutations; `metafieldsSet` is all or
 * nothing, so when Shopify refuses an order's entry, that order's write is refused and the other orders' metafields
 * are written again without it (their tags are written already, and tags are a set). Up to 10 orders a request
 * (STATUS_WRITES_MAX): a request asks the shop's bucket for its whole requested cost at once, and 21 mutations (210
 * points) is what a standard plan's bucket refills in about two seconds, so a batch never waits long behind the
 * store's fulfillments where the orders' own writes would have gone one by one. A second write of an order whose
 * write is waiting in the batch starts the next batch, so one order's writes are never merged.
 */
export class StatusWriteBatches {
  private readonly batches = new TurnBatches<OpenWrites>((batch) => this.flush(batch));

  constructor(private readonly max = STATUS_WRITES_MAX) {}

  write(api: AdminRequests, orderGid: string, change: StatusChange): Promise<void> {
    if (change.addTags.length === 0 && change.removeTags.length === 0 && change.status === undefined) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const make = (): OpenWrites => ({ api, entries: new Map() });
      let batch = this.batches.current(api.shop, make);
      if (batch.entries.has(orderGid)) {
        this.batches.go(api.shop, batch);
        batch = this.batches.current(api.shop, make);
      }
      batch.entries.set(orderGid, { orderGid, change, waiters: [{ resolve, reject }] });
      if (batch.entries.size >= this.max) this.batches.go(api.shop, batch);
    });
  }

  private async flush(batch: OpenWrites): Promise<void> {
    const entries = [...batch.entries.values()];
    if (entries.length === 1) {
      const [only] = entries;
      await settle(only!, sendStatusChange(batch.api, only!.orderGid, only!.change));
      return;
    }
    let answer: Record<string, z.infer<typeof payloadSchema>>;
    let request: ReturnType<typeof statusesRequest>;
    try {
      request = statusesRequest(entries);
      // Shopify charges 10 points a mutation: the request's cost is known before it goes.
      const pacing = { key: `showStatuses×${request.mutations}`, estimate: 10 * request.mutations };
      answer = await batch.api.call('showStatuses', request.document, request.variables, statusesSchema, true, { pacing });
    } catch (error) {
      for (const entry of entries) for (const w of entry.waiters) w.reject(error);
      return;
    }
    const refused = new Map<Entry, ShopifyUserErrorDetail[]>();
    const refuse = (entry: Entry, errors: ShopifyUserErrorDetail[]) => {
      if (errors.length > 0) refused.set(entry, [...(refused.get(entry) ?? []), ...errors]);
    };
    entries.forEach((entry, i) => {
      refuse(entry, answer[`added${i}`]?.userErrors ?? []);
      refuse(entry, answer[`removed${i}`]?.userErrors ?? []);
    });
    // metafieldsSet names a refused entry by its index in the list; one naming none refuses every order's status.
    const statusErrors = answer.status?.userErrors ?? [];
    let unattributed: ShopifyUserErrorDetail[] = [];
    for (const e of statusErrors) {
      const index = e.field?.[0] === 'metafields' ? Number(e.field[1]) : NaN;
      const entry = Number.isInteger(index) ? request.metafieldOwners[index] : undefined;
      if (entry) refuse(entry, [e]);
      else unattributed = [...unattributed, e];
    }
    if (unattributed.length > 0) for (const entry of request.metafieldOwners) refuse(entry, unattributed);
    await Promise.all(
      entries.map((entry) => {
        const errors = refused.get(entry);
        if (errors) return settle(entry, Promise.reject(new ShopifyUserError('showStatus', batch.api.shop, entry.orderGid, errors)));
        // Nothing of the metafields was written when any was refused: this order's goes again, alone.
        if (statusErrors.length > 0 && entry.change.status !== undefined) {
          return settle(entry, sendStatusChange(batch.api, entry.orderGid, { addTags: [], removeTags: [], status: entry.change.status }));
        }
        return settle(entry, Promise.resolve());
      }),
    );
  }
}

async function settle(entry: Entry, written: Promise<void>): Promise<void> {
  try {
    await written;
    for (const w of entry.waiters) w.resolve();
  } catch (error) {
    for (const w of entry.waiters) w.reject(error);
  }
}

/** One document of every order's mutations, each order's aliased by its place in the batch. */
function statusesRequest(entries: readonly Entry[]): { document: string; variables: Record<string, unknown>; metafieldOwners: Entry[]; mutations: number } {
  const declared: string[] = [];
  const fields: string[] = [];
  const variables: Record<string, unknown> = {};
  const errors = 'userErrors { field message }';
  const metafields: Record<string, unknown>[] = [];
  const metafieldOwners: Entry[] = [];
  entries.forEach((entry, i) => {
    const { addTags, removeTags, status } = entry.change;
    if (addTags.length > 0 || removeTags.length > 0) {
      declared.push(`$id${i}: ID!`);
      variables[`id${i}`] = entry.orderGid;
    }
    if (addTags.length > 0) {
      declared.push(`$add${i}: [String!]!`);
      fields.push(`added${i}: tagsAdd(id: $id${i}, tags: $add${i}) { ${errors} }`);
      variables[`add${i}`] = addTags;
    }
    if (removeTags.length > 0) {
      declared.push(`$remove${i}: [String!]!`);
      fields.push(`removed${i}: tagsRemove(id: $id${i}, tags: $remove${i}) { ${errors} }`);
      variables[`remove${i}`] = removeTags;
    }
    if (status !== undefined) {
      metafields.push({ ownerId: entry.orderGid, ...STATUS_METAFIELD, value: JSON.stringify(status) });
      metafieldOwners.push(entry);
    }
  });
  if (metafields.length > 0) {
    declared.push('$metafields: [MetafieldsSetInput!]!');
    // Last, so every order's tags are written before the statuses that name them.
    fields.push('status: metafieldsSet(metafields: $metafields) { userErrors { field message code } }');
    variables.metafields = metafields;
  }
  return { document: `mutation PrintBridgeShowStatuses(${declared.join(', ')}) { ${fields.join(' ')} }`, variables, metafieldOwners, mutations: fields.length };
}
