import { parseJsonLossless } from '../shopify/json.js';
import { mappingProblem } from './errors.js';
import { loadMappingText, type LoadedMapping } from './load.js';
import { mapOrder, type MapOptions, type MapResult } from './map-order.js';
import type { MappingFile } from './schema.js';
import { unwrapOrder } from './shopify-order.js';

/**
 * Mapping one order with a store's mapping, as a message a render thread takes (render-worker.ts). Everything in it
 * is plain data, so it crosses threads.
 */

export interface RenderTask {
  id: number;
  shop: string;
  /** The mapping's text and its key (file name and hash): loaded once per key in this thread. */
  mapping: { file: string; key: string; source: string };
  /** The order: a webhook body's text (parsed here, ids above 2^53 exact) or the parsed body. */
  body: unknown;
  options: MapOptions;
}

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

export function runTask(task: RenderTask): RenderOutcomeData {
  const config = configOf(task.mapping);
  if (typeof config === 'string') {
    // Checked when it was loaded in the main thread: only a bug gets here.
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

/** Where the app maps orders: the render pool (render-pool.ts); tests may pass another. */
export interface MappingRenderer {
  map(request: RenderRequest): Promise<RenderOutcome>;
}
