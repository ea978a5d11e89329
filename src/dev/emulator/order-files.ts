import type { FileFetcher } from './fetcher.js';
import { isPlainObject } from './http.js';
import { shipmentsOf } from './shipments.js';
import type { StoredOrder } from './store.js';

/**
 * The files an order names (its items' components to fetch, its shipments' attachments) and their fetch at the
 * received → print ready step: what comes back is one readable problem per file that could not be had.
 */

interface FileToFetch {
  label: string;
  url: string;
  preflight: boolean;
}

/** Fetches every file of the order at once (and preflights those that ask); the problems, in the files' order. */
export async function fetchFileProblems(fetcher: FileFetcher, order: StoredOrder): Promise<string[]> {
  const files = filesOf(order);
  const results = await Promise.all(
    files.map(async (file) => {
      const fetched = await fetcher.fetch(file.url);
      if (!fetched.ok) return `${file.label}: could not fetch ${file.url}: ${fetched.problem}`;
      const preflight = file.preflight ? fetcher.preflight(file.url, fetched) : undefined;
      return preflight ? `${file.label}: ${preflight}` : undefined;
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

function filesOf(order: StoredOrder): FileToFetch[] {
  const files: FileToFetch[] = [];
  const { orderData } = order.record;
  const items = Array.isArray(orderData.items) ? orderData.items : [];
  items.forEach((item, i) => {
    if (!isPlainObject(item) || !Array.isArray(item.components)) return;
    item.components.forEach((c, j) => {
      if (!isPlainObject(c) || c.fetch !== true || typeof c.path !== 'string') return;
      files.push({ label: `orderData.items[${i}].components[${j}] (${String(c.code)})`, url: c.path, preflight: c.preflight === true });
    });
  });
  shipmentsOf(order).forEach((shipment, k) => {
    const attachments = Array.isArray(shipment.attachments) ? shipment.attachments : [];
    attachments.forEach((a, m) => {
      if (isPlainObject(a) && typeof a.path === 'string') {
        files.push({ label: `orderData.shipments[${k}].attachments[${m}]`, url: a.path, preflight: false });
      }
    });
  });
  return files;
}
