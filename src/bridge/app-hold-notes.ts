import type { OrderLink, Problem } from '../orders/model.js';
import { WAIT_KINDS } from './waiting-problems.js';

/**
 * What print-bridge's own fulfillment hold says in Shopify (app-holds.ts), derived from the order's link alone: the
 * hold stands while print-bridge itself keeps an order it will print from the printer, and says why in the
 * merchant's words. Someone else's wait (Shopify's holds, a store the app cannot reach) is not print-bridge's to show.
 */

/**
 * Shopify documents no limit on `reasonNotes` (only the handle's 64 characters); the notes are kept within 255
 * characters, a bound text fields commonly have, cut on a whole character with an ellipsis.
 */
export const REASON_NOTES_MAX = 255;

const PREFIX = 'Print Bridge: ';

/** Which waits show, in the order one is chosen when an order has several; the others say nothing in Shopify. */
const WAIT_NOTES: readonly [string, string][] = [
  [WAIT_KINDS.risk, "Shopify's risk analysis flagged this order; Send now in the app prints it anyway"],
  [WAIT_KINDS.testMode, 'test mode — goes to the printer when the store goes live'],
  [WAIT_KINDS.noMapping, 'no mapping serves this store yet; the order goes out once one does'],
  [WAIT_KINDS.noPrintAccount, 'no print account is connected; the order goes out once one is'],
];

export interface StoreTime {
  /** The store's offset from UTC in minutes (Shopify's `created_at` carries it: `-05:00` is -300). */
  offsetMinutes: number;
}

/** The store's UTC offset from a time Shopify wrote in the store's zone (an order's `created_at`); undefined without one. */
export function storeTimeOf(shopifyTime: string | null | undefined): StoreTime | undefined {
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(shopifyTime ?? '');
  if (!match || Number.isNaN(Date.parse(shopifyTime!))) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return { offsetMinutes: match[1] === '-' ? -minutes : minutes };
}

/**
 * The notes of the app's hold for the order now, or undefined when print-bridge does not keep it back (nothing to
 * hold, or the hold is to go): pending in the mapping's hold window (the edit window), held with problems, or waiting
 * for one of print-bridge's own reasons.
 */
export function appHoldNotes(link: OrderLink, now: Date, storeTime?: StoreTime): string | undefined {
  if (link.fulfillmentRequest) return undefined;
  switch (link.status) {
    case 'pending': {
      const ends = link.submitAfter ? Date.parse(link.submitAfter) : Number.NaN;
      if (Number.isNaN(ends) || ends <= now.getTime() || link.sendAnyway) return undefined;
      return fit(`edit window until ${clock(ends, now, storeTime)}`);
    }
    case 'held': {
      const [first, ...more] = link.problems;
      if (!first) return undefined;
      const rest = more.length > 0 ? ` (+${more.length} more)` : '';
      return fit(`${describeProblem(first)}`, rest);
    }
    case 'waiting': {
      const found = WAIT_NOTES.find(([kind]) => link.problems.some((p) => p.kind === kind));
      return found ? fit(found[1]) : undefined;
    }
    default:
      return undefined;
  }
}

/** A problem in the merchant's words: a line item named by its place in the order and its SKU. */
function describeProblem(problem: Problem): string {
  const line = /^line item \S+ \(SKU ([^,]*), .*\)(?: order\.line_items\[(\d+)\])?/.exec(problem.subject ?? '');
  if (line) {
    const place = line[2] !== undefined ? `line ${Number(line[2]) + 1}` : 'a line';
    return `${place} (SKU ${line[1]}): ${problem.message}`;
  }
  return problem.subject ? `${problem.subject}: ${problem.message}` : problem.message;
}

/** "14:30 (store time)", with the date when it is not today in the store; UTC when the store's offset is not known. */
function clock(at: number, now: Date, storeTime: StoreTime | undefined): string {
  const offset = (storeTime?.offsetMinutes ?? 0) * 60_000;
  const local = new Date(at + offset).toISOString();
  const today = new Date(now.getTime() + offset).toISOString().slice(0, 10);
  const date = local.slice(0, 10) === today ? '' : `${local.slice(0, 10)} `;
  return `${date}${local.slice(11, 16)} (${storeTime ? 'store time' : 'UTC'})`;
}

/** The prefix, the text cut to fit with an ellipsis (whole characters, never half a surrogate pair), and the tail. */
function fit(text: string, tail = ''): string {
  const room = REASON_NOTES_MAX - PREFIX.length - [...tail].length;
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  const body = chars.length > room ? `${chars.slice(0, room - 1).join('').trimEnd()}…` : chars.join('');
  return `${PREFIX}${body}${tail}`;
}
