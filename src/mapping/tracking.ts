import type { LoadedMapping } from './load.js';
import type { MappingFile } from './schema.js';
import { renderTemplate, type RenderBudget, type Tmpl } from './templates.js';

/**
 * The `tracking` table of a mapping: the print service's carrier code → the tracking company and URL Shopify shows
 * the customer. Used when a Shipment Shipped event becomes a Shopify fulfillment.
 *
 * The URL is a store's template, so it is code: it is rendered in a render thread of the pool within the budget
 * (render-pool.ts `tracking`), once, when the shipment ships, and kept with the shipment; the pages show what was kept.
 * Only the company, a plain lookup, is read on the process's own thread.
 */
export interface TrackingInfo {
  company: string;
  url?: string;
}

/** The tracking of a shipment, with why its URL is missing when the template could not give one. */
export interface TrackingOutcome extends TrackingInfo {
  problem?: string;
}

interface TrackingEntry {
  company: string;
  url?: Tmpl;
}

/** The table's entry for a carrier code (exactly, then ignoring case). Renders nothing. */
export function trackingEntry(mapping: MappingFile | LoadedMapping, carrierCode: string): TrackingEntry | undefined {
  const config = 'config' in mapping ? mapping.config : mapping;
  const table = config.tracking ?? {};
  return table[carrierCode] ?? Object.entries(table).find(([k]) => k.toLowerCase() === carrierCode.toLowerCase())?.[1];
}

/** The company the table names for a carrier code; the code itself for one it does not know. Renders nothing. */
export function carrierCompany(mapping: MappingFile | LoadedMapping, carrierCode: string): string {
  return trackingEntry(mapping, carrierCode)?.company ?? carrierCode;
}

/**
 * Looks the carrier code up and renders its URL. Unknown codes give the code itself as the company, so a shipment is
 * never left without tracking just because the table is incomplete; a URL template that cannot render (or not within
 * `budget`) gives no URL rather than a wrong one, and says why.
 */
export function trackingFor(mapping: MappingFile | LoadedMapping, carrierCode: string, trackingNumber: string, budget?: RenderBudget): TrackingOutcome {
  const entry = trackingEntry(mapping, carrierCode);
  if (!entry) return { company: carrierCode };
  if (!entry.url) return { company: entry.company };
  const url = renderTemplate(entry.url, { trackingNumber: encodeURIComponent(trackingNumber), carrierCode }, budget);
  if (!url.ok) return { company: entry.company, problem: trackingProblem(carrierCode, url.message) };
  // Checked again as rendered (a file loaded before the rule, or a host written as a template): only a web address.
  const rendered = url.value.trim();
  return rendered && isWebAddress(rendered) ? { company: entry.company, url: rendered } : { company: entry.company };
}

/** A URL a browser only follows, never runs: `http(s)://` and a host. */
function isWebAddress(url: string): boolean {
  return /^https?:\/\/[^\s/]/i.test(url);
}

/** Why a shipment has no tracking URL, as the merchant reads it on the order. */
export function trackingProblem(carrierCode: string, why: string): string {
  return `the tracking URL of the mapping's tracking table for "${carrierCode}" could not be rendered (${why}); the shipment was fulfilled without a tracking link: simplify the URL template`;
}
