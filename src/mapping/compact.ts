/** Drops undefined, null and empty-string fields, so optional fields the mapping leaves empty are not sent. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k in o) {
    const v = o[k];
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  }
  return out as T;
}

/** The object, or undefined when it has no keys. */
export function nonEmpty<T extends object>(o: T): T | undefined {
  return Object.keys(o).length > 0 ? o : undefined;
}
