import { parseJsonLossless } from '../shopify/json.js';
import { mappingProblem } from './errors.js';
import { loadMappingText, type LoadedMapping } from './load.js';
import { mapOrder, type MapOptions, type MapResult } from './map-order.js';
import type { MappingFile } from './schema.js';
import { unwrapOrder } from './shopify-order.js';
import { orderRenderBudget } from './templates.js';
import { trackingFor, type TrackingOutcome } from './tracking.js';

/**
 * What a render thread (render-worker.ts) does with a store's mapping: map one order, or render the tracking URL of a
 * shipment from the mapping's `tracking` table. Every store template runs here, never on the process's own thread.
 * Everything in a task is plain data, so it crosses threads.
 */

interface TaskOf<K extends string> {
  kind: K;
  id: number;
  shop: string;
  /** The mapping's text and its key (file name and hash): loaded once per key in this thread. */
  mapping: { file: string; key: string; source: string };
}

export interface MapTask extends TaskOf<'map'> {
  /** The order: a webhook body's text (parsed here, ids above 2^53 exact) or the parsed body. */
  body: unknown;
  options: MapOptions;
}

export interface TrackingTask extends TaskOf<'tracking'> {
  carrierCode: string;
  trackingNumber: string;
}

export type RenderTask = MapTask | TrackingTask;

const LOADED_KEPT = 64;
const loaded = new Map<string, MappingFile>();

function configOf(mapping: RenderTask['mapping']): MappingFile | string {
  const known = loaded.get(mapping.key);
  if (known) return known;
  const result = loadMappingText(mapping.source, mapping.file);
  if (!result.ok) return result.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`).join('; ');
  if (loaded.size >= LOADED_KEPT) loaded.delete(loaded.keys().next().value as string);
  loaded.set(mapping.key, result.mapping.config);
  return result.mapping.config;
}

/** Exact line item id → its gid, from the body (gids are exact even when numeric ids were rounded). */
function lineGids(body: unknown): [string, string][] {
  const out: [string, string][] = [];
  const lines = (body as { line_items?: { id?: unknown; admin_graphql_api_id?: unknown }[] } | null)?.line_items;
  if (!Array.isArray(lines)) return out;
  for (const line of lines) {
    const gid = typeof line.admin_graphql_api_id === 'string' ? line.admin_graphql_api_id : undefined;
    const id = gid?.split('/').pop() ?? (line.id !== undefined ? String(line.id) : undefined);
    if (id && gid) out.push([id, gid]);
  }
  return out;
}

export function runTask(task: RenderTask): RenderOutcomeData | TrackingOutcome {
  const config = configOf(task.mapping);
  if (task.kind === 'tracking') {
    // Checked when it was loaded in the main thread: only a bug gets here.
    if (typeof config === 'string') return { company: task.carrierCode, problem: `the mapping did not load in the render thread: ${config}` };
    return trackingFor(config, task.carrierCode, task.trackingNumber, orderRenderBudget());
  }
  if (typeof config === 'string') {
    return { ok: false as const, problems: [mappingProblem({ kind: 'template', field: '', message: `the mapping did not load in the render thread: ${config}` })], lineGids: [] };
  }
  const parsed = typeof task.body === 'string' ? parseJsonLossless(task.body) : task.body;
  const body = unwrapOrder(parsed);
  return { ...mapOrder(body, config, task.shop, task.options), lineGids: lineGids(body) };
}


/** A mapped order and the exact gid of each of its Shopify line items, as it crosses back from a thread. */
export type RenderOutcomeData = MapResult & { lineGids: [string, string][] };

/** A mapped order and the exact gid of each of its Shopify line items (by exact decimal id). */
export type RenderOutcome = MapResult & { lineGids: Map<string, string> };

export interface RenderRequest {
  shop: string;
  mapping: Pick<LoadedMapping, 'file' | 'key' | 'source'>;
  /** A webhook body's text (parsed where it renders, ids above 2^53 exact), or the parsed body. */
  body: unknown;
  options?: MapOptions;
}

export interface TrackingRequest {
  shop: string;
  mapping: Pick<LoadedMapping, 'file' | 'key' | 'source' | 'config'>;
  carrierCode: string;
  trackingNumber: string;
}

/** Where the app maps orders: the render pool (render-pool.ts); tests may pass another. */
export interface MappingRenderer {
  map(request: RenderRequest): Promise<RenderOutcome>;
}

/** Where the app renders a shipment's tracking URL from a store's mapping: the render pool, within the budget. */
export interface TrackingRenderer {
  tracking(request: TrackingRequest): Promise<TrackingOutcome>;
}
