import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * The stand-in's OAuth, as Shopify answers it:
 * - the authorization-code grant of the redirect install (`/admin/oauth/authorize` sends the merchant back to the
 *   app's `redirect_uri` with a one-time `code`, signed with the app's secret; `POST /admin/oauth/access_token` with
 *   that code gives an offline token, expiring with a refresh token when `expiring=1` is sent);
 * - token exchange of an App Bridge session token (managed install), expiring when asked;
 * - token exchange of a non-expiring offline token for an expiring one (Shopify's migration to expiring offline
 *   tokens: the old token stops working; a retry with the old token within seven days gets the same pair back, until
 *   that pair is refreshed or replaced);
 * - the refresh grant.
 * It checks what Shopify checks (client id and secret, the code, the session token's signature, audience, destination
 * and lifetime, the old token) so that the app's install paths are tested against a refusal too.
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

/** The access token the stand-in accepts for a shop now (its store's), for the migration grant. */
export type CurrentToken = (shop: string) => string | undefined;

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const OFFLINE = 'urn:shopify:params:oauth:token-type:offline-access-token';
const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const CODE_SECONDS = 600;
/** How long a retry with a migrated non-expiring token gets the same pair back (Shopify's changelog, 2026). */
const MIGRATION_RETRY_MS = 7 * 24 * 3600 * 1000;

const requestSchema = z.object({
  client_id: z.string(),
  client_secret: z.string(),
  grant_type: z.string().optional(),
  code: z.string().optional(),
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
  private readonly codes = new Map<string, { shop: string; expiresAt: number }>();
  /** Access tokens issued as expiring: the migration grant refuses them (they are not non-expiring tokens). */
  private readonly expiring = new Set<string>();
  /** Non-expiring token → the pair it was exchanged for (a lost answer can be asked for again). */
  private readonly migrated = new Map<string, { shop: string; at: number; body: Record<string, unknown> }>();
  private exchanges = 0;
  private migrations = 0;

  constructor(
    app?: StandInApp,
    private readonly clock: () => number = () => Date.now(),
    private readonly currentToken: CurrentToken = () => undefined,
  ) {
    this.app = app;
  }

  configure(app: StandInApp): void {
    this.app = app;
  }

  /** The app's client secret, when an app is configured (fulfillment-service pings are signed with it). */
  appSecret(): string | undefined {
    return this.app?.apiSecret;
  }

  /** How many token exchanges (of session tokens) were answered with a token. */
  exchanged(): number {
    return this.exchanges;
  }

  /** How many non-expiring tokens were exchanged for expiring ones (retries of a lost answer not counted). */
  migratedTokens(): number {
    return this.migrations;
  }

  /** Whether the stand-in issued this access token as an expiring one. */
  isExpiring(accessToken: string): boolean {
    return this.expiring.has(accessToken);
  }

  /**
   * `GET /admin/oauth/authorize` with the merchant approving at once: the address Shopify sends the browser back to
   * (`redirect_uri` with `code`, `hmac`, `host`, `shop`, `state`, `timestamp`), or why it is refused.
   */
  authorize(shop: string, query: URLSearchParams): { location: string } | { error: string } {
    if (!this.app) return { error: 'stand-in: no app configured (configureApp)' };
    if (query.get('client_id') !== this.app.apiKey) return { error: 'Oauth error invalid_request: The client_id is not valid' };
    const redirect = query.get('redirect_uri');
    if (!redirect || !URL.canParse(redirect)) return { error: 'Oauth error invalid_request: The redirect_uri is missing or not valid' };
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { shop, expiresAt: this.clock() + CODE_SECONDS * 1000 });
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString('base64url'),
      shop,
      state: query.get('state') ?? '',
      timestamp: String(Math.floor(this.clock() / 1000)),
    };
    const target = new URL(redirect);
    for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
    target.searchParams.set('hmac', signQuery(params, this.app.apiSecret));
    return { location: target.href };
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
    if (request.grant_type === TOKEN_EXCHANGE && request.subject_token_type === OFFLINE) return this.migrate(shop, request);
    if (request.grant_type === TOKEN_EXCHANGE) return this.exchange(shop, request);
    if (request.grant_type === 'refresh_token') return this.refresh(shop, request.refresh_token);
    if (request.grant_type === undefined && request.code !== undefined) return this.codeGrant(shop, request);
    return fail(400, 'unsupported_grant_type', `grant_type ${request.grant_type ?? '(none)'} is not supported`);
  }

  /** The redirect install's code: once, for the shop it was issued for, within ten minutes. */
  private codeGrant(shop: string, request: z.infer<typeof requestSchema>): OAuthAnswer {
    const known = this.codes.get(request.code!);
    this.codes.delete(request.code!);
    if (!known || known.shop !== shop || known.expiresAt <= this.clock()) {
      return { status: 400, body: { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' }, kind: 'oauth authorization-code refused' };
    }
    return { ...this.issue(shop, isExpiring(request.expiring)), kind: 'oauth authorization-code' };
  }

  /** A non-expiring offline token of this app becomes an expiring one with a refresh token; the old one stops working. */
  private migrate(shop: string, request: z.infer<typeof requestSchema>): OAuthAnswer {
    const fail = (description: string): OAuthAnswer => ({ status: 400, body: { error: 'invalid_subject_token', error_description: description }, kind: 'oauth token migration refused' });
    if (request.requested_token_type !== OFFLINE) return fail('the stand-in issues offline access tokens only');
    if (!isExpiring(request.expiring)) return fail('expiring must be 1 to exchange an offline access token');
    const token = request.subject_token ?? '';
    const earlier = this.migrated.get(token);
    if (earlier) {
      // A lost answer asked for again: the same pair, while it is still the shop's and within seven days.
      const stillCurrent = earlier.shop === shop && this.currentToken(shop) === earlier.body.access_token && earlier.at + MIGRATION_RETRY_MS > this.clock();
      if (!stillCurrent) return fail('the offline access token was already exchanged');
      return { status: 200, body: { ...earlier.body, expires_in: ACCESS_TOKEN_SECONDS }, kind: 'oauth token migration (retry)' };
    }
    if (!token || this.currentToken(shop) !== token) return fail('the offline access token is not valid for this shop');
    if (this.expiring.has(token)) return fail('the offline access token is already an expiring one');
    const issued = this.issue(shop, true);
    this.migrated.set(token, { shop, at: this.clock(), body: issued.body });
    this.migrations++;
    return { ...issued, kind: 'oauth token migration' };
  }

  private exchange(shop: string, request: z.infer<typeof requestSchema>): OAuthAnswer {
    const fail = (description: string): OAuthAnswer => ({ status: 400, body: { error: 'invalid_subject_token', error_description: description }, kind: 'oauth token-exchange refused' });
    if (request.subject_token_type !== ID_TOKEN) return fail(`subject_token_type must be ${ID_TOKEN} or ${OFFLINE}`);
    if (request.requested_token_type !== OFFLINE) return fail('the stand-in issues offline access tokens only');
    const claims = verifySessionToken(request.subject_token ?? '', this.app!, this.clock());
    if (typeof claims === 'string') return fail(claims);
    if (claims.dest !== `https://${shop}`) return fail(`the session token is for ${String(claims.dest)}, not https://${shop}`);
    this.exchanges++;
    return { ...this.issue(shop, isExpiring(request.expiring)), kind: 'oauth token-exchange' };
  }

  /** The app was uninstalled from the shop: its refresh tokens stop working with its access token. */
  revokeShop(shop: string): void {
    for (const [token, owner] of this.refreshTokens) if (owner.shop === shop) this.refreshTokens.delete(token);
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
      this.expiring.add(accessToken);
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

function isExpiring(value: string | number | boolean | undefined): boolean {
  return ['1', 1, true, 'true'].includes(value ?? '0');
}

/** Shopify's HMAC of an OAuth redirect: hex SHA-256 of the sorted query (without `hmac`), keyed with the app's secret. */
export function signQuery(params: Record<string, string>, secret: string): string {
  const sorted = new URLSearchParams(Object.keys(params).sort((a, b) => a.localeCompare(b)).map((key): [string, string] => [key, params[key]!]));
  return createHmac('sha256', secret).update(sorted.toString()).digest('hex');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
