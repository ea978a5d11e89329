/**
 * JSON.parse that keeps integers beyond 2^53 exact by reading them as strings. Shopify's REST webhook bodies carry
 * ids such as 5512345678901234567 that a plain JSON.parse silently rounds; gids (`admin_graphql_api_id`) are exact
 * but not every id has one (e.g. `orders_to_redact`).
 */
export function parseJsonLossless(text: string): unknown {
  // The quick reading first: on a real 13 KB order it costs about a third more than a bare JSON.parse, where walking
  // every character cost twice as much (issue 27: the worker and the mapping thread read every body this way). When
  // it cannot be sure, the walk decides; quoteBigIntegersQuickly says why a quick reading that parses is exact.
  try {
    return JSON.parse(quoteBigIntegersQuickly(text)) as unknown;
  } catch {
    // a digit run inside a string was taken for a number (or the text is not JSON): the exact reading decides
  }
  return JSON.parse(quoteBigIntegers(text)) as unknown;
}

const SAFE_DIGITS = 15; // every integer of up to 15 digits is exactly representable

/** Runs of more digits than a double keeps exactly; each is looked at in its context (quoteBigIntegersQuickly). */
const LONG_DIGIT_RUN = new RegExp(`\\d{${SAFE_DIGITS + 1},}`, 'g');

/**
 * quoteBigIntegers without walking every character: a native regular expression finds the long digit runs, and each is
 * quoted when its neighbours are those of a JSON number outside a string (after `:`, `,`, `[` or the start, with an
 * optional sign; before `,`, `]`, `}` or the end; whitespace allowed between).
 *
 * Why a parse that succeeds is exact: every inserted quote follows a `:`, `,`, `[`, JSON whitespace or the start,
 * never a backslash, so it is never escaped. Inside a string it would end that string with a digit or `-` right after
 * it, which no JSON allows; so when the result parses, each inserted pair is a string of its own around a signed digit
 * run, and the rest of the text is read as the original. A text that parses that way is valid JSON apart from those
 * runs, and in valid JSON every integer the exact walk quotes has a number's neighbours and no fraction or exponent, so
 * it is quoted here too: the two texts are the same. When the result does not parse (a look-alike in a string, or a
 * text the walk reads differently, such as a number used as a key), the caller uses the walk. A review fuzzed both
 * against each other on about six million documents, every string of up to six tokens over an 11-symbol alphabet
 * among them, and found them equal (issue 27).
 */
function quoteBigIntegersQuickly(text: string): string {
  LONG_DIGIT_RUN.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let match = LONG_DIGIT_RUN.exec(text); match !== null; match = LONG_DIGIT_RUN.exec(text)) {
    const end = match.index + match[0].length;
    let start = match.index;
    if (text.charCodeAt(start - 1) === 45 /* - */) start--;
    if (!opensNumber(text, start - 1) || !closesNumber(text, end)) continue;
    if (Number.isSafeInteger(Number(text.slice(start, end)))) continue;
    out += `${text.slice(last, start)}"${text.slice(start, end)}"`;
    last = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Whether what comes before `at` (inclusive, spaces skipped) may stand before a JSON value: `:`, `,`, `[` or nothing. */
function opensNumber(text: string, at: number): boolean {
  let i = at;
  while (i >= 0 && isJsonSpace(text.charCodeAt(i))) i--;
  if (i < 0) return true;
  const c = text.charCodeAt(i);
  return c === 58 /* : */ || c === 44 /* , */ || c === 91 /* [ */;
}

/** Whether what comes from `at` on (spaces skipped) may follow a JSON value: `,`, `]`, `}` or nothing. */
function closesNumber(text: string, at: number): boolean {
  let i = at;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  if (i >= text.length) return true;
  const c = text.charCodeAt(i);
  return c === 44 /* , */ || c === 93 /* ] */ || c === 125 /* } */;
}

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
