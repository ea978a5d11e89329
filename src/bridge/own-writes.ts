/**
 * The app's own Shopify writes (its `print-bridge:` tags, its `print-bridge:` note lines, its metafield) come back as
 * `orders/updated` webhooks. Such an echo tells nothing new: handling it would store the same body again, bump the
 * order's version and fill its history with "orders/updated received". It is recognised cheaply by comparing the new
 * body with the stored one: equal but for `updated_at`, the app's own tags and the app's own note lines.
 */

const OWN_PREFIX = 'print-bridge:';

export function isOwnWriteEcho(stored: unknown, incoming: unknown): boolean {
  if (!isRecord(stored) || !isRecord(incoming)) return false;
  // The same version delivered again is a repeat, not an echo (the pipeline calls it stale).
  if (canonical(stored.updated_at) === canonical(incoming.updated_at)) return false;
  if (!sameWithout(stored, incoming, ['updated_at', 'tags', 'note'])) return false;
  if (!sameList(foreignTags(stored.tags), foreignTags(incoming.tags))) return false;
  return sameList(foreignNoteLines(stored.note), foreignNoteLines(incoming.note));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameWithout(a: Record<string, unknown>, b: Record<string, unknown>, skip: readonly string[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !skip.includes(k)));
  for (const key of keys) if (canonical(a[key]) !== canonical(b[key])) return false;
  return true;
}

/** JSON with object keys sorted, so that two deliveries serialised in another key order still compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** REST sends tags as one comma-separated string; a merchant's tags, without the app's own. */
function foreignTags(tags: unknown): string[] {
  const list = typeof tags === 'string' ? tags.split(',') : Array.isArray(tags) ? tags.map(String) : [];
  return list.map((t) => t.trim()).filter((t) => t && !t.startsWith(OWN_PREFIX)).sort();
}

function foreignNoteLines(note: unknown): string[] {
  return (typeof note === 'string' ? note.split('\n') : []).map((l) => l.trimEnd()).filter((l) => l.trim() && !l.trim().startsWith(OWN_PREFIX));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
