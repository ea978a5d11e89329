import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/dev/emulator/ids.js';
import type { RunningEmulator } from '../../src/dev/emulator/server.js';
import { call, hook, startTestEmulator, validOrder } from './helpers.js';

/** --fail-rate and --drop-rate: what a caller sees, and what the emulator stored. */

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Outcome = 'ok' | 'refused' | 'dropped';

async function createOnce(e: RunningEmulator, sourceOrderId: string): Promise<Outcome> {
  try {
    const res = await call(e.ordersUrl, 'POST', '/api/order', { body: validOrder(sourceOrderId) });
    if (res.status === 200) return 'ok';
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      success: false,
      error: { name: 'ServiceUnavailable', code: 5030, message: 'the service is scaling up; retry in a few seconds (emulator --fail-rate)' },
    });
    return 'refused';
  } catch (error) {
    expect((error as { code?: string }).code).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    return 'dropped';
  }
}

describe('fault injection', () => {
  it('--fail-rate 1 refuses every create with 503 and stores nothing', async () => {
    emu = await startTestEmulator({ failRate: 1, manual: true });
    for (let i = 0; i < 5; i++) expect(await createOnce(emu, `FR-${i}`)).toBe('refused');
    expect(emu.store.size).toBe(0);
    // Only creates are refused.
    expect((await call(emu.baseUrl, 'POST', '/api/order/validate', { body: validOrder('FR-x') })).status).toBe(200);
  });

  it('--drop-rate 1 stores every create, then drops the connection without an answer', async () => {
    emu = await startTestEmulator({ dropRate: 1 });
    for (let i = 0; i < 3; i++) expect(await createOnce(emu, `DR-${i}`)).toBe('dropped');
    expect(emu.store.size).toBe(3);
    // The stored orders are processed like any other: the caller can find them by source id.
    const e = emu;
    const found = await call(e.baseUrl, 'GET', '/api/order/bysourceid/DR-1');
    expect(found.status).toBe(200);
    expect(found.body.orderData.sourceOrderId).toBe('DR-1');
  });

  it('applies the rates as the seeded sequence decides, exactly', async () => {
    const seed = 20261121;
    const failRate = 0.3;
    const dropRate = 0.25;
    emu = await startTestEmulator({ failRate, dropRate, seed, manual: true });
    // The same draws as the emulator: one for --fail-rate per create, then one for --drop-rate if it was stored.
    const random = seededRandom(seed);
    const expected: Outcome[] = [];
    for (let i = 0; i < 60; i++) {
      if (random() < failRate) expected.push('refused');
      else expected.push(random() < dropRate ? 'dropped' : 'ok');
    }
    const actual: Outcome[] = [];
    for (let i = 0; i < 60; i++) actual.push(await createOnce(emu, `SR-${i}`));
    expect(actual).toEqual(expected);
    const count = (o: Outcome) => actual.filter((a) => a === o).length;
    expect(count('refused')).toBeGreaterThan(5);
    expect(count('dropped')).toBeGreaterThan(3);
    expect(emu.store.size).toBe(count('ok') + count('dropped'));
    const stored = (await hook(emu, 'GET', '/orders')).body.data.map((o: { orderData: { sourceOrderId: string } }) => o.orderData.sourceOrderId);
    expect(stored.sort()).toEqual(actual.flatMap((o, i) => (o === 'refused' ? [] : [`SR-${i}`])).sort());
  });

  it('changes the rates at run time through the hook', async () => {
    emu = await startTestEmulator({ manual: true });
    expect(await createOnce(emu, 'H-1')).toBe('ok');
    expect((await hook(emu, 'PUT', '/faults', { failRate: 1 })).body).toEqual({ failRate: 1, dropRate: 0 });
    expect(await createOnce(emu, 'H-2')).toBe('refused');
    expect((await hook(emu, 'PUT', '/faults', { failRate: 0, dropRate: 1 })).body).toEqual({ failRate: 0, dropRate: 1 });
    expect(await createOnce(emu, 'H-3')).toBe('dropped');
    const bad = await hook(emu, 'PUT', '/faults', { failRate: 2 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validations).toEqual([{ path: 'failRate', message: 'must be from 0 to 1' }]);
    expect(emu.store.size).toBe(2);
  });
});
