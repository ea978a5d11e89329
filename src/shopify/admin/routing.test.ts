import { afterEach, describe, expect, it } from 'vitest';
import { adminApiRouteFor, clearAdminApiRoutes, configureAdminApiOrigin, routeAdminApi } from './routing.js';

afterEach(() => clearAdminApiRoutes());

describe('Admin API origin routing', () => {
  it('leaves every call to Shopify until a route is set', () => {
    expect(adminApiRouteFor('https://a.myshopify.com/admin/api/2026-01/graphql.json')).toBeUndefined();
    expect(configureAdminApiOrigin({})).toBeUndefined();
  });

  it('sends Admin API paths of any shop to SHOPIFY_ADMIN_API_ORIGIN, keeping path and query', () => {
    expect(configureAdminApiOrigin({ SHOPIFY_ADMIN_API_ORIGIN: 'http://127.0.0.1:4020/' })).toBe('http://127.0.0.1:4020');
    expect(adminApiRouteFor('https://A.myshopify.com/admin/api/2026-01/graphql.json')).toEqual({
      target: 'http://127.0.0.1:4020/admin/api/2026-01/graphql.json',
      shop: 'a.myshopify.com',
    });
    expect(adminApiRouteFor('https://a.myshopify.com/admin/oauth/access_token?x=1')!.target).toBe(
      'http://127.0.0.1:4020/admin/oauth/access_token?x=1',
    );
    // Not the Admin API: untouched.
    expect(adminApiRouteFor('https://a.myshopify.com/api/2026-01/graphql.json')).toBeUndefined();
  });

  it('lets a shop have its own route, which wins over the default', () => {
    routeAdminApi('http://127.0.0.1:4020');
    routeAdminApi('http://127.0.0.1:5050', 'b.myshopify.com');
    expect(adminApiRouteFor('https://b.myshopify.com/admin/api/unstable/graphql.json')!.target).toMatch(/^http:\/\/127\.0\.0\.1:5050\//);
    expect(adminApiRouteFor('https://c.myshopify.com/admin/api/unstable/graphql.json')!.target).toMatch(/^http:\/\/127\.0\.0\.1:4020\//);
    clearAdminApiRoutes('b.myshopify.com');
    expect(adminApiRouteFor('https://b.myshopify.com/admin/api/unstable/graphql.json')!.target).toMatch(/:4020\//);
  });

  it('refuses an origin that is not an http(s) URL', () => {
    expect(() => routeAdminApi('127.0.0.1:4020')).toThrow(/SHOPIFY_ADMIN_API_ORIGIN/);
  });
});
