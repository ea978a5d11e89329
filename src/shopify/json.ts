/**
 * JSON.parse that keeps integers beyond 2^53 exact by reading them as strings. Shopify's REST webhook bodies carry
 * ids such as 5512345678901234567 that a plain JSON.parse silently rounds; gids (`admin_graphql_api_id`) are exact
 * but not every id has one (e.g. `orders_to_redact`).
 */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(quoteBigIntegers(text)) as unknown;
}

const SAFE_DIGITS = 15; // every integer of up to 15 digits is exactly representable

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

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
    if ((c >= 48 && c <= 57) || c === 45 /* - */) {
      // Consume the whole number token (sign, digits, fraction, exponent) so a fraction's digits are never mistaken
      // for an integer of their own.
      let j = c === 45 ? i + 1 : i;
      const digitsStart = j;
      while (j < text.length && isDigit(text.charCodeAt(j))) j++;
      const digits = j - digitsStart;
      let integer = true;
      if (text.charCodeAt(j) === 46 /* . */) {
        integer = false;
        j++;
        while (j < text.length && isDigit(text.charCodeAt(j))) j++;
      }
      if (text.charCodeAt(j) === 101 /* e */ || text.charCodeAt(j) === 69 /* E */) {
        integer = false;
        j++;
        if (text.charCodeAt(j) === 43 || text.charCodeAt(j) === 45) j++;
        while (j < text.length && isDigit(text.charCodeAt(j))) j++;
      }
      if (integer && digits > SAFE_DIGITS && !Number.isSafeInteger(Number(text.slice(i, j)))) {
        out += `${text.slice(last, i)}"${text.slice(i, j)}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}
