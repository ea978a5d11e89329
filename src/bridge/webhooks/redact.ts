import type { OrderLink } from '../../orders/model.js';
import { mapRecordedTexts, type RecordedTextField } from '../../orders/recorded-text.js';
import { parseJsonLossless } from '../../shopify/json.js';
import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * Redaction reaches every copy the app keeps (docs/privacy.md): order links, bodies and history, webhook bodies not
 * handled yet, data-request reports, postbacks kept as unreadable that name the orders, and the queues' kept job
 * records and event streams.
 */
export async function redact(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  return job.topic === 'shop/redact' ? redactShop(deps, job) : redactCustomer(deps, job);
}

/**
 * What stands where a text about a redacted customer's order was: problems and history entries keep their kind, event,
 * status and time, so the order's course stays readable; their words may have quoted what the customer typed (an
 * artwork URL with their name in it), and no part of them is kept, not even a hash (a name is easy to guess and test).
 */
export const REDACTED_TEXT = '[removed: customer data redacted]';

/** shop/redact: nothing of the store is kept, not even its domain. */
async function redactShop(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const orderIds = await deps.store.orderIdsOfShop(job.shop);
  const references: string[] = [];
  for (const orderId of orderIds) {
    references.push(...printReferences(await deps.store.get(job.shop, orderId)));
    await deps.store.deleteOrder(job.shop, orderId);
  }
  // This webhook's own body is among the shop's bodies: handled once this returns, it goes with them.
  await Promise.all([
    deps.store.webhookBodies().dropShop(job.shop),
    deps.store.redactDataRequests(job.shop),
    deps.store.unreadablePostbacks().removeMentioning(references),
    // The store's own print set-up (account, postback tokens, mapping versions) goes with the rest.
    deps.shopSettings?.redactShop(job.shop),
    // Which Flow triggers the store used names it too.
    deps.flowTriggers?.forgetShop(job.shop),
    deps.store.removeShop(job.shop),
    // Normally gone with app/uninstalled two days before; a session still kept names the store too.
    deps.sessions.deleteShopSessions(job.shop),
  ]);
  // Last, once nothing of the store is left to queue more: its jobs, those still to run included, and their events.
  // This job's own record is not kept once it completes (addWebhookJob).
  await deps.scheduler.eraseJobRecords({ shop: job.shop, everyRecord: true, printReferences: references });
  return { kind: 'redacted', orders: orderIds.length };
}

/**
 * customers/redact: the order bodies hold the customer's name, address and contact, and every text the app wrote about
 * the orders may quote what the customer typed. Links and history stay, with those texts replaced.
 */
async function redactCustomer(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = parseJsonLossless(job.body) as { orders_to_redact?: (string | number)[] };
  const numericIds = (body.orders_to_redact ?? []).map((id) => String(id));
  const orderIds = numericIds.map((id) => `gid://shopify/Order/${id}`);
  const references: string[] = [];
  const mentions = { shop: job.shop, ids: [...orderIds], texts: [] as string[], webhookIds: [] as string[] };
  for (const orderId of orderIds) {
    const link = await deps.store.get(job.shop, orderId);
    references.push(...printReferences(link));
    // Webhook jobs of the order name it only in their result, or not at all when they failed: found by webhook id.
    const history = await deps.store.history(job.shop, orderId);
    mentions.webhookIds.push(...history.flatMap((e) => /^webhook (\S+)$/.exec(e.detail ?? '')?.[1] ?? []));
    mentions.texts.push(...(link ? customerTexts(link) : []));
    await deps.store.deleteOrderBody(job.shop, orderId);
    if (link) await deps.store.update(job.shop, orderId, (current) => redactedLink(current), link);
    await deps.store.redactHistory(job.shop, orderId, REDACTED_TEXT);
    await deps.store.note(job.shop, orderId, { event: 'customer data redacted', source: 'shopify', detail: `customers/redact webhook ${job.webhookId}` });
    // The app's own hold in Shopify quotes the order's problem in its notes: a sync writes them again from the
    // redacted link, so the app's copy there goes too.
    if (link?.appHold) await deps.scheduler.syncShopify(job.shop, orderId);
  }
  await Promise.all([
    deps.store.webhookBodies().dropOrders(job.shop, numericIds),
    deps.store.redactDataRequests(job.shop, orderIds),
    deps.store.unreadablePostbacks().removeMentioning(references),
    deps.scheduler.eraseJobRecords({ ...mentions, printReferences: references }),
  ]);
  return { kind: 'redacted', orders: orderIds.length };
}

/** The order's ids at the print service, by which postbacks and print-event jobs name it. */
function printReferences(link: OrderLink | undefined): string[] {
  return [link?.sourceOrderId, link?.printOrderId].filter((r): r is string => Boolean(r));
}

/**
 * The recorded texts that may quote the customer: problem messages (a mapping problem quotes the value it refused), the
 * test run's problems, why it is not printed, the rejection sent to Shopify (it quotes the problems), a hold wait (a
 * hold's notes may name the buyer), the app's own hold notes in Shopify (they quote a problem). A problem's subject and Shopify's refusal of an answer are the app's and Shopify's
 * own words.
 */
const CUSTOMER_FIELDS: ReadonlySet<RecordedTextField> = new Set(['problem', 'not-printed-reason', 'test-run-problem', 'rejection', 'hold-wait', 'app-hold']);

/** The texts on the link that may quote the customer: what job results and errors may have quoted too. */
function customerTexts(link: OrderLink): string[] {
  const texts: string[] = [];
  mapRecordedTexts(link, (text, field) => {
    if (CUSTOMER_FIELDS.has(field) && text && text !== REDACTED_TEXT) texts.push(text);
    return text;
  });
  return texts;
}

/** Undefined when there is nothing (left) to replace: a repeated redaction writes nothing. */
function redactedLink(current: OrderLink | undefined): { link: OrderLink } | undefined {
  if (!current) return undefined;
  const link = withoutCustomerTexts(current);
  return JSON.stringify(link) === JSON.stringify(current) ? undefined : { link };
}

/** The link with every text that may quote the customer replaced, and the test run's order (the address) dropped. */
export function withoutCustomerTexts(link: OrderLink): OrderLink {
  const replaced = mapRecordedTexts(link, (text, field) => (CUSTOMER_FIELDS.has(field) ? REDACTED_TEXT : text));
  return { ...replaced, testRun: replaced.testRun ? { ...replaced.testRun, order: undefined } : undefined };
}
