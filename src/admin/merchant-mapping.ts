import { isCollection, parseDocument, visit, type Node } from 'yaml';

/**
 * What a merchant may see of a mapping text (DESIGN section 9: a merchant "sees only what serves its own store").
 * The operator's mapping files may serve several stores and carry notes meant for the operator only, so a merchant
 * never gets a file as it is:
 *
 * - an operator's text (a mapping file, or a version the operator stored for the store) is shown as it applies to the
 *   store: every YAML comment removed, `shops` naming the store alone, and any other store's domain left in it (a
 *   template condition) replaced by {@link OTHER_STORE};
 * - a text of the store's own (a version its merchant saved) keeps its comments (they are the merchant's), but no other
 *   store's domain either.
 *
 * Replacing another store's domain keeps what the mapping does for this store: a comparison with it was false for
 * this store before and stays false.
 */

/** What stands in for another store's domain in a text shown to a merchant. */
export const OTHER_STORE = 'another-store.invalid';

const STORE_DOMAIN = /\b[a-z0-9][a-z0-9-]*\.myshopify\.com\b/gi;

/** Every myshopify domain in the text other than the store's own becomes {@link OTHER_STORE}. */
export function withoutOtherStores(text: string, shop: string): string {
  return text.replace(STORE_DOMAIN, (domain) => (domain.toLowerCase() === shop ? domain : OTHER_STORE));
}

/**
 * An operator's mapping text as it applies to one store: no comments, `shops: ["<shop>"]`, no other store's domain.
 * A text that does not parse is not shown at all (its problems would quote it): undefined.
 */
export function operatorTextForStore(text: string, shop: string): string | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return undefined;
  doc.commentBefore = null;
  doc.comment = null;
  visit(doc, {
    Node(_key, node: Node) {
      node.commentBefore = undefined;
      node.comment = undefined;
    },
  });
  if (isCollection(doc.contents) && doc.has('shops')) {
    const shops = doc.createNode([shop], { flow: true });
    doc.set('shops', shops);
  }
  // Scalars' own source text is not kept, so a comment cannot survive inside one; the domains in values can.
  return withoutOtherStores(doc.toString({ lineWidth: 0 }), shop);
}
