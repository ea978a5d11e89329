import type { LoadedMapping } from './load.js';
import type { MappingFile } from './schema.js';
import { renderTemplate } from './templates.js';

/**
 * The `tracking` table of a mapping: the print service's carrier code → the tracking company and URL Shopify shows
 * the customer. Used when a Shipment Shipped event becomes a Shopify fulfillment.
 */
export interface TrackingInfo {
  company: string;
  url?: string;
}

/**
 * Looks the carrier code up (exactly, then ignoring case). Unknown codes give the code itself as the company, so a
 * shipment is never left without tracking just because the table is incomplete; a URL template that cannot render
 * gives no URL rather than a wrong one.
 */
export function trackingFor(mapping: MappingFile | LoadedMapping, carrierCode: string, trackingNumber: string): TrackingInfo {
  const config = 'config' in mapping ? mapping.config : mapping;
  const table = config.tracking ?? {};
  const entry =
    table[carrierCode] ?? Object.entries(table).find(([k]) => k.toLowerCase() === carrierCode.toLowerCase())?.[1];
  if (!entry) return { company: carrierCode };
  if (!entry.url) return { company: entry.company };
  const url = renderTemplate(entry.url, { trackingNumber: encodeURIComponent(trackingNumber), carrierCode });
  // Checked again as rendered (a file loaded before the rule, or a host written as a template): only a web address.
  const rendered = url.ok ? url.value.trim() : '';
  return rendered && /^https?:\/\/[^\s/]/i.test(rendered) ? { company: entry.company, url: rendered } : { company: entry.company };
}
