import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postbackTriggers, POSTBACK_TEMPLATES, POSTBACK_URL_PLACEHOLDER } from '../../src/print-service/postback-triggers.js';
import { EVENT_NAMES, parseTriggers, renderTrigger } from '../../src/dev/emulator/triggers.js';
import { parsePostback } from '../../src/print-service/postback.js';

/** docs/triggers.md, docs/triggers.example.json and postbackTriggers are one contract: they must say the same. */

const doc = readFileSync(new URL('../../docs/triggers.md', import.meta.url), 'utf8');
const exampleFile = JSON.parse(readFileSync(new URL('../../docs/triggers.example.json', import.meta.url), 'utf8')) as unknown;

function docTemplate(event: string): string | undefined {
  const section = doc.split(/^### /m).find((s) => s.startsWith(`${event}\n`));
  return section ? /```liquid\n([\s\S]*?)\n```/.exec(section)?.[1] : undefined;
}

describe('trigger templates', () => {
  it.each(EVENT_NAMES)('docs/triggers.md shows the code\'s template for %s', (event) => {
    expect(docTemplate(event)).toBe(POSTBACK_TEMPLATES[event]);
  });

  it('docs/triggers.example.json is postbackTriggers with the placeholder URL', () => {
    expect(exampleFile).toEqual(postbackTriggers(POSTBACK_URL_PLACEHOLDER));
    expect(postbackTriggers('http://x.test/postbacks/t', { authorization: 'Basic eA==' }).every((t) => t.headers?.authorization === 'Basic eA==')).toBe(true);
  });

  it('renders, for each event, a body the parser understands as that event', () => {
    const triggers = parseTriggers(postbackTriggers('http://127.0.0.1/postbacks/t'));
    const order = {
      _id: '6740a1b2c3d4e5f6a7b8c9d0',
      status: 'printready',
      orderData: { sourceOrderId: 'acme-1001' },
      errors: ['cover: could not fetch https://files.test/c.pdf: HTTP 404'],
      timestamp: '2026-11-21T10:00:00.000Z',
    };
    const extra: Record<string, object> = {
      'Shipment Shipped': { shipmentIndex: 1, trackingNumber: 'EM123456789GB', carrier: { alias: 'express', code: 'dhl', service: 'express-worldwide' } },
      'Order Submission Error': { TimeStamp: '2026-11-21T10:00:00.000Z', OrderId: 'acme-1001', status: 'Order submission error', errorsClean: ['unknown sku X'] },
    };
    const kinds = triggers.map((t) => {
      const parsed = parsePostback(renderTrigger(t, { ...order, event: t.event, ...(extra[t.event] ?? {}) }));
      if (!parsed.ok) throw new Error(`${t.event}: ${parsed.error}`);
      expect(parsed.repairs).toEqual([]);
      return [t.event, parsed.event];
    });
    expect(Object.fromEntries(kinds)).toEqual({
      'Order Received': { kind: 'received', printOrderId: order._id, sourceOrderId: 'acme-1001', errors: [], timestamp: order.timestamp },
      'Order Errored': { kind: 'errored', printOrderId: order._id, sourceOrderId: 'acme-1001', errors: order.errors, timestamp: order.timestamp },
      'Order Cancelled': { kind: 'cancelled', printOrderId: order._id, sourceOrderId: 'acme-1001', errors: [], timestamp: order.timestamp },
      'Order Print Ready': { kind: 'print-ready', printOrderId: order._id, sourceOrderId: 'acme-1001', errors: [], timestamp: order.timestamp },
      'Shipment Shipped': {
        kind: 'shipped',
        printOrderId: order._id,
        sourceOrderId: 'acme-1001',
        shipmentIndex: 1,
        trackingNumber: 'EM123456789GB',
        carrier: { alias: 'express', code: 'dhl', service: 'express-worldwide' },
        errors: [],
        timestamp: order.timestamp,
      },
      'Order Submission Error': { kind: 'submission-error', sourceOrderId: 'acme-1001', errors: ['unknown sku X'], timestamp: order.timestamp },
    });
  });
});
