import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * The print service's request signature: `x-service-authorization: TOKEN:hex(HMAC-SHA1(secret, "METHOD path date"))`
 * with `x-service-date: yyyy-mm-dd hh:mm:ss` in UTC. The path is the request URL's path (including any prefix of the
 * base URL), percent-decoded, without the query string. docs/print-service-api.md records why.
 */

export const DATE_HEADER = 'x-service-date';
export const AUTHORIZATION_HEADER = 'x-service-authorization';

export function formatServiceDate(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

const SERVICE_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Parses an `x-service-date` value as UTC; undefined when it is not of the form `yyyy-mm-dd hh:mm:ss`. */
export function parseServiceDate(value: string): Date | undefined {
  const m = SERVICE_DATE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // Reject values that Date.UTC silently rolls over (2026-02-30, 25:00:00).
  return formatServiceDate(date) === value ? date : undefined;
}

/** The path as it is signed: percent-decoded, no query string, no fragment. */
export function signaturePath(url: URL | string): string {
  const pathname = typeof url === 'string' ? new URL(url, 'http://signing.invalid').pathname : url.pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    // A malformed escape cannot be decoded by anyone; signing it as sent keeps both sides consistent.
    return pathname;
  }
}

export function stringToSign(method: string, path: string, date: string): string {
  return `${method.toUpperCase()} ${path} ${date}`;
}

export function computeSignature(secret: string, method: string, path: string, date: string): string {
  return createHmac('sha1', secret).update(stringToSign(method, path, date), 'utf8').digest('hex');
}

// A type alias rather than an interface, so it can be passed where a header record is expected.
export type SignedHeaders = {
  [DATE_HEADER]: string;
  [AUTHORIZATION_HEADER]: string;
};

export function signRequest(input: {
  method: string;
  url: URL | string;
  token: string;
  secret: string;
  now?: Date;
}): SignedHeaders {
  const date = formatServiceDate(input.now ?? new Date());
  const signature = computeSignature(input.secret, input.method, signaturePath(input.url), date);
  return { [DATE_HEADER]: date, [AUTHORIZATION_HEADER]: `${input.token}:${signature}` };
}

/**
 * Signs many requests for one account: the same headers as `signRequest`, with the key prepared once and the date
 * text made once a second (the client signs every request; issue 17 measured both in its profile).
 */
export class RequestSigner {
  private readonly key: KeyObject;
  private second = -1;
  private date = '';

  constructor(
    private readonly token: string,
    secret: string,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** `signedPath` is already percent-decoded, without the query string (see `signaturePath`). */
  sign(method: string, signedPath: string, now: Date): SignedHeaders {
    const ms = now.getTime();
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.date = formatServiceDate(now);
    }
    const signature = createHmac('sha1', this.key).update(stringToSign(method, signedPath, this.date), 'utf8').digest('hex');
    return { [DATE_HEADER]: this.date, [AUTHORIZATION_HEADER]: `${this.token}:${signature}` };
  }
}

export type ParsedAuthorization = { ok: true; token: string; signature: string } | { ok: false; reason: string };

/** Splits `TOKEN:SIGNATURE`; the token itself may not contain a colon, the signature is 40 lower-case hex digits. */
export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  if (!header) return { ok: false, reason: `missing ${AUTHORIZATION_HEADER} header` };
  const at = header.lastIndexOf(':');
  if (at <= 0) return { ok: false, reason: `${AUTHORIZATION_HEADER} must be TOKEN:SIGNATURE` };
  const token = header.slice(0, at);
  const signature = header.slice(at + 1);
  if (!/^[0-9a-f]{40}$/.test(signature)) {
    return { ok: false, reason: `${AUTHORIZATION_HEADER} signature must be 40 lower-case hex digits (HMAC-SHA1)` };
  }
  return { ok: true, token, signature };
}

/** Constant-time comparison of two hex signatures. */
export function signaturesMatch(expected: string, actual: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(actual, 'utf8');
  if (a.length !== b.length) {
    // Still spend the comparison so that the length is the only thing timing can tell.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
