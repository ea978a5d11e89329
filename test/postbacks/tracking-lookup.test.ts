import { describe, expect, it } from 'vitest';
import { MappingRegistry } from '../../src/mapping/registry.js';
import { registryTrackingLookup } from '../../src/mapping/tracking-lookup.js';

describe('registryTrackingLookup', () => {
  it('reads the tracking table of the mapping serving the shop (mappings/default.yaml)', () => {
    const registry = new MappingRegistry({ dir: new URL('../../mappings', import.meta.url).pathname, pollMs: 0 });
    expect(registry.load()).toEqual([]);
    const lookup = registryTrackingLookup(registry);
    expect(lookup('any.myshopify.com', 'royalmail', 'EM123456789GB')).toEqual({
      company: 'Royal Mail',
      url: 'https://www.royalmail.com/track-your-item#/tracking-results/EM123456789GB',
    });
    expect(lookup('any.myshopify.com', 'RoyalMail', 'A B')).toEqual({ company: 'Royal Mail', url: 'https://www.royalmail.com/track-your-item#/tracking-results/A%20B' });
    expect(lookup('any.myshopify.com', 'shqcustomc_po_pm', '9405')).toEqual({ company: 'shqcustomc_po_pm' });
    registry.close();
  });
});
