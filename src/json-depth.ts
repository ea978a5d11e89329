/**
 * Whether a JSON text nests objects and arrays deeper than `max`, read without parsing it (brackets inside strings
 * do not count). Bodies from outside are checked with this before anything walks them recursively: a body thousands
 * of levels deep would otherwise overflow the stack of the first recursive reader and fail with a 500.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
