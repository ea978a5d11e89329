import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * The stand-in's `POST /admin/oauth/access_token`, as Shopify answers it for a managed install: token exchange (an
 * App Bridge session token, signed with the app's secret, becomes an offline access token, expiring with a refresh
 * token when asked) and the refresh grant. It checks what Shopify checks (client id and secret, the session token's
 * signature, audience, destination and lifetime) so that the app's install path is tested against a refusal too.
 */

export interface StandInApp {
  apiKey: string;
  apiSecret: string;
  /** Scopes granted (the app's shopify.app.toml scopes). */
  scopes?: string;
}

export interface IssuedToken {
  shop: string;
  accessToken: string;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const OFFLINE = 'urn:shopify:params:oauth:token-type:offline-access-token';
const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

const requestSchema = z.object({
  client_id: z.string(),
  client_secret: z.string(),
  grant_type: z.string(),
  subject_token: z.string().optional(),
  subject_token_type: z.string().optional(),
  requested_token_type: z.string().optional(),
  expiring: z.union([z.string(), z.number(), z.boolean()]).optional(),
  refresh_token: z.string().optional(),
});

export type OAuthAnswer = { status: number; body: Record<string, unknown>; issued?: IssuedToken; kind: string };

export class StandInOAuth {
  private app: StandInApp | undefined;
  private readonly refreshTokens = new Map<string, { shop: string; expiresAt: number }>();
  private exchanges = 0;

  constructor(app?: StandInApp, private readonly clock: () => number = () => Date.now()) {
    this.app = app;
  }

  configure(app: StandInApp): void {
    this.app = app;
  }

  /** How many token exchanges were answered with a token. */
  exchanged(): number {
    return this.exchanges;
  }

  answer(shop: string | null, rawBody: string, contentType: string | undefined): OAuthAnswer {
    const fail = (status: number, error: string, description: string, kind = 'oauth refused'): OAuthAnswer => ({ status, body: { error, error_description: description }, kind });
    if (!this.app) return fail(400, 'invalid_client', 'stand-in: no app configured (configureApp)');
    if (!shop) return fail(404, 'not_found', 'stand-in: no shop named by the X-Shopify-Shop-Domain or Host header');
    let fields: unknown;
    try {
      fields = contentType?.includes('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(rawBody)) : JSON.parse(rawBody);
    } catch {
      return fail(400, 'invalid_request', 'the body is neither JSON nor a form');
    }
    const parsed = requestSchema.safeParse(fields);
    if (!parsed.success) return fail(400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const request = parsed.data;
    if (!same(request.client_id, this.app.apiKey) || !same(request.client_secret, this.app.apiSecret)) {
      return fail(401, 'invalid_client', 'Client authentication failed: the client id or secret is wrong');
    }
    if (request.grant_type === TOKEN_EXCHANGE) return this.exchange(shop, request);
    if (request.grant_type === 'refresh_token') return this.refresh(shop, request.refresh_token);
    return fail(400, 'unsupported_grant_type', `grant_type ${request.grant_type} is not supported`);
  }

  private exchange(shop: string, request: z.infer<typeof requestSchema>): OAuthAnswer {
    const fail = (description: string): OAuthAnswer => ({ status: 400, body: { error: 'invalid_subject_token', error_description: description }, kind: 'oauth token-exchange refused' });
    if (request.subject_token_type !== ID_TOKEN) return fail(`subject_token_type must be ${ID_TOKEN}`);
    if (request.requested_token_type !== OFFLINE) return fail('the stand-in issues offline access tokens only');
    const claims = verifySessionToken(request.subject_token ?? '', this.app!, this.clock());
    if (typeof claims === 'string') return fail(claims);
    if (claims.dest !== `https://${shop}`) return fail(`the session token is for ${String(claims.dest)}, not https://${shop}`);
    this.exchanges++;
    return { ...this.issue(shop, ['1', 1, true, 'true'].includes(request.expiring ?? '0')), kind: 'oauth token-exchange' };
  }

  private refresh(shop: string, refreshToken: string | undefined): OAuthAnswer {
    const known = refreshToken ? this.refreshTokens.get(refreshToken) : undefined;
    if (!known || known.shop !== shop || known.expiresAt <= this.clock()) {
      return { status: 400, body: { error: 'invalid_grant', error_description: 'the refresh token is unknown, used or expired' }, kind: 'oauth refresh refused' };
    }
    // A refresh token works once: the new pair replaces it.
    this.refreshTokens.delete(refreshToken!);
    return { ...this.issue(shop, true), kind: 'oauth refresh' };
  }

  private issue(shop: string, expiring: boolean): Omit<OAuthAnswer, 'kind'> {
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    const body: Record<string, unknown> = { access_token: accessToken, scope: this.app!.scopes ?? 'read_orders,write_orders' };
    if (expiring) {
      const refreshToken = `shprt_${randomBytes(16).toString('hex')}`;
      this.refreshTokens.set(refreshToken, { shop, expiresAt: this.clock() + REFRESH_TOKEN_SECONDS * 1000 });
      Object.assign(body, { expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken, refresh_token_expires_in: REFRESH_TOKEN_SECONDS });
    }
    return { status: 200, body, issued: { shop, accessToken } };
  }
}

/** The claims of an App Bridge session token (HS256 with the app's secret), or why it is refused. */
export function verifySessionToken(token: string, app: StandInApp, nowMs: number): Record<string, unknown> | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'the session token is not a JWT';
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', app.apiSecret).update(`${header}.${payload}`).digest('base64url');
  if (!same(signature, expected)) return 'the session token is not signed with the app secret';
  let claims: Record<string, unknown>;
  try {
    const alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
    if (alg !== 'HS256') return 'the session token is not HS256';
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'the session token cannot be read';
  }
  const now = Math.floor(nowMs / 1000);
  if (claims.aud !== app.apiKey) return 'the session token is for another app (aud)';
  if (typeof claims.exp !== 'number' || claims.exp <= now - 5) return 'the session token has expired';
  if (typeof claims.nbf === 'number' && claims.nbf > now + 5) return 'the session token is not valid yet';
  if (typeof claims.dest !== 'string') return 'the session token names no shop (dest)';
  return claims;
}

/** An App Bridge session token as Shopify signs one, for tests, the demo and scripted installs. */
export function signSessionToken(app: Pick<StandInApp, 'apiKey' | 'apiSecret'>, shop: string, options: { user?: string; nowMs?: number; lifetimeSeconds?: number } = {}): string {
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ alg: 'HS256', typ: 'JWT' });
  const payload = encode({
    iss: `https://${shop}/admin`,
    dest: `https://${shop}`,
    aud: app.apiKey,
    sub: options.user ?? '42',
    exp: now + (options.lifetimeSeconds ?? 60),
    nbf: now - 1,
    iat: now,
    jti: randomBytes(8).toString('hex'),
    sid: randomBytes(8).toString('hex'),
  });
  return `${header}.${payload}.${createHmac('sha256', app.apiSecret).update(`${header}.${payload}`).digest('base64url')}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
