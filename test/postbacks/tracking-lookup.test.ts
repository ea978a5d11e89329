import { afterAll, describe, expect, it } from 'vitest';
import { MappingRegistry } from '../../src/mapping/registry.js';
import { MappingRenderPool } from '../../src/mapping/render-pool.js';
import { registryCarrierNames, registryTrackingLookup } from '../../src/mapping/tracking-lookup.js';

describe('registryTrackingLookup', () => {
  const pool = new MappingRenderPool({ threads: 1 });
  afterAll(() => pool.close());

  it('reads the tracking table of the mapping serving the shop (mappings/default.yaml), the URL rendered in the render pool', async () => {
    const registry = new MappingRegistry({ dir: new URL('../../mappings', import.meta.url).pathname, pollMs: 0 });
    expect(registry.load()).toEqual([]);
    const lookup = registryTrackingLookup(registry, pool);
    expect(await lookup('any.myshopify.com', 'royalmail', 'EM123456789GB')).toEqual({
      company: 'Royal Mail',
      url: 'https://www.royalmail.com/track-your-item#/tracking-results/EM123456789GB',
    });
    expect(await lookup('any.myshopify.com', 'RoyalMail', 'A B')).toEqual({ company: 'Royal Mail', url: 'https://www.royalmail.com/track-your-item#/tracking-results/A%20B' });
    expect(await lookup('any.myshopify.com', 'shqcustomc_po_pm', '9405')).toEqual({ company: 'shqcustomc_po_pm' });
    const names = registryCarrierNames(registry);
    expect([names('any.myshopify.com', 'RoyalMail'), names('any.myshopify.com', 'shqcustomc_po_pm')]).toEqual(['Royal Mail', 'shqcustomc_po_pm']);
    registry.close();
  });
});
