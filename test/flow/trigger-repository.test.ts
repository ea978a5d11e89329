import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresFlowTriggers, type FlowTriggerRepository } from '../../src/flow/trigger-repository.js';
import { testDatabase } from '../helpers/database.js';
import { MemoryFlowTriggers } from '../helpers/memory-flow-triggers.js';

const SHOP = 'flow-repo.myshopify.com';
const OTHER = 'flow-repo-other.myshopify.com';
const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 12, minute));

let database: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ database, cleanup } = await testDatabase('flow-triggers', { engine: 'pglite' }));
});
afterAll(async () => cleanup());

describe.each([
  ['PostgreSQL (PGlite)', () => new PostgresFlowTriggers(database) as FlowTriggerRepository],
  ['the fake', () => new MemoryFlowTriggers() as FlowTriggerRepository],
])('which Flow triggers a store uses, in %s', (_name, make) => {
  it('records callbacks per store and trigger; a late, older callback changes nothing', async () => {
    const triggers = make();
    expect(await triggers.record({ shop: SHOP, handle: 'print-order-sent', enabled: true, changedAt: at(10) })).toBe(true);
    // Flow's "disabled" of 12:05 arrives after its "enabled" of 12:10: the store still uses the trigger.
    expect(await triggers.record({ shop: SHOP, handle: 'print-order-sent', enabled: false, changedAt: at(5) })).toBe(false);
    // The same callback delivered again changes nothing either.
    expect(await triggers.record({ shop: SHOP, handle: 'print-order-sent', enabled: true, changedAt: at(10) })).toBe(false);
    expect([...(await triggers.enabledOf(SHOP)).keys()]).toEqual(['print-order-sent']);
    expect((await triggers.enabledOf(SHOP)).get('print-order-sent')?.toISOString()).toBe(at(10).toISOString());
    expect(await triggers.record({ shop: SHOP, handle: 'print-order-sent', enabled: false, changedAt: at(20) })).toBe(true);
    expect((await triggers.enabledOf(SHOP)).size).toBe(0);
  });

  it('keeps stores apart and forgets one store’s rows only', async () => {
    const triggers = make();
    await triggers.record({ shop: SHOP, handle: 'print-status-changed', enabled: true, changedAt: at(1) });
    await triggers.record({ shop: SHOP, handle: 'print-order-needs-attention', enabled: false, changedAt: at(1) });
    await triggers.record({ shop: OTHER, handle: 'print-status-changed', enabled: true, changedAt: at(1) });
    expect(await triggers.forgetShop(SHOP)).toBeGreaterThanOrEqual(2);
    expect((await triggers.enabledOf(SHOP)).size).toBe(0);
    expect([...(await triggers.enabledOf(OTHER)).keys()]).toEqual(['print-status-changed']);
    await triggers.forgetShop(OTHER);
  });
});
