/**
 * JSON.parse that keeps integers beyond 2^53 exact by reading them as strings. Shopify's REST webhook bodies carry
 * ids such as 5512345678901234567 that a plain JSON.parse silently rounds; gids (`admin_graphql_api_id`) are exact
 * but not every id has one (e.g. `orders_to_redact`).
 */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(quoteBigIntegers(text)) as unknown;
}

const SAFE_DIGITS = 15; // every integer of up to 15 digits is exactly representable

/** Wraps integer literals too large for a double in quotes, outside string literals only. */
export function quoteBigIntegers(text: string): string {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    const isMinus = c === 45;
    if ((c >= 48 && c <= 57) || isMinus) {
      let j = isMinus ? i + 1 : i;
      while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      const digits = j - (isMinus ? i + 1 : i);
      const next = text.charCodeAt(j);
      const isInteger = next !== 46 /* . */ && next !== 101 /* e */ && next !== 69; /* E */
      if (isInteger && digits > SAFE_DIGITS && !Number.isSafeInteger(Number(text.slice(i, j)))) {
        out += `${text.slice(last, i)}"${text.slice(i, j)}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}
