import { parentPort } from 'node:worker_threads';
import { parseJsonLossless } from '../shopify/json.js';
import { mappingProblem } from './errors.js';
import { loadMappingText } from './load.js';
import { mapOrder, type MapOptions } from './map-order.js';
import type { MappingFile } from './schema.js';
import { unwrapOrder } from './shopify-order.js';

/**
 * A render thread of the mapping render pool (render-pool.ts): maps one order at a time with a store's mapping. The
 * thread can be stopped hard by the pool at the order's budget, so a merchant's template never holds the process's
 * event loop (webhook intake, other stores' orders, the liveness check).
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

export function runTask(task: RenderTask) {
  const config = configOf(task.mapping);
  if (typeof config === 'string') {
    // Checked when it was loaded in the main thread: only a bug gets here.
    return { ok: false as const, problems: [mappingProblem({ kind: 'template', field: '', message: `the mapping did not load in the render thread: ${config}` })] };
  }
  const parsed = typeof task.body === 'string' ? parseJsonLossless(task.body) : task.body;
  const body = unwrapOrder(parsed);
  return { ...mapOrder(body, config, task.shop, task.options), lineGids: lineGids(body) };
}

parentPort?.on('message', (task: RenderTask) => {
  try {
    parentPort!.postMessage({ id: task.id, result: runTask(task) });
  } catch (error) {
    parentPort!.postMessage({ id: task.id, error: (error as Error).message ?? String(error) });
  }
});
// Loaded: the pool starts counting the first order's budget without the start-up allowance.
parentPort?.postMessage({ ready: true });
