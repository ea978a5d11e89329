import { describe, expect, it } from 'vitest';
import { describeHoldWindow } from '../../src/bridge/webhooks/index.js';
import { displayWidth, fitTo, LiveProgress, progressTable, stageOf, summaryTable, type ProgressRow } from '../../src/dev/demo/render.js';
import type { Expectation } from '../../src/dev/demo/scenarios.js';
import { verdict, type Observation } from '../../src/dev/demo/verify.js';

/** The demo's judgement and rendering without any running system: observations are written out by hand. */

const shippedOnce: Expectation = { status: 'shipped', tag: 'print-bridge:shipped', printer: 'shipped', fulfillments: 1 };
const now = new Date('2026-11-23T10:00:00Z');

function observation(overrides: { app?: Partial<Observation['app']>; printer?: Partial<Observation['printer']>; shopify?: Partial<Observation['shopify']> } = {}): Observation {
  return {
    app: { status: 'shipped', problems: [], printOrderId: '6b0000000000000000000001', submitAfter: '2026-11-23T09:59:00Z', ...overrides.app },
    printer: {
      orders: 1,
      id: '6b0000000000000000000001',
      status: 'shipped',
      shipments: [{ index: 0, status: 'shipped', trackingNumber: 'EM000000001GB', carrierCode: 'royalmail', shipTo: { address1: '7 Stonegate', postcode: 'YO1 8AS' } }],
      componentPaths: ['https://files.example/a.pdf'],
      ...overrides.printer,
    },
    shopify: {
      tags: ['print-bridge:submitted', 'print-bridge:shipped'],
      cancelled: false,
      appHolds: [],
      fulfillments: [{ name: '#1001-F1', status: 'SUCCESS', tracking: [{ number: 'EM000000001GB', company: 'Royal Mail', url: null }] }],
      ...overrides.shopify,
    },
  };
}

describe('verdict', () => {
  it('is met when every system shows the expected end state', () => {
    expect(verdict(shippedOnce, observation(), now)).toEqual({ state: 'met' });
  });

  it('waits while the order is on its way, saying for what', () => {
    const v = verdict(shippedOnce, observation({ app: { status: 'print-ready' }, printer: { status: 'printready' }, shopify: { fulfillments: [], tags: [] } }), now);
    expect(v.state).toBe('pending');
    expect(v.state === 'pending' && v.waitingFor.join('\n')).toMatch(/app status shipped \(now print-ready\)[\s\S]*tag print-bridge:shipped[\s\S]*1 fulfillment/);
  });

  it('fails at once when the order settled elsewhere, with its problems', () => {
    const v = verdict(shippedOnce, observation({ app: { status: 'error', problems: ['orderData.items[0].sku: unknown SKU'] } }), now);
    expect(v).toEqual({ state: 'failed', reasons: ['the app has it error, expected shipped: orderData.items[0].sku: unknown SKU'] });
  });

  it('fails on a duplicate at the printer, and on a fulfillment too many', () => {
    expect(verdict(shippedOnce, observation({ printer: { orders: 2 } }), now).state).toBe('failed');
    const twice = observation().shopify.fulfillments;
    expect(verdict(shippedOnce, observation({ shopify: { fulfillments: [...twice, ...twice] } }), now)).toMatchObject({ state: 'failed' });
  });

  it("waits for print-bridge's own hold in Shopify to say what the expectation names", () => {
    const held: Expectation = { status: 'held', tag: 'print-bridge:needs-mapping', printer: 'nothing', fulfillments: 0, appHoldNotes: 'Print Bridge: line 2' };
    const base = { app: { status: 'held' as const, problems: ['no rule'] }, printer: { orders: 0, shipments: [], componentPaths: [] }, shopify: { tags: ['print-bridge:needs-mapping'], fulfillments: [] } };
    const without = verdict(held, observation(base), now);
    expect(without.state === 'pending' && without.waitingFor.join('\n')).toContain(`print-bridge's hold in Shopify saying "Print Bridge: line 2"`);
    expect(verdict(held, observation({ ...base, shopify: { ...base.shopify, appHolds: ['Print Bridge: line 2 (SKU TOTE): no rule'] } }), now)).toEqual({ state: 'met' });
  });

  it('does not accept a tracking number the printer never reported', () => {
    const v = verdict(shippedOnce, observation({ shopify: { fulfillments: [{ name: '#1001-F1', status: 'SUCCESS', tracking: [{ number: 'MADE-UP', company: 'x', url: null }] }] } }), now);
    expect(v.state).toBe('pending');
  });

  it('counts "nothing at the printer" only once the hold window has passed', () => {
    const cancelled: Expectation = { status: 'cancelled', tag: 'print-bridge:cancelled', printer: 'nothing', fulfillments: 0 };
    const seen = (submitAfter: string) =>
      observation({ app: { status: 'cancelled', submitAfter }, printer: { orders: 0, id: undefined, status: undefined, shipments: [] }, shopify: { tags: ['print-bridge:cancelled'], fulfillments: [] } });
    expect(verdict(cancelled, seen('2026-11-23T09:59:59.500Z'), now).state).toBe('pending');
    expect(verdict(cancelled, seen('2026-11-23T09:59:58Z'), now)).toEqual({ state: 'met' });
    expect(verdict(cancelled, { ...seen('2026-11-23T09:59:58Z'), printer: observation().printer }, now).state).toBe('failed');
  });

  it('fails an address change that shipped to the old address', () => {
    const moved: Expectation = { ...shippedOnce, shipTo: { address1: '31 Marygate', postcode: 'YO30 7BH' } };
    const v = verdict(moved, observation(), now);
    expect(v.state === 'failed' && v.reasons[0]).toMatch(/shipped to the old address: .*has 7 Stonegate, YO1 8AS/);
  });

  describe('fulfillment-service mode', () => {
    const serviceMode: Expectation = { ...shippedOnce, service: { printerItems: ['PST-A2-MOUNTAINS×1', 'GREETING-CARD-A6×2'], merchantLines: ['TOTE-CANVAS-NAVY×1'] } };
    type Fo = NonNullable<Observation['shopify']['fulfillmentOrders']>[number];
    const ours = (over: Partial<Fo> = {}): Fo => ({
      at: 'print-bridge',
      status: 'CLOSED',
      requestStatus: 'CLOSED',
      answers: ['FULFILLMENT_ACCEPTED'],
      lines: [{ sku: 'POSTER-A2-MOUNTAINS', quantity: 1, remaining: 0 }, { sku: 'CARD-A6-BIRTHDAY', quantity: 2, remaining: 0 }],
      ...over,
    });
    const merchants = (over: Partial<Fo> = {}): Fo => ({ at: 'merchant', status: 'OPEN', requestStatus: 'UNSUBMITTED', answers: [], lines: [{ sku: 'TOTE-CANVAS-NAVY', quantity: 1, remaining: 1 }], ...over });
    const seen = (fulfillmentOrders: Fo[], items = ['GREETING-CARD-A6×2', 'PST-A2-MOUNTAINS×1']) =>
      observation({ printer: { items }, shopify: { fulfillmentOrders } });

    it('is met when the printer has only the requested lines, print-bridge’s fulfillment order is accepted and closed, and the merchant’s is open', () => {
      expect(verdict(serviceMode, seen([ours(), merchants()]), now)).toEqual({ state: 'met' });
    });

    it('waits for the acceptance, then for the fulfillment order to close', () => {
      const v = verdict(serviceMode, seen([ours({ status: 'OPEN', requestStatus: 'SUBMITTED', answers: [] }), merchants()]), now);
      expect(v.state === 'pending' && v.waitingFor.join('\n')).toMatch(/print-bridge to accept Shopify's request \(now SUBMITTED\)/);
      const accepted = verdict(serviceMode, seen([ours({ status: 'IN_PROGRESS', requestStatus: 'ACCEPTED' }), merchants()]), now);
      expect(accepted.state === 'pending' && accepted.waitingFor.join('\n')).toMatch(/fulfilled and CLOSED \(now IN_PROGRESS\)/);
    });

    it('fails when the merchant’s line reached the printer, a request was rejected, or the merchant’s fulfillment order was touched', () => {
      expect(verdict(serviceMode, seen([ours(), merchants()], ['PST-A2-MOUNTAINS×1', 'GREETING-CARD-A6×2', 'TOTE×1']), now)).toMatchObject({ state: 'failed' });
      expect(verdict(serviceMode, seen([ours({ answers: ['FULFILLMENT_REJECTED'], requestStatus: 'REJECTED', status: 'OPEN' }), merchants()]), now)).toMatchObject({ state: 'failed' });
      const closed = verdict(serviceMode, seen([ours(), merchants({ status: 'CLOSED', lines: [{ sku: 'TOTE-CANVAS-NAVY', quantity: 1, remaining: 0 }] })]), now);
      expect(closed.state === 'failed' && closed.reasons[0]).toMatch(/merchant's own fulfillment order should be OPEN with TOTE-CANVAS-NAVY×1/);
    });
  });
});

describe('rendering', () => {
  const rows: ProgressRow[] = [
    { orderName: '#1001', scenario: 'several SKUs', furthest: 'print ready', status: 'print-ready', state: 'running' },
    { orderName: '#1004', scenario: 'unmapped item', furthest: 'received', status: 'held', state: 'met' },
  ];

  it('marks the stages reached, received → submitted → print ready → shipped', () => {
    const lines = progressTable(rows, { color: false });
    expect(lines[0]).toMatch(/order\s+scenario\s+received\s+submitted\s+print ready\s+shipped\s+status/);
    expect(lines[2]).toMatch(/#1001\s+several SKUs\s+✓\s+✓\s+✓\s+·\s+print-ready\s+…/);
    expect(lines[3]).toMatch(/#1004\s+unmapped item\s+✓\s+·\s+·\s+·\s+held\s+✓ done/);
    expect(stageOf('partially-shipped')).toBe('print ready');
    expect(stageOf('cancelled')).toBeUndefined();
  });

  it('prints a line per change when the output is not a terminal, and redraws in place when it is', () => {
    const plain: string[] = [];
    const progress = new LiveProgress({ write: (s) => plain.push(s) }, { color: false }, false);
    progress.update(rows);
    progress.update(rows);
    expect(plain).toHaveLength(2);
    expect(plain[1]).toMatch(/#1004 +unmapped item +held ✓\n$/);

    const tty: string[] = [];
    const live = new LiveProgress({ write: (s) => tty.push(s), isTTY: true, columns: 60 }, { color: true }, true);
    live.update(rows);
    live.update(rows);
    expect(tty[1]!.startsWith('\x1b[4A')).toBe(true);
    const cursorControl = ['\x1b[4A', '\x1b[2K'];
    for (const line of tty[1]!.split('\n').filter(Boolean)) {
      const text = cursorControl.reduce((l, code) => l.replace(code, ''), line);
      expect(displayWidth(text)).toBeLessThanOrEqual(59);
    }
  });

  it('lines up wide characters and cuts lines to a width', () => {
    expect(displayWidth('山田 花子')).toBe(9);
    expect(fitTo('abcdefghij', 5)).toBe('abcd…');
    expect(fitTo('\x1b[32mok\x1b[0m', 5)).toBe('\x1b[32mok\x1b[0m');
  });

  it('summarises each order with its print _id and tracking, one line per fulfillment', () => {
    const seen = observation({
      shopify: {
        fulfillments: [
          { name: '#1003-F1', status: 'SUCCESS', tracking: [{ number: 'EM1', company: 'DHL Express', url: null }] },
          { name: '#1003-F2', status: 'SUCCESS', tracking: [{ number: 'EM2', company: 'DHL Express', url: null }] },
        ],
      },
    });
    const lines = summaryTable([{ orderName: '#1003', scenario: 'two shipments', expected: { ...shippedOnce, fulfillments: 2 }, seen, ok: true, reasons: [], evidence: [] }], { color: false });
    expect(lines[2]).toMatch(/#1003\s+two shipments\s+shipped, 2 fulfillments\s+shipped \(printer: shipped\)\s+✓\s+6b0000000000000000000001\s+#1003-F1 {2}DHL Express EM1$/);
    expect(lines[3]).toMatch(/^\s+#1003-F2 {2}DHL Express EM2$/);
  });
});

describe('the hold window in an order history', () => {
  it('reads in minutes, or in seconds when shorter than a minute or not whole', () => {
    expect(describeHoldWindow(30)).toBe('30-minute');
    expect(describeHoldWindow(0.05)).toBe('3-second');
    expect(describeHoldWindow(1.5)).toBe('90-second');
  });
});
