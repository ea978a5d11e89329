import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, orderTail, sessionToken } from './helpers.js';

/**
 * Who may see and do what under /admin, through the real app: nothing without a session, no POST without the
 * session's CSRF token or from another origin, operators see every shop, an embedded viewer only their own.
 */
describe('admin access', () => {
  let h: Harness;
  const OTHER_SHOP = 'other-store.myshopify.com';
  /** A link with a signed success message, made for SHOP's page by one of the tests. */
  let flashLink = '';
  const held = orderBody([{ sku: 'MUG-1' }]);
  const otherHeld = orderBody([{ sku: 'MUG-2' }]);
  let heldPath: string;
  let otherPath: string;

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN, TRUST_PROXY: '1' } });
    h.standIn.seedOrder(SHOP, held);
    await h.sendWebhook('orders/paid', held);
    const raw = JSON.stringify(otherHeld);
    await fetch(`${h.runtime.url}/webhooks`, {
      method: 'POST',
      body: raw,
      headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop: OTHER_SHOP, webhookId: randomUUID() }),
    });
    await waitFor(async () => (await h.runtime.store.get(SHOP, held.admin_graphql_api_id))?.status === 'held', { what: 'the held order' });
    // The app holds no token for the other shop: its order waits for the store to be connected (DESIGN section 9).
    await waitFor(async () => (await h.runtime.store.get(OTHER_SHOP, otherHeld.admin_graphql_api_id))?.status === 'waiting', { what: "the other shop's waiting order" });
    heldPath = `/admin/orders/${SHOP}/${orderTail(held.admin_graphql_api_id)}`;
    otherPath = `/admin/orders/${OTHER_SHOP}/${orderTail(otherHeld.admin_graphql_api_id)}`;
  });
  afterAll(() => h.close());

  const pages = () => ['/admin', '/admin/problems', '/admin/mappings', heldPath, '/admin/queues', '/admin/queues/api/queues'];
  const actions = () => [`${heldPath}/resubmit`, `${heldPath}/retry`, `${heldPath}/cancel`, '/admin/postbacks/x/dismiss', '/admin/mappings/preview', '/admin/logout'];

  it('refuses every page and action without a session: a login redirect for pages, 401 for the rest', async () => {
    for (const path of pages()) {
      const page = await fetch(`${h.runtime.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      if (path.startsWith('/admin/queues/api')) expect(page.status, path).toBe(401);
      else {
        expect(page.status, path).toBe(303);
        expect(page.headers.get('location')).toBe('/admin/login');
      }
      const api = await fetch(`${h.runtime.url}${path}`, { headers: { accept: 'application/json' }, redirect: 'manual' });
      expect(api.status, path).toBe(401);
    }
    for (const path of actions()) {
      const response = await fetch(`${h.runtime.url}${path}`, { method: 'POST', body: new URLSearchParams({ version: '1' }), redirect: 'manual' });
      expect(response.status, path).toBe(401);
    }
    // A forged cookie is no session.
    const forged = await fetch(`${h.runtime.url}/admin`, { headers: { cookie: 'pb_admin=eyJraW5kIjoib3BlcmF0b3IifQ.AAAA' }, redirect: 'manual' });
    expect(forged.status).toBe(303);
    expect((await h.runtime.store.get(SHOP, held.admin_graphql_api_id))?.status).toBe('held');
  });

  it('logs an operator in only with the configured token, into an HttpOnly SameSite cookie', async () => {
    const wrong = await fetch(`${h.runtime.url}/admin/login`, { method: 'POST', body: new URLSearchParams({ token: 'nope' }), redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const right = await fetch(`${h.runtime.url}/admin/login`, { method: 'POST', body: new URLSearchParams({ token: ADMIN_TOKEN }), redirect: 'manual' });
    expect(right.status).toBe(303);
    expect(right.headers.get('set-cookie')).toMatch(/^pb_admin=[^;]+; Max-Age=\d+; Path=\/admin; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
  });

  it('shows an operator every shop, and refuses a POST without the CSRF token or from another origin', async () => {
    const admin = await AdminClient.login(h.runtime.url!);
    const orders = await admin.page('/admin');
    expect(orders).toContain(held.name);
    expect(orders).toContain(otherHeld.name);
    const before = (await h.runtime.store.get(SHOP, held.admin_graphql_api_id))!;

    const noToken = await admin.post(`${heldPath}/cancel`, { version: String(before.version) });
    expect(noToken.status).toBe(403);
    const wrongToken = await admin.post(`${heldPath}/cancel`, { version: String(before.version), _csrf: 'x'.repeat(43) });
    expect(wrongToken.status).toBe(403);
    const csrf = csrfOf(orders);
    const crossSite = await admin.post(`${heldPath}/cancel`, { version: String(before.version), _csrf: csrf }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await h.runtime.store.get(SHOP, held.admin_graphql_api_id))?.version).toBe(before.version);

    // The dashboard is there for operators, with the queues; its own API calls need a same-origin Origin or Referer.
    const queues = await admin.get('/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    expect(JSON.stringify(await queues.json())).toContain('orders');
    const put = (headers: Record<string, string>) =>
      fetch(`${h.runtime.url}/admin/queues/api/queues/orders/pause`, { method: 'PUT', headers: { cookie: admin.cookie, ...headers }, redirect: 'manual' });
    expect((await put({})).status).toBe(403);
    expect((await put({ referer: 'https://evil.example/admin' })).status).toBe(403);
    expect((await put({ origin: 'https://evil.example' })).status).toBe(403);
    expect(await h.runtime.queues.orders.isPaused()).toBe(false);
  });

  it('records an operator action in the history, and refuses a stale one', async () => {
    const admin = await AdminClient.login(h.runtime.url!);
    const page = await admin.page(otherPath);
    const before = (await h.runtime.store.get(OTHER_SHOP, otherHeld.admin_graphql_api_id))!;
    const response = await admin.post(`${otherPath}/cancel`, { version: String(before.version), _csrf: csrfOf(page) });
    expect(response.status).toBe(303);
    await waitFor(async () => (await h.runtime.store.get(OTHER_SHOP, otherHeld.admin_graphql_api_id))?.status === 'cancelled', { what: 'the cancelled order' });
    const history = await h.runtime.store.history(OTHER_SHOP, otherHeld.admin_graphql_api_id);
    expect(history.find((e) => e.source === 'operator')).toMatchObject({ event: 'cancellation requested by operator' });
    const link = (await h.runtime.store.get(OTHER_SHOP, otherHeld.admin_graphql_api_id))!;
    expect(link.cancelRequested?.by).toBe('operator');

    // The same form again (a double click): the order changed since, so nothing is done, and that is said.
    const again = await admin.post(`${otherPath}/cancel`, { version: String(before.version), _csrf: csrfOf(page) });
    expect(again.status).toBe(303);
    const shown = await admin.page(again.headers.get('location')!);
    expect(shown).toContain('changed since the page was loaded');
    // The signed flash message in that URL is no session.
    const flash = new URL(again.headers.get('location')!, h.runtime.url).searchParams.get('flash')!;
    expect((await fetch(`${h.runtime.url}/admin`, { headers: { cookie: `pb_admin=${flash}` }, redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${h.runtime.url}/admin?id_token=${flash}`, { redirect: 'manual' })).status).toBe(401);
  });

  it('lets an embedded viewer in with a Shopify session token, scoped to their shop, and nothing of ours in its URLs', async () => {
    const token = () => sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' });
    const response = await fetch(`${h.runtime.url}/admin?embedded=1&shop=${SHOP}&host=abc&id_token=${token()}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(held.name);
    expect(page).not.toContain(otherHeld.name);
    expect(page).not.toContain('Connect the store');
    expect(page).toContain('<script src="/admin/assets/embedded.js" defer></script>');
    expect(response.headers.get('content-security-policy')).toContain(`frame-ancestors https://${SHOP} https://admin.shopify.com`);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self' https://cdn.shopify.com");
    expect(response.headers.get('set-cookie')).toBeNull();

    // Links keep the admin's parameters and no secret; followed without a fresh token they go through the bounce page,
    // where App Bridge gets one and reloads the same address.
    const problemsLink = /href="(\/admin\/problems\?[^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&');
    expect(new URLSearchParams(problemsLink.split('?')[1]).toString()).toBe(`shop=${SHOP}&host=abc&embedded=1`);
    expect(page).not.toMatch(/[?&]s=|name="_s"/);
    const bare = await fetch(`${h.runtime.url}${problemsLink}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(bare.status).toBe(302);
    const bounce = new URL(bare.headers.get('location')!, h.runtime.url);
    expect(bounce.pathname).toBe('/auth/session-token');
    expect(bounce.searchParams.get('shopify-reload')).toBe(problemsLink);
    const bouncePage = await fetch(bounce);
    expect(bouncePage.status).toBe(200);
    expect(await bouncePage.text()).toContain('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script>');

    // With a token the shop's own order opens; another shop's order and the operators' dashboard do not.
    const own = await fetch(`${h.runtime.url}${heldPath}?embedded=1&shop=${SHOP}&id_token=${token()}`);
    expect(own.status).toBe(200);
    const ownPage = await own.text();
    expect(ownPage).toContain('Resubmit with current mapping');
    expect((await fetch(`${h.runtime.url}${otherPath}?id_token=${token()}`)).status).toBe(404);
    expect((await fetch(`${h.runtime.url}/admin/queues?id_token=${token()}`)).status).toBe(403);

    // Its forms are sent by the page's script with App Bridge's bearer token and answered with where to go next.
    const other = (await h.runtime.store.get(OTHER_SHOP, otherHeld.admin_graphql_api_id))!;
    const bearer = (body: Record<string, string>, path: string) =>
      fetch(`${h.runtime.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token()}`, accept: 'application/json' }, body: new URLSearchParams(body), redirect: 'manual' });
    const refused = await bearer({ version: String(other.version) }, `${otherPath}/retry`);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: expect.stringContaining('no such page or order') });
    // The page's CSRF token, or a token in the URL, is not enough: an embedded form needs the bearer token.
    const noBearer = await fetch(`${h.runtime.url}${heldPath}/retry?id_token=${token()}`, { method: 'POST', body: new URLSearchParams({ _csrf: csrfOf(ownPage) }), redirect: 'manual' });
    expect(noBearer.status).toBe(403);
    const current = (await h.runtime.store.get(SHOP, held.admin_graphql_api_id))!;
    const done = await bearer({ version: String(current.version) }, `${heldPath}/retry`);
    expect(done.status).toBe(200);
    const { location } = (await done.json()) as { location: string };
    expect(location).toMatch(new RegExp(`^${heldPath}\\?flash=[^&]+&shop=${SHOP.replaceAll('.', '\\.')}&embedded=1$`));
    const shown = await (await fetch(`${h.runtime.url}${location}&id_token=${token()}`)).text();
    expect(shown).toMatch(/<s-banner tone="(success|warning|critical)" id="flash">/);
    flashLink = location;
    const preview = await bearer({ orderId: orderTail(held.admin_graphql_api_id) }, '/admin/mappings/preview');
    expect(preview.status).toBe(200);
    expect(await preview.text()).toContain('MUG-1');
  });

  it("the signed success message (the toast) shows only on the pages of the store it was said to", async () => {
    // The signed success message is sealed for this store: the same link opened on another store's page shows nothing
    // (it was shown there for 60 s, with an order name the first store chose, as the app's own words).
    const flash = new URL(flashLink, h.runtime.url).searchParams.get('flash')!;
    // (A third store: opening the other store's pages would connect it, which the next test needs it not to be.)
    const third = 'third-store.myshopify.com';
    const thirdToken = sessionToken(SHOPIFY_SECRET, { shop: third, apiKey: 'test-key' });
    const elsewhere = await (await fetch(`${h.runtime.url}/admin?embedded=1&shop=${third}&flash=${encodeURIComponent(flash)}&id_token=${thirdToken}`)).text();
    expect(elsewhere).toContain(third);
    expect(elsewhere).not.toContain('id="flash"');
    const operator = await (await AdminClient.login(h.runtime.url!)).page(`/admin?flash=${encodeURIComponent(flash)}`);
    expect(operator).not.toContain('id="flash"');
  });

  it('offers an embedded viewer whose store the app cannot reach yet to connect it, and connects it on the next visit', async () => {
    // Managed install: the visit exchanges its session token for an access token; while Shopify fails to answer, the
    // page says the store is not connected. The injected 503 is aimed at this store's calls, and the earlier tests'
    // Shopify work (the held orders' status syncs) is done first: a trailing call of theirs once took an unaimed 503
    // and the exchange succeeded (seen once on a slow machine).
    await waitForIdle(h);
    h.standIn.failNext(1, 503, { shop: OTHER_SHOP });
    const token = sessionToken(SHOPIFY_SECRET, { shop: OTHER_SHOP, apiKey: 'test-key' });
    const page = await (await fetch(`${h.runtime.url}/admin?id_token=${token}`)).text();
    expect(page).toContain(`href="/auth?shop=${OTHER_SHOP}" target="_top"`);
    expect(page).toContain(otherHeld.name);
    expect(page).not.toContain(held.name);
    const again = await (await fetch(`${h.runtime.url}/admin?id_token=${sessionToken(SHOPIFY_SECRET, { shop: OTHER_SHOP, apiKey: 'test-key' })}`)).text();
    expect(again).not.toContain(`href="/auth?shop=${OTHER_SHOP}"`);
    expect(await h.runtime.sessions.accessToken(OTHER_SHOP)).toBe(h.standIn.accessTokenOf(OTHER_SHOP));
  });

  it('refuses a session token with a wrong signature, an expired one, or one for another app', async () => {
    const tokens = [
      sessionToken('not-the-secret', { shop: SHOP, apiKey: 'test-key' }),
      sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key', expSeconds: -120 }),
      sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'another-app' }),
    ];
    for (const token of tokens) {
      const response = await fetch(`${h.runtime.url}/admin?shop=${SHOP}&id_token=${token}`, { redirect: 'manual' });
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain(held.name);
    }
    // An expired token on an embedded page load goes to the bounce for a fresh one; a forged one never does.
    const expired = sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key', expSeconds: -120 });
    const reload = await fetch(`${h.runtime.url}/admin?embedded=1&shop=${SHOP}&id_token=${expired}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(reload.status).toBe(302);
    expect(new URL(reload.headers.get('location')!, h.runtime.url).searchParams.get('shopify-reload')).toBe(`/admin?embedded=1&shop=${SHOP}`);
    const forged = await fetch(`${h.runtime.url}/admin?embedded=1&shop=${SHOP}&id_token=${tokens[0]}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(forged.status).toBe(401);
    // The bounce is for a store's admin only: no shop, or not a store domain, is the login page.
    expect((await fetch(`${h.runtime.url}/admin?embedded=1&shop=evil.example`, { headers: { accept: 'text/html' }, redirect: 'manual' })).headers.get('location')).toBe('/admin/login');
  });

  it('previews a pasted body with everything from it escaped, and lets an operator dismiss an unreadable postback', async () => {
    const admin = await AdminClient.login(h.runtime.url!);
    const csrf = await admin.csrf('/admin/mappings');
    const body = orderBody([{ sku: 'PRINT-A5', title: '<script>alert(1)</script>' }], { name: '#<img src=x onerror=alert(1)>' });
    const preview = await admin.post('/admin/mappings/preview', { _csrf: csrf, shop: SHOP, body: JSON.stringify(body) });
    expect(preview.status).toBe(200);
    const page = await preview.text();
    expect(page).toContain('&#34;sku&#34;: &#34;PRINT-A5&#34;');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('<img src=x');
    const broken = await admin.post('/admin/mappings/preview', { _csrf: csrf, body: '{"line_items": [' });
    expect(await broken.text()).toContain('The body is not JSON');

    await fetch(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`, { method: 'POST', body: '<b>not an event</b>' });
    const problems = await admin.page('/admin/problems');
    expect(problems).toContain('&#60;b&#62;not an event&#60;/b&#62;');
    const action = /action="(\/admin\/postbacks\/[^"]+\/dismiss)"/.exec(problems)![1]!;
    const embedded = sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' });
    const shopPage = await (await fetch(`${h.runtime.url}/admin/problems?id_token=${embedded}`)).text();
    expect(shopPage).not.toContain('not an event');
    const byShop = await fetch(`${h.runtime.url}${action}`, { method: 'POST', headers: { authorization: `Bearer ${sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' })}` }, redirect: 'manual' });
    expect(byShop.status).toBe(403);
    const dismissed = await admin.post(action, { _csrf: csrfOf(problems) });
    expect(dismissed.status).toBe(303);
    expect(await admin.page(dismissed.headers.get('location')!)).toContain('The postback was dismissed.');
    expect((await h.runtime.store.listUnreadablePostbacks()).entries).toEqual([]);
  });

  it('pages through the orders newest first, 25 a page with a cursor, filters by status, store and date, and searches', async () => {
    for (let i = 0; i < 30; i++) {
      const orderId = `gid://shopify/Order/77${String(i).padStart(3, '0')}`;
      await h.runtime.store.update('paging-store.myshopify.com', orderId, () => ({
        link: { ...h.runtime.store.blank('paging-store.myshopify.com', orderId), orderName: `#P${String(i).padStart(3, '0')}`, status: i % 2 ? 'submitted' : 'pending', sourceOrderId: `paging-${i}` },
      }));
    }
    const admin = await AdminClient.login(h.runtime.url!);
    const names = (page: string) => [...page.matchAll(/>(#P\d{3})</g)].map((m) => m[1]);
    const first = await admin.page('/admin?shop=paging-store.myshopify.com');
    expect(names(first)).toHaveLength(25);
    expect(names(first).slice(0, 3)).toEqual(['#P029', '#P028', '#P027']);
    const next = /href="([^"]*cursor=[^"]+)"/.exec(first)![1]!.replaceAll('&#38;', '&');
    expect(next).toContain('shop=paging-store.myshopify.com');
    const second = await admin.page(next);
    expect(names(second)).toEqual(['#P004', '#P003', '#P002', '#P001', '#P000']);
    expect(second).not.toMatch(/rel="next"/);
    const submitted = await admin.page('/admin?status=submitted&shop=paging-store.myshopify.com');
    expect(names(submitted)).toHaveLength(15);
    expect(submitted).toMatch(/submitted<span class="count">15<\/span>/);
    expect(names(await admin.page('/admin?q=%23P017'))).toEqual(['#P017']);
    expect(names(await admin.page('/admin?q=P017'))).toEqual(['#P017']);
    expect(names(await admin.page('/admin?q=paging-12'))).toEqual(['#P012']);
    const today = new Date().toISOString().slice(0, 10);
    expect(names(await admin.page(`/admin?shop=paging-store.myshopify.com&from=${today}&to=${today}`))).toHaveLength(25);
    expect(names(await admin.page('/admin?shop=paging-store.myshopify.com&to=2000-01-01'))).toEqual([]);
    expect(names(await admin.page('/admin?shop=other.myshopify.com'))).toEqual([]);
    // A status or store not understood falls back to the first page of everything; a date or cursor that is not one is refused, named.
    expect(names(await admin.page('/admin?status=nope&shop=<b>'))).toHaveLength(25);
    const refused = await admin.get('/admin?cursor=%%%&from=yesterday');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/from: must be a real date.*cursor: not a page link/);
  });

  it('slows down guessing the operator token', async () => {
    // A client address of its own (this app is told it runs behind one proxy, TRUST_PROXY=1, and the test is it).
    const attempt = (token: string) =>
      fetch(`${h.runtime.url}/admin/login`, { method: 'POST', body: new URLSearchParams({ token }), headers: { 'x-forwarded-for': '203.0.113.9' }, redirect: 'manual' });
    for (let i = 0; i < 10; i++) expect((await attempt(`guess-${i}`)).status).toBe(401);
    const blocked = await attempt(ADMIN_TOKEN);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('set-cookie')).toBeNull();
    expect((await AdminClient.login(h.runtime.url!)).cookie).toMatch(/^pb_admin=/);
  });
});
