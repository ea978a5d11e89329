import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventKindOf, parsePostback, printEventHash, repairJson, type PrintEvent } from '../../src/print-service/postback.js';

function ok(body: string): PrintEvent {
  const parsed = parsePostback(body);
  if (!parsed.ok) throw new Error(`expected a parse, got: ${parsed.error}`);
  return parsed.event;
}

function fails(body: string): string {
  const parsed = parsePostback(body);
  if (parsed.ok) throw new Error(`expected a failure, got ${JSON.stringify(parsed.event)}`);
  return parsed.error;
}

describe('event kinds', () => {
  it.each([
    ['Shipped', 'shipped'],
    ['shipped', 'shipped'],
    ['Shipment Shipped', 'shipped'],
    ['SHIPMENT_SHIPPED', 'shipped'],
    ['Order Print Ready', 'print-ready'],
    ['printready', 'print-ready'],
    ['print-ready', 'print-ready'],
    ['Order submission error', 'submission-error'],
    ['submissionerror', 'submission-error'],
    ['Order Received', 'received'],
    ['received', 'received'],
    ['Order Errored', 'errored'],
    ['errored', 'errored'],
    ['Order Cancelled', 'cancelled'],
    ['canceled', 'cancelled'],
  ] as const)('%s → %s', (word, kind) => {
    expect(eventKindOf(word)).toBe(kind);
  });

  it('knows no other words', () => {
    expect(eventKindOf('Order Shipped Partially')).toBeUndefined();
    expect(eventKindOf('')).toBeUndefined();
  });
});

describe('parsePostback', () => {
  it('reads the documented Shipment Shipped template', () => {
    const event = ok(
      '{"event": "Shipment Shipped", "orderId": "64656D6F2d6272616e642d31", "sourceOrderId": "acme-1001", "shipmentIndex": 1, "trackingNumber": "EM123456789GB", "carrier": {"alias": "express", "code": "dhl", "service": "express-worldwide"}, "timestamp": "2026-11-21T10:00:00.000Z"}',
    );
    expect(event).toEqual({
      kind: 'shipped',
      sourceOrderId: 'acme-1001',
      printOrderId: '64656d6f2d6272616e642d31',
      shipmentIndex: 1,
      trackingNumber: 'EM123456789GB',
      carrier: { code: 'dhl', service: 'express-worldwide', alias: 'express' },
      errors: [],
      timestamp: '2026-11-21T10:00:00.000Z',
    });
  });

  it('reads PascalCase keys, string values, ShipmentIndex "0", an empty TrackingNumber and a string Carrier', () => {
    const event = ok('{"Event":"SHIPPED","SourceOrderId":"39477","ShipmentIndex":"0","TrackingNumber":"","Carrier":"royalmail","TimeStamp":"2018-04-06T10:20:50.506Z"}');
    expect(event).toEqual({ kind: 'shipped', sourceOrderId: '39477', shipmentIndex: 0, carrier: { code: 'royalmail' }, errors: [], timestamp: '2018-04-06T10:20:50.506Z' });
  });

  it('prefers the event name over a record status that lags behind it', () => {
    expect(ok('{"event":"Shipment Shipped","status":"printready","sourceOrderId":"a","shipmentIndex":0}').kind).toBe('shipped');
    // An unknown event word falls back to the status.
    expect(ok('{"event":"Dispatch","OrderStatus":"Shipped","sourceOrderId":"a"}').kind).toBe('shipped');
  });

  it('reads the submission error fields: TimeStamp, OrderId (a sourceOrderId), status, errorsClean', () => {
    const event = ok('{"TimeStamp":"2026-11-21T10:00:00Z","OrderId":"acme-1002","status":"Order submission error","errorsClean":["sku X is not set up","bad shipmentIndex"]}');
    expect(event).toEqual({ kind: 'submission-error', sourceOrderId: 'acme-1002', errors: ['sku X is not set up', 'bad shipmentIndex'], timestamp: '2026-11-21T10:00:00.000Z' });
  });

  it('takes a 24-hex OrderId or _id as the print order id, and errors as strings or objects', () => {
    expect(ok('{"status":"errored","_id":"aaaaaaaaaaaaaaaaaaaaaaaa","errors":[{"message":"cover: HTTP 404"},"text: preflight"]}')).toMatchObject({
      kind: 'errored',
      printOrderId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      errors: ['cover: HTTP 404', 'text: preflight'],
    });
    expect(ok('{"Status":"Order Cancelled","OrderId":"BBBBBBBBBBBBBBBBBBBBBBBB"}')).toMatchObject({ kind: 'cancelled', printOrderId: 'bbbbbbbbbbbbbbbbbbbbbbbb' });
    expect(ok('{"status":"received","source_order_id":"x-1","error":"one message"}')).toMatchObject({ sourceOrderId: 'x-1', errors: ['one message'] });
  });

  it('accepts numbers for string fields and keeps an unreadable timestamp as written', () => {
    expect(ok('{"status":"print ready","SourceOrderId":53297,"TimeStamp":"yesterday"}')).toEqual({ kind: 'print-ready', sourceOrderId: '53297', errors: [], timestamp: 'yesterday' });
  });

  it('says why it does not understand a body', () => {
    expect(fails('')).toBe('empty body');
    expect(fails('[1,2]')).toBe('the body is not a JSON object');
    expect(fails('{"status":"teleported"}')).toContain('no order reference');
    expect(fails('{"sourceOrderId":"a"}')).toContain('no event, Event, status or OrderStatus field');
    expect(fails('{"status":"shipped"}')).toContain('no order reference');
    expect(fails('{"status":"shipped","sourceOrderId":"a","shipmentIndex":"first"}')).toContain('shipmentIndex: must be a whole number');
    expect(fails('{"status":"shipped","sourceOrderId":{"nested":true}}')).toContain('sourceorderid: must be a string or a number');
    expect(fails('<html>502 Bad Gateway</html>')).toContain('not JSON');
    expect(fails('\u0000\u0001garbage')).toContain('not JSON');
    expect(fails("{'status': 'shipped', 'sourceOrderId': 'a'}")).toContain('not repairable');
  });

  it('hashes meaning, not bytes', () => {
    const a = ok('{"event":"Shipment Shipped","sourceOrderId":"a","shipmentIndex":0,"trackingNumber":"T1"}');
    const b = ok('{\n  "TrackingNumber": "T1", "ShipmentIndex": "0",\n  "SourceOrderId": "a", "OrderStatus": "shipped"\n}');
    const c = ok('{"event":"Shipment Shipped","sourceOrderId":"a","shipmentIndex":0,"trackingNumber":"T2"}');
    expect(printEventHash(a)).toBe(printEventHash(b));
    expect(printEventHash(a)).not.toBe(printEventHash(c));
  });
});

describe('repairs (docs/triggers.md)', () => {
  it('quotes bare-word values and keys, adds commas between lines, drops trailing commas', () => {
    const repaired = repairJson('{\n  Status: shipped\n  "Carrier": Royal Mail Tracked\n  "n": 12,\n  "ok": true,\n  "list": [1, 2,],\n}');
    expect(repaired.ok).toBe(true);
    if (!repaired.ok) return;
    expect(JSON.parse(repaired.text)).toEqual({ Status: 'shipped', Carrier: 'Royal Mail Tracked', n: 12, ok: true, list: [1, 2] });
    expect(repaired.repairs.sort()).toEqual(['added missing commas between lines', 'dropped trailing commas', 'quoted bare-word keys or values', 'quoted bare-word values']);
  });

  it('repairs nothing else', () => {
    expect(repairJson('{"a": 1 "b": 2}')).toMatchObject({ ok: false, error: expect.stringContaining('without a comma on one line') });
    expect(repairJson('{"a": "unterminated\n}')).toMatchObject({ ok: false, error: expect.stringContaining('unterminated string') });
    expect(repairJson('{"a": [1, 2}')).toMatchObject({ ok: false, error: expect.stringContaining('unbalanced') });
    expect(repairJson('{"a": 1')).toMatchObject({ ok: false, error: expect.stringContaining('unclosed') });
    expect(repairJson("{'a': 1}")).toMatchObject({ ok: false });
  });

  it('leaves colons inside strings alone', () => {
    const repaired = repairJson('{"t": "2018-12-08T05:52:56.584Z"\n"u": "https://x.test/a:b" , }');
    expect(repaired.ok && JSON.parse(repaired.text)).toEqual({ t: '2018-12-08T05:52:56.584Z', u: 'https://x.test/a:b' });
  });
});

// The real postbacks live beside the project, not in it; a checkout without them skips this.
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/print-service/', import.meta.url));
const haveFixtures = existsSync(`${fixtures}05-postback-shipped-uk-inkifi.json`) && existsSync(`${fixtures}06-postback-shipped-us-inkifi-INVALID-JSON.json`);

describe.skipIf(!haveFixtures)('real postbacks (local check on ../shared/fixtures)', () => {
  it('05: UK, shipped without tracking', () => {
    const parsed = parsePostback(readFileSync(`${fixtures}05-postback-shipped-uk-inkifi.json`, 'utf8'));
    expect(parsed).toEqual({
      ok: true,
      repairs: [],
      event: { kind: 'shipped', sourceOrderId: '39477', shipmentIndex: 0, errors: [], timestamp: '2018-04-06T10:20:50.506Z' },
    });
  });

  it('06: US, invalid JSON (a bare carrier code, no comma after it) repaired', () => {
    const parsed = parsePostback(readFileSync(`${fixtures}06-postback-shipped-us-inkifi-INVALID-JSON.json`, 'utf8'));
    expect(parsed).toEqual({
      ok: true,
      repairs: ['quoted bare-word values', 'added missing commas between lines'],
      event: {
        kind: 'shipped',
        sourceOrderId: '53297',
        shipmentIndex: 0,
        trackingNumber: '9405515901453214355474',
        carrier: { code: 'shqcustomc_po_pm' },
        errors: [],
        timestamp: '2018-12-08T05:52:56.584Z',
      },
    });
  });
});

describe('events not acted on, exact words, limits and control characters (issue 13 item 7)', () => {
  it.each([
    ['Shipment Updated', 'Shipment Updated'],
    ['Component Printed', 'Component Printed'],
    ['Shipment Shipped 🚚', 'Shipment Shipped 🚚'],
    ['not shipped', 'not shipped'],
    ['shipped?', 'shipped?'],
    ['Shipment-Shipped-Late', 'Shipment-Shipped-Late'],
  ])('acknowledges %s as a noted event, never as one it acts on', (word, name) => {
    const event = ok(JSON.stringify({ event: word, sourceOrderId: 'shop-1001', errorsClean: [] }));
    expect(event).toMatchObject({ kind: 'noted', name, sourceOrderId: 'shop-1001' });
  });

  it.each([
    ['shipment   SHIPPED', 'shipped'],
    ['SHIPMENT_SHIPPED', 'shipped'],
    ['  Order Print Ready ', 'print-ready'],
    ['ORDER-CANCELLED', 'cancelled'],
  ])('matches %s after normalising case and spacing', (word, kind) => {
    expect(eventKindOf(word)).toBe(kind);
  });

  it('removes control characters and bidi overrides from what reaches Shopify', () => {
    const event = ok(
      JSON.stringify({ event: 'shipped', sourceOrderId: 'a\u0000b', shipmentIndex: 0, trackingNumber: 'RM\u202E123\u0000GB', carrier: { code: 'royal\u0007mail' }, errorsClean: ['bad\u2066 file'] }),
    );
    expect(event.trackingNumber).toBe('RM123GB');
    expect(event.sourceOrderId).toBe('ab');
    expect(event.carrier?.code).toBe('royalmail');
    expect(event.errors).toEqual(['bad file']);
  });

  it('refuses values over their length limits instead of cutting them, and cuts only error texts', () => {
    expect(fails(JSON.stringify({ event: 'shipped', sourceOrderId: 'a', trackingNumber: 'T'.repeat(101) }))).toMatch(/trackingNumber/);
    expect(fails(JSON.stringify({ event: 'shipped', sourceOrderId: 'a'.repeat(201) }))).toMatch(/sourceOrderId/);
    expect(fails(JSON.stringify({ event: 'x'.repeat(101), sourceOrderId: 'a' }))).toMatch(/longer than 100/);
    const many = ok(JSON.stringify({ event: 'errored', sourceOrderId: 'a', errorsClean: Array.from({ length: 80 }, () => 'e'.repeat(2_000)) }));
    expect(many.errors).toHaveLength(50);
    expect(many.errors[0]!.length).toBe(1_000);
  });

  it('says a body nested too deeply is not understood, without walking it', () => {
    const deep = `{"event":"shipped","sourceOrderId":"a","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    expect(fails(deep)).toMatch(/nested deeper than 32 levels/);
    expect(ok('{"event":"shipped","sourceOrderId":"a","note":"[[[[{{{{ in a string is text"}').kind).toBe('shipped');
  });
});
