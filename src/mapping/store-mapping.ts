import type { FileProblem } from './errors.js';
import { loadMappingText, type LoadResult } from './load.js';

/**
 * A store's own mapping (saved in the app or with `mappings push`): the same format and checks as a mapping file, and
 * it serves its store only. Its `shops` may name that store or "*" (a file copied from the server works as it is);
 * naming another store is a problem at that entry, so a merchant cannot think they are setting up someone else's.
 */
export function loadStoreMapping(yaml: string, shop: string, version?: number): LoadResult {
  const name = storeMappingName(shop, version);
  const loaded = loadMappingText(yaml, name);
  if (!loaded.ok) return loaded;
  const problems: FileProblem[] = [];
  for (const entry of loaded.mapping.shops) {
    if (entry === shop || entry === '*') continue;
    const at = loaded.mapping.shopPositions.get(entry) ?? { line: 1, col: 1 };
    problems.push({ file: name, line: at.line, col: at.col, message: `this mapping is ${shop}'s own and serves that store only: name ${shop} (or "*") in shops, not ${entry}` });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, mapping: { ...loaded.mapping, shops: [shop] } };
}

/** How a store's version is named in problems and pages (`FILE:LINE:COL` as for files). */
export function storeMappingName(shop: string, version?: number): string {
  return version === undefined ? `${shop}.yaml` : `${shop}@v${version}.yaml`;
}
