import { z } from 'zod';
import { ORDER_STATUSES } from '../orders/status.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import { isCalendarDay, isOrderCursor } from '../storage/order-lists.js';

/**
 * The order list's query, read at the route. Dates and the page cursor reach PostgreSQL as times: what JavaScript's
 * `Date.parse` takes and PostgreSQL refuses (`0000-01-01`, `2026-02-30`, a cursor with the time `1` or the year
 * 275760) once answered 500. Each is now checked to the letter and refused with 400 and the parameter's name; the
 * status, store and search fields still fall back to "all" when they are not understood (a stale link keeps working).
 */

/** The start of the day after `day` (UTC), written as PostgreSQL reads it (the day after 9999-12-31 is in year 10000). */
export function dayAfter(day: string): string {
  const date = new Date(0);
  date.setUTCFullYear(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)) + 1);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T00:00:00Z`;
}

/** The search form sends its empty fields (`from=&to=`): an empty one is no filter. */
const blankIsAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const day = (name: string) => blankIsAbsent(z.string().refine(isCalendarDay, { error: `${name}: must be a real date written YYYY-MM-DD, from 0001-01-01 to 9999-12-31` }));

export const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional().catch(undefined),
  shop: z.string().trim().toLowerCase().refine(isShopDomain).optional().catch(undefined),
  from: day('from'),
  to: day('to'),
  q: z.string().trim().max(200).optional().catch(undefined).transform((v) => v || undefined),
  cursor: blankIsAbsent(z.string().refine(isOrderCursor, { error: 'cursor: not a page link of this list; open the list again from its first page' })),
});

export type OrdersQuery = z.infer<typeof ordersQuery>;

/** The query, or the reasons it is refused (each names its parameter). */
export function readOrdersQuery(query: unknown): { ok: true; query: OrdersQuery } | { ok: false; reason: string } {
  const parsed = ordersQuery.safeParse(query);
  if (parsed.success) return { ok: true, query: parsed.data };
  // A parameter given twice arrives as a list: it is no date and no cursor either.
  const reasons = parsed.error.issues.map((issue) => (issue.code === 'invalid_type' ? `${String(issue.path[0])}: give it once, as text` : issue.message));
  return { ok: false, reason: `The order list's filters were not understood: ${[...new Set(reasons)].join('; ')}.` };
}
