/**
 * What the app records about an order in words (problems, reasons, hold messages, history lines) often carries text
 * from outside: Shopify's hold notes, the printer's error texts, a postback's fields. Every such text is cut to
 * RECORDED_TEXT_LIMIT characters where it is stored (src/storage/recorded-text.ts), with a visible ellipsis, so what a
 * page later reads, translates and shows has a known size however much the sender wrote (150,000 characters of hold
 * notes once reached every view of the order).
 */
export const RECORDED_TEXT_LIMIT = 2_000;

/** The text as it is stored: itself, or its first RECORDED_TEXT_LIMIT - 1 characters and "…". */
export function recordedText(text: string): string {
  if (text.length <= RECORDED_TEXT_LIMIT) return text;
  // A surrogate pair is never split in two (half a character would not show, and JSON would carry a lone half).
  const end = isHighSurrogate(text.charCodeAt(RECORDED_TEXT_LIMIT - 2)) ? RECORDED_TEXT_LIMIT - 2 : RECORDED_TEXT_LIMIT - 1;
  return `${text.slice(0, end)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
