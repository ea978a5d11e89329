import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operatorTextForStore, OTHER_STORE, withoutOtherStores } from '../../src/admin/merchant-mapping.js';
import { loadMappingText } from '../../src/mapping/load.js';
import { loadStoreMapping } from '../../src/mapping/store-mapping.js';
import { testMapping } from '../helpers/harness.js';

/**
 * What a merchant is shown of an operator's mapping text (issue 22 item 4): no comment anywhere, `shops` naming their
 * store alone, no other store's domain; and the text still maps exactly as the file does for that store.
 */
const SHOP = 'mine.myshopify.com';
const OTHER = 'theirs.myshopify.com';

const FILE = `# note for the operator: ${OTHER} is on a discount
shops: [${SHOP}, ${OTHER}] # both
destination: demo-printer   # cheap one
submit: { on: orders/paid, holdMinutes: 0, validate: true } # flow map
shipments:
  # before a key
  carrier: { alias: standard }
  returnAddress: { name: "Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB } # ours
products:
  - match: { sku: "PRINT-*" }
    # inside a list item
    sku: "{% if shop.domain == '${OTHER}' %}T-{% endif %}{{ line.sku }}"
    components:
      - code: cover
        path: |
          https://files.example.com/{{ line.sku }}.pdf
unmapped: hold
# the end
`;

describe('an operator mapping as a merchant sees it', () => {
  it('has no comment, names the store alone, and no other store', () => {
    const shown = operatorTextForStore(FILE, SHOP)!;
    expect(shown).not.toContain('#');
    expect(shown).not.toContain(OTHER);
    expect(shown).toContain(`shops: [ ${SHOP} ]`);
    expect(shown).toContain(`shop.domain == '${OTHER_STORE}'`);
  });

  it('maps as the file does for the store, and saves as a version of the store as it is', () => {
    for (const text of [FILE, testMapping(), readFileSync('mappings/default.yaml', 'utf8')]) {
      const file = loadMappingText(text, 'file.yaml');
      expect(file.ok).toBe(true);
      const shown = loadStoreMapping(operatorTextForStore(text, SHOP)!, SHOP);
      expect(shown.ok).toBe(true);
      if (!file.ok || !shown.ok) continue;
      // The same data apart from shops (and, in FILE, the other store's domain in a template, replaced on purpose).
      const data = (yaml: string) => ({ ...(parse(withoutOtherStores(yaml, SHOP)) as object), shops: undefined });
      expect(data(operatorTextForStore(text, SHOP)!)).toEqual(data(text));
    }
  });

  it('shows nothing of a text that does not parse, and keeps the store\'s own domain', () => {
    expect(operatorTextForStore('shops: [\n  - nope: [', SHOP)).toBeUndefined();
    expect(withoutOtherStores(`${SHOP} ${OTHER} X.MYSHOPIFY.COM`, SHOP)).toBe(`${SHOP} ${OTHER_STORE} ${OTHER_STORE}`);
  });
});
