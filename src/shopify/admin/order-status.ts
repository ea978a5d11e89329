import { z } from 'zod';
import type { StatusChange, StatusShown } from '../../bridge/shopify-data.js';
import { ShopifyUserError } from './errors.js';
import { parseJsonValue, userErrorSchema, type AdminRequests } from './request.js';

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

/**
 * Tags added and removed and the status metafield written in one request: Shopify runs the mutations of a document
 * one after the other and charges each (10 points), so only the ones `change` needs are sent. Idempotent: tags are a
 * set and the metafield an upsert.
 */
export async function showStatus(api: AdminRequests, orderGid: string, change: StatusChange): Promise<void> {
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
