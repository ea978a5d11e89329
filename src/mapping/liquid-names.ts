/**
 * A variable's path written back as Liquid, for messages that tell the merchant what to write. Shopify's property
 * names often have spaces ("Custom Engraving Front", "Gift note"): `line.properties.Custom Engraving Front` is not
 * Liquid (a mapping with it does not load), so a segment that is not a plain name is written `['…']`, an array index
 * `[0]`: `line.properties['Custom Engraving Front']`.
 */

/** A segment Liquid reads after a dot (liquidjs's and Shopify's names: letters, digits, `_` and `-`). */
const NAME = /^[A-Za-z_][\w-]*$/;

export function liquidPath(segments: readonly (string | number)[]): string {
  return segments
    .map((seg, i) => {
      if (typeof seg === 'number') return `[${seg}]`;
      if (NAME.test(seg)) return i === 0 ? seg : `.${seg}`;
      // Liquid strings have no escapes: the other quote when the name holds a single one.
      return seg.includes("'") && !seg.includes('"') ? `["${seg}"]` : `['${seg}']`;
    })
    .join('');
}

/**
 * The path of the variable a liquidjs `UndefinedVariableError` is about, as segments. liquidjs says it as text, its
 * segments joined with dots (`line.properties.Custom Engraving Front`), which loses where a name ends; the output's
 * own token has them: its leading literal segments (names, quoted keys, indexes) whose dotted text is that variable.
 */
export function undefinedPathOf(error: unknown): (string | number)[] | undefined {
  const err = error as { originalError?: { variableName?: unknown }; token?: { variable?: unknown; props?: unknown } };
  const name = err.originalError?.variableName;
  if (typeof name !== 'string' || name === '') return undefined;
  const props = err.token?.props;
  if (!err.token?.variable && Array.isArray(props)) {
    const segments: (string | number)[] = [];
    for (const prop of props as { content?: unknown }[]) {
      const content = prop?.content;
      if (typeof content !== 'string' && typeof content !== 'number') break;
      segments.push(content);
      if (segments.join('.') === name) return segments;
    }
  }
  return name.split('.');
}
