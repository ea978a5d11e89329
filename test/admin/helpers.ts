import { createHmac } from 'node:crypto';
import { testMapping } from '../helpers/harness.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** A logged-in operator against a running app: keeps the session cookie and reads CSRF tokens from pages. */
export class AdminClient {
  cookie = '';
  constructor(readonly baseUrl: string) {}

  static async login(baseUrl: string, token = ADMIN_TOKEN): Promise<AdminClient> {
    const client = new AdminClient(baseUrl);
    const response = await fetch(`${baseUrl}/admin/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    if (response.status !== 303) throw new Error(`login answered ${response.status}`);
    client.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    return client;
  }

  get(path: string): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, { headers: { cookie: this.cookie, accept: 'text/html' }, redirect: 'manual' });
  }

  async page(path: string): Promise<string> {
    const response = await this.get(path);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return response.text();
  }

  async csrf(path = '/admin'): Promise<string> {
    return csrfOf(await this.page(path));
  }

  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { cookie: this.cookie, origin: this.baseUrl, ...headers },
      redirect: 'manual',
    });
  }
}

export function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

/** A Shopify session token (App Bridge's id_token) signed as Shopify does: HS256 with the app's secret. */
export function sessionToken(secret: string, fields: { shop: string; apiKey: string; expSeconds?: number; sub?: string }): string {
  const now = Math.floor(Date.now() / 1000);
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(
    JSON.stringify({
      iss: `https://${fields.shop}/admin`,
      dest: `https://${fields.shop}`,
      aud: fields.apiKey,
      sub: fields.sub ?? '42',
      exp: now + (fields.expSeconds ?? 60),
      nbf: now - 5,
      iat: now - 5,
      jti: `jti-${now}-${Math.random()}`,
      sid: 'session-id',
    }),
  ).toString('base64url');
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** The numeric tail of an order gid, as the admin URLs use it. */
export function orderTail(gid: string): string {
  return gid.split('/').pop()!;
}

/** The test mapping plus rules that fix the two broken orders: MUG-* and PRINT-POSTER print as PRINT-A5. */
const FIXED_RULES = `  - match: { sku: "MUG-*" }
    sku: "PRINT-A5"
    shipment: "{{ line.vendor | default: 'main' }}"
    components:
      - code: cover
        path: "https://files.example.com/mug.pdf"
  - match: { sku: "PRINT-POSTER" }
    sku: "PRINT-A5"
    components:
      - code: cover
        path: "https://files.example.com/poster.pdf"
`;

export function fixedMapping(validate: boolean): string {
  return testMapping({ validate }).replace('products:\n', `products:\n${FIXED_RULES}`);
}


/**
 * A merchant inside the Shopify admin, for the Settings page's forms: a post as the embedded page's script sends it
 * (App Bridge's bearer token, a JSON answer) and the page they land on (a `location` from a post, with a fresh token).
 */
export function embeddedMerchant(baseUrl: () => string, shop: string, secret: string) {
  const token = () => sessionToken(secret, { shop, apiKey: 'test-key' });
  return {
    post: (path: string, fields: Record<string, string> | [string, string][]) =>
      fetch(`${baseUrl()}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token()}`, accept: 'application/json' }, body: new URLSearchParams(fields), redirect: 'manual' }),
    async page(location = '/admin/settings'): Promise<string> {
      const url = new URL(location, baseUrl());
      url.searchParams.set('embedded', '1');
      url.searchParams.set('shop', shop);
      url.searchParams.set('id_token', token());
      const response = await fetch(url, { headers: { accept: 'text/html' } });
      if (response.status !== 200) throw new Error(`${location}: HTTP ${response.status}`);
      return response.text();
    },
  };
}
