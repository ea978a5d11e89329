import { describe, expect, it } from 'vitest';
import { signQuery, StandInOAuth } from './oauth.js';

/** The stand-in's OAuth grants answer as Shopify documents them (issue 23: expiring offline tokens everywhere). */
const app = { apiKey: 'key', apiSecret: 'secret' };
const SHOP = 'oauth-unit.myshopify.com';
const OFFLINE = 'urn:shopify:params:oauth:token-type:offline-access-token';
const json = (body: Record<string, unknown>) => JSON.stringify({ client_id: app.apiKey, client_secret: app.apiSecret, ...body });

function setup() {
  let now = Date.parse('2026-12-01T10:00:00Z');
  const tokens = new Map<string, string>();
  const oauth = new StandInOAuth(app, () => now, (shop) => tokens.get(shop));
  const answer = (body: Record<string, unknown>) => {
    const result = oauth.answer(SHOP, json(body), 'application/json');
    if (result.issued) tokens.set(result.issued.shop, result.issued.accessToken);
    return result;
  };
  return { oauth, tokens, answer, advance: (ms: number) => (now += ms) };
}

describe('stand-in OAuth', () => {
  it('signs the code redirect as Shopify does, and takes the code once, expiring when asked', () => {
    const { oauth, answer } = setup();
    const authorize = new URLSearchParams({ client_id: 'key', redirect_uri: 'https://app.example/auth/callback', state: 'abc' });
    const back = oauth.authorize(SHOP, authorize);
    if ('error' in back) throw new Error(back.error);
    const query = Object.fromEntries(new URL(back.location).searchParams);
    const { hmac, ...signed } = query;
    expect(hmac).toBe(signQuery(signed, app.apiSecret));
    expect(signed).toMatchObject({ shop: SHOP, state: 'abc' });
    expect(oauth.authorize(SHOP, new URLSearchParams({ client_id: 'other', redirect_uri: 'https://x.example/' }))).toHaveProperty('error');

    const first = answer({ code: query.code, expiring: '1' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ expires_in: 3600, refresh_token: expect.stringMatching(/^shprt_/) });
    expect(answer({ code: query.code, expiring: '1' }).status).toBe(400);

    const plain = oauth.authorize(SHOP, authorize);
    if ('error' in plain) throw new Error(plain.error);
    const nonExpiring = answer({ code: new URL(plain.location).searchParams.get('code'), expiring: '0' });
    expect(nonExpiring.body).not.toHaveProperty('refresh_token');
    expect(oauth.isExpiring(nonExpiring.body.access_token as string)).toBe(false);
  });

  it('exchanges the current non-expiring token once, gives the same pair to a retry for seven days, and refuses an expiring one', () => {
    const { oauth, tokens, answer, advance } = setup();
    tokens.set(SHOP, 'shpat_old');
    const migrate = (token: string) => answer({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: token, subject_token_type: OFFLINE, requested_token_type: OFFLINE, expiring: '1' });

    expect(migrate('shpat_not_this_shops').status).toBe(400);
    const first = migrate('shpat_old');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ expires_in: 3600, refresh_token: expect.stringMatching(/^shprt_/) });
    expect(tokens.get(SHOP)).toBe(first.body.access_token);
    expect(oauth.migratedTokens()).toBe(1);

    // The answer was lost: the same old token gets the same pair.
    advance(3 * 24 * 3600_000);
    const retry = migrate('shpat_old');
    expect(retry.body.access_token).toBe(first.body.access_token);
    expect(retry.body.refresh_token).toBe(first.body.refresh_token);
    expect(oauth.migratedTokens()).toBe(1);

    // The new token is an expiring one: nothing to migrate.
    expect(migrate(first.body.access_token as string).status).toBe(400);

    // Once the pair is refreshed, the old token gets nothing.
    expect(answer({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }).status).toBe(200);
    expect(migrate('shpat_old').status).toBe(400);
  });

  it('ends the retry after seven days', () => {
    const { tokens, answer, advance } = setup();
    tokens.set(SHOP, 'shpat_old');
    const migrate = () => answer({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: 'shpat_old', subject_token_type: OFFLINE, requested_token_type: OFFLINE, expiring: '1' });
    expect(migrate().status).toBe(200);
    advance(7 * 24 * 3600_000 + 1);
    expect(migrate().status).toBe(400);
  });
});
