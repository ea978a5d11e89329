import { describe, expect, it } from 'vitest';
import { isOwnWriteEcho } from './own-writes.js';

const base = { id: '5500000000000000001', name: '#1001', updated_at: '2026-11-24T10:00:00-05:00', tags: 'vip', note: 'Gift wrap', line_items: [{ id: 1, sku: 'A', quantity: 1 }], shipping_address: { city: 'Leeds' } };

describe('isOwnWriteEcho', () => {
  it("recognises the app's own tags, note lines and a new updated_at as an echo", () => {
    const echo = { ...base, updated_at: '2026-11-24T10:05:00-05:00', tags: 'vip, print-bridge:submitted', note: 'Gift wrap\nprint-bridge: shipment 1 shipped with tracking EM1GB' };
    expect(isOwnWriteEcho(base, echo)).toBe(true);
    // Key order of another delivery does not matter.
    expect(isOwnWriteEcho(base, Object.fromEntries(Object.entries(echo).reverse()))).toBe(true);
  });

  it('lets through anything a merchant or customer changed', () => {
    expect(isOwnWriteEcho(base, { ...base, tags: 'vip, wholesale' })).toBe(false);
    expect(isOwnWriteEcho(base, { ...base, note: 'Gift wrap, please' })).toBe(false);
    expect(isOwnWriteEcho(base, { ...base, shipping_address: { city: 'York' } })).toBe(false);
    expect(isOwnWriteEcho(base, { ...base, line_items: [{ id: 1, sku: 'A', quantity: 2 }] })).toBe(false);
    expect(isOwnWriteEcho(base, { ...base, cancelled_at: '2026-11-24T11:00:00Z' })).toBe(false);
    expect(isOwnWriteEcho(undefined, base)).toBe(false);
  });
});
