import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  formatServiceDate,
  parseAuthorization,
  parseServiceDate,
  signaturePath,
  signaturesMatch,
  signRequest,
} from './signing.js';

// Expected signatures were computed outside this code base:
//   printf '%s' 'GET /api/order 2026-11-21 14:05:09' | openssl dgst -sha1 -hmac demo-secret
const NOW = new Date(Date.UTC(2026, 10, 21, 14, 5, 9, 750));
const DATE = '2026-11-21 14:05:09';
const SECRET = 'demo-secret';
const ODD_ID = 'demo shop-#1001 café ü?&%+ 東京';

describe('x-service-date', () => {
  it('is yyyy-mm-dd hh:mm:ss in UTC, whatever the local zone', () => {
    expect(formatServiceDate(NOW)).toBe(DATE);
    expect(formatServiceDate(new Date('2027-01-02T03:04:05+09:00'))).toBe('2027-01-01 18:04:05');
  });

  it('parses back, and refuses other forms and impossible dates', () => {
    expect(parseServiceDate(DATE)?.toISOString()).toBe('2026-11-21T14:05:09.000Z');
    expect(parseServiceDate('2026-11-21T14:05:09Z')).toBeUndefined();
    expect(parseServiceDate('2026-02-30 10:00:00')).toBeUndefined();
    expect(parseServiceDate('2026-11-21 24:00:00')).toBeUndefined();
    expect(parseServiceDate('')).toBeUndefined();
  });
});

describe('signature', () => {
  it('signs a plain path', () => {
    const headers = signRequest({ method: 'get', url: 'https://print.example.com/api/order', token: 'demo-token', secret: SECRET, now: NOW });
    expect(headers).toEqual({
      'x-service-date': DATE,
      'x-service-authorization': 'demo-token:46bf73331022395dce47b8e20e728204ad1b22dd',
    });
  });

  it("signs the base URL's path prefix", () => {
    const headers = signRequest({
      method: 'POST',
      url: new URL('https://print.example.com/print/v1/api/order/validate'),
      token: 't',
      secret: SECRET,
      now: NOW,
    });
    expect(headers['x-service-authorization']).toBe('t:c81a681ac6536a069b2984e066a0688845055c21');
  });

  it('leaves the query string out', () => {
    const url = new URL('https://print.example.com/print/v1/api/order?page=2&pagesize=5');
    expect(signaturePath(url)).toBe('/print/v1/api/order');
    expect(signRequest({ method: 'GET', url, token: 't', secret: SECRET, now: NOW })['x-service-authorization']).toBe(
      't:4ec4f8564fca8ac96195fc176103d1f0b37cfbab',
    );
  });

  it('signs a percent-encoded sourceOrderId in its decoded form', () => {
    const url = new URL('https://print.example.com/api/order/bysourceid/');
    url.pathname += encodeURIComponent(ODD_ID);
    expect(url.pathname).toBe('/api/order/bysourceid/demo%20shop-%231001%20caf%C3%A9%20%C3%BC%3F%26%25%2B%20%E6%9D%B1%E4%BA%AC');
    expect(signaturePath(url)).toBe(`/api/order/bysourceid/${ODD_ID}`);
    expect(signRequest({ method: 'GET', url, token: 't', secret: SECRET, now: NOW })['x-service-authorization']).toBe(
      't:a50e94988f7fee56646aa41172ed23be04e15247',
    );
    expect(computeSignature(SECRET, 'PUT', `/api/order/demo-brand/${ODD_ID}/cancel`, DATE)).toBe(
      'c268623896c043fdb3ec0cc4af26adcbecd9510a',
    );
  });

  it('keeps a malformed escape as sent rather than failing', () => {
    expect(signaturePath('/api/order/bysourceid/100%zz')).toBe('/api/order/bysourceid/100%zz');
  });
});

describe('authorization header parsing', () => {
  it('splits token and signature at the last colon', () => {
    expect(parseAuthorization('demo-token:46bf73331022395dce47b8e20e728204ad1b22dd')).toEqual({
      ok: true,
      token: 'demo-token',
      signature: '46bf73331022395dce47b8e20e728204ad1b22dd',
    });
  });

  it.each([
    [undefined, 'missing'],
    ['no-colon', 'TOKEN:SIGNATURE'],
    [':46bf73331022395dce47b8e20e728204ad1b22dd', 'TOKEN:SIGNATURE'],
    ['t:46BF73331022395DCE47B8E20E728204AD1B22DD', 'lower-case hex'],
    ['t:abc', 'lower-case hex'],
  ])('refuses %s', (header, reason) => {
    const parsed = parseAuthorization(header);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('compares signatures exactly', () => {
    expect(signaturesMatch('46bf73331022395dce47b8e20e728204ad1b22dd', '46bf73331022395dce47b8e20e728204ad1b22dd')).toBe(true);
    expect(signaturesMatch('46bf73331022395dce47b8e20e728204ad1b22dd', '46bf73331022395dce47b8e20e728204ad1b22de')).toBe(false);
    expect(signaturesMatch('46bf', '46bf73331022395dce47b8e20e728204ad1b22dd')).toBe(false);
  });
});
