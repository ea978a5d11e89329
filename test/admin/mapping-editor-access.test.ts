import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { connectPrintAccount } from '../../src/shops/setup.js';
import { emulatorOrders, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, sessionToken } from './helpers.js';

/**
 * Issue 22 (items 4 and 5), against the running app: DESIGN section 9, "a merchant edits a mapping only for a store on
 * its own print account and sees only what serves its own store".
 *
 * The operator's mapping file serves three stores and carries notes for the operator. SHOP prints on the operator's
 * account: its merchant may look and preview but every change is refused on the server (403) and changes nothing.
 * OWN_SHOP has a print account of its own: its merchant edits, saves and rolls back, starting from what serves the
 * store. Neither merchant ever receives another store's domain or a comment of the operator's file.
 */
const OWN_SHOP = 'own-account-store.myshopify.com';
const RIVAL = 'rival-store.myshopify.com';
/** Words only the operator's comments contain: none may reach a merchant. */
const OPERATOR_NOTES = ['OPERATOR-ONLY', 'pays late', 'ops@operator.example'];

const OPERATOR_FILE = `# OPERATOR-ONLY: ${RIVAL} pays late; billing questions to ops@operator.example
${testMapping()
  .replace('shops: ["*"]', `shops: ["${SHOP}", "${OWN_SHOP}", "${RIVAL}"]  # OPERATOR-ONLY three stores share this file`)
  .replace('destination: demo-printer', 'destination: demo-printer # OPERATOR-ONLY the cheap printer')
  .replace('sku: "{{ line.sku }}"', `sku: "{% if shop.domain == '${RIVAL}' %}RIVAL-{% endif %}OPF-{{ line.sku }}"`)}`;

const ACCOUNTS = parseAccounts([
  { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: 'a0000000000000000000000a' },
  { name: 'own-brand', token: 'own-token', secret: 'own-secret-0123456789', accountId: 'c3333333333333333333333c' },
]);

describe('the mapping editor for merchants', () => {
  let h: Harness;
  const token = (shop: string) => sessionToken(SHOPIFY_SECRET, { shop, apiKey: 'test-key' });
  /** A merchant's request as the embedded page's script sends it: App Bridge's bearer token, JSON answers. */
  const merchantPost = (shop: string, path: string, fields: Record<string, string>) =>
    fetch(`${h.runtime.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token(shop)}`, accept: 'application/json' }, body: new URLSearchParams(fields), redirect: 'manual' });
  const merchantPage = async (shop: string, path: string) => {
    const response = await fetch(`${h.runtime.url}${path}${path.includes('?') ? '&' : '?'}embedded=1&shop=${shop}&id_token=${token(shop)}`, { headers: { accept: 'text/html' } });
    expect(response.status, path).toBe(200);
    return response.text();
  };
  /** What a merchant must never receive: another store's domain, or the operator's notes. */
  const expectNothingOfOthers = (text: string, what: string) => {
    expect(text, what).not.toContain(RIVAL);
    for (const note of OPERATOR_NOTES) expect(text, what).not.toContain(note);
  };
  const filePath = () => join(h.mappingsDir, 'default.yaml');
  const printed = async (shop: string, body: ReturnType<typeof orderBody>) => {
    h.standIn.seedOrder(shop, body);
    const raw = JSON.stringify(body);
    const sent = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop, webhookId: randomUUID() }) });
    expect(sent.status).toBe(200);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(shop, body.admin_graphql_api_id);
      return l?.printOrderId && l;
    }, { timeoutMs: 20_000, what: `order ${body.name} created at the printer` });
    const [created] = emulatorOrders(h.emulator, link.sourceOrderId!);
    return { account: created!.account.name, sku: (created!.record.orderData as { items: { sku: string }[] }).items[0]!.sku, destination: created!.record.destination.name };
  };

  beforeAll(async () => {
    h = await startHarness({ mapping: OPERATOR_FILE, env: { ADMIN_TOKEN }, emulator: { manual: true, accounts: ACCOUNTS } });
    h.standIn.registerShop(OWN_SHOP, `shpat_${OWN_SHOP}`);
    await h.runtime.sessions.addCustomAppToken(OWN_SHOP, `shpat_${OWN_SHOP}`, h.config.SHOPIFY_SCOPES);
    const connected = await connectPrintAccount(h.runtime.setup, OWN_SHOP, {
      baseUrl: h.emulator.baseUrl,
      ordersUrl: h.emulator.ordersUrl,
      token: 'own-token',
      secret: 'own-secret-0123456789',
      sourceAccount: 'own-brand',
      destination: undefined,
    });
    expect(connected.kind).toBe('saved');
    // One real order of each store, for the previews.
    for (const shop of [SHOP, OWN_SHOP]) h.standIn.seedOrder(shop, orderBody([{ sku: 'PRINT-P1' }]));
  }, 60_000);
  afterAll(() => h?.close());

  it("refuses a merchant on the operator's account every save and rollback (403), changing nothing: the next order maps with the operator's mapping", async () => {
    const page = await merchantPage(SHOP, '/admin/mappings/editor');
    expect(page).toContain('id="read-only"');
    expect(page).toContain('connect your own print account in Settings');
    expect(page).not.toContain('Save as a new version');
    expect(page).not.toContain('/admin/mappings/save');
    expect(page).toMatch(/<textarea id="mapping-yaml"[^>]* readonly>/);

    const fileBefore = readFileSync(filePath(), 'utf8');
    // What an attacker would send: the operator billed for another destination, carrier and SKUs.
    const hostile = testMapping().replace('destination: demo-printer', 'destination: attacker-printer').replace('sku: "{{ line.sku }}"', 'sku: "FREE-{{ line.sku }}"');
    const save = await merchantPost(SHOP, '/admin/mappings/save', { yaml: hostile, note: 'mine now' });
    expect(save.status).toBe(403);
    expect(((await save.json()) as { error: string }).error).toMatch(/Nothing was changed\..*connect your own print account in Settings/);
    const rollback = await merchantPost(SHOP, '/admin/mappings/rollback', { version: '1' });
    expect(rollback.status).toBe(403);
    expect(await h.runtime.shopSettings.mappingVersions(SHOP)).toEqual([]);
    expect((await h.runtime.shopSettings.get(SHOP)).mappingVersion).toBeUndefined();
    expect(readFileSync(filePath(), 'utf8')).toBe(fileBefore);
    expect(await printed(SHOP, orderBody([{ sku: 'PRINT-R1' }]))).toEqual({ account: 'demo-brand', sku: 'OPF-PRINT-R1', destination: 'demo-printer' });

    // The operator keeps full access: stores two versions for the store from the admin.
    const admin = await AdminClient.login(h.runtime.url!);
    const operatorPage = await admin.page(`/admin/mappings/editor?shop=${SHOP}`);
    expect(operatorPage).toContain('Save as a new version');
    // The operator sees their file as it is.
    expect(operatorPage).toContain('OPERATOR-ONLY');
    const operatorVersion = (prefix: string) => `# OPERATOR-ONLY: a version for ${SHOP}, not for ${RIVAL}\n${testMapping().replace('sku: "{{ line.sku }}"', `sku: "${prefix}-{{ line.sku }}"`)}`;
    for (const prefix of ['OP1', 'OP2']) {
      const saved = await admin.post('/admin/mappings/save', { shop: SHOP, yaml: operatorVersion(prefix), note: `operator ${prefix}: see ${RIVAL}`, _csrf: csrfOf(operatorPage) });
      expect(saved.status).toBe(303);
    }
    expect((await h.runtime.shopSettings.get(SHOP)).mappingVersion).toBe(2);

    // The merchant can no more roll the operator's versions back than save one.
    for (const attempt of [
      () => merchantPost(SHOP, '/admin/mappings/rollback', { version: '1' }),
      () => merchantPost(SHOP, '/admin/mappings/save', { yaml: hostile }),
      // Naming the store (or another) in the form changes nothing: a merchant's store is their session's.
      () => merchantPost(SHOP, '/admin/mappings/save', { yaml: hostile, shop: OWN_SHOP }),
    ]) {
      const answer = await attempt();
      expect(answer.status).toBe(403);
    }
    expect((await h.runtime.shopSettings.get(SHOP)).mappingVersion).toBe(2);
    expect(await h.runtime.shopSettings.mappingVersions(SHOP)).toHaveLength(2);
    expect(await h.runtime.shopSettings.mappingVersions(OWN_SHOP)).toEqual([]);
    expect(await printed(SHOP, orderBody([{ sku: 'PRINT-R2' }]))).toEqual({ account: 'demo-brand', sku: 'OP2-PRINT-R2', destination: 'demo-printer' });

    // The operator rolls back from the admin, as before.
    const rolled = await admin.post('/admin/mappings/rollback', { shop: SHOP, version: '1', _csrf: csrfOf(operatorPage) });
    expect(rolled.status).toBe(303);
    expect((await h.runtime.shopSettings.get(SHOP)).mappingVersion).toBe(1);
  }, 60_000);

  it("lets a merchant on the operator's account check and preview (read only), with nothing of other stores in any answer", async () => {
    const page = await merchantPage(SHOP, '/admin/mappings/editor');
    expectNothingOfOthers(page, 'editor page');
    expect(page).toContain('OP1-{{ line.sku }}');
    // The operator's version, as it applies to the store: no comments, the store alone in shops.
    expect(page).not.toContain('Use version');
    for (const version of [1, 2]) expectNothingOfOthers(await merchantPage(SHOP, `/admin/mappings/versions/${version}`), `version ${version}`);

    const text = textareaOf(page);
    const check = await merchantPost(SHOP, '/admin/mappings/check', { yaml: text });
    expect(check.status).toBe(200);
    const checked = await check.text();
    expectNothingOfOthers(checked, 'check');
    expect(JSON.parse(checked)).toEqual({ problems: [] });
    const preview = await merchantPost(SHOP, '/admin/mappings/draft-preview', { yaml: text });
    expect(preview.status).toBe(200);
    const previewed = await preview.text();
    expectNothingOfOthers(previewed, 'draft preview');
    expect(previewed).toContain('OP1-PRINT-');
    // Previewing saved nothing.
    expect(await h.runtime.shopSettings.mappingVersions(SHOP)).toHaveLength(2);
  }, 60_000);

  it('lets a merchant on their own account start from what serves their store (never the file as it is), save and roll back', async () => {
    const page = await merchantPage(OWN_SHOP, '/admin/mappings/editor');
    expectNothingOfOthers(page, 'editor page of a store on its own account');
    expect(page).not.toContain(SHOP);
    expect(page).not.toContain('id="read-only"');
    expect(page).toContain('Save as a new version');
    expect(page).toContain(`shops: [ ${OWN_SHOP} ]`);
    // The template's condition on another store still reads (false for this store, as before).
    expect(page).toContain('another-store.invalid');

    const start = textareaOf(page);
    const preview = await merchantPost(OWN_SHOP, '/admin/mappings/draft-preview', { yaml: start });
    expectNothingOfOthers(await preview.text(), 'draft preview');

    const v1 = await merchantPost(OWN_SHOP, '/admin/mappings/save', { yaml: start.replace('OPF-', 'OWN1-'), note: 'my first' });
    expect(v1.status).toBe(200);
    const v2 = await merchantPost(OWN_SHOP, '/admin/mappings/save', { yaml: start.replace('OPF-', 'OWN2-'), note: 'my second' });
    expect(v2.status).toBe(200);
    expect((await h.runtime.shopSettings.get(OWN_SHOP)).mappingVersion).toBe(2);
    // What was stored is what the merchant saw: nothing of the operator's file came with it.
    expectNothingOfOthers((await h.runtime.shopSettings.mappingVersion(OWN_SHOP, 1))!.yaml, 'stored version 1');
    for (const version of [1, 2]) expectNothingOfOthers(await merchantPage(OWN_SHOP, `/admin/mappings/versions/${version}`), `version ${version}`);

    const rollback = await merchantPost(OWN_SHOP, '/admin/mappings/rollback', { version: '1' });
    expect(rollback.status).toBe(200);
    expect((await h.runtime.shopSettings.get(OWN_SHOP)).mappingVersion).toBe(1);
    const editor = await merchantPage(OWN_SHOP, '/admin/mappings/editor');
    expect(editor).toContain('Use version 2 again');
    expect(editor).toContain('OWN1-');
  }, 60_000);

  it("stops serving a merchant's own mapping when the merchant moves the store to the operator's account", async () => {
    expect((await h.runtime.shopSettings.get(OWN_SHOP)).mappingVersion).toBe(1);
    const removed = await merchantPost(OWN_SHOP, '/admin/settings/account/remove', {});
    expect(removed.status).toBe(200);
    const setup = await h.runtime.shopSettings.get(OWN_SHOP);
    expect(setup.printAccount).toBeUndefined();
    // On the operator's account the operator's mapping decides: the merchant's version no longer serves the store.
    expect(setup.mappingVersion).toBeUndefined();
    expect(await h.runtime.shopSettings.mappingVersions(OWN_SHOP)).toHaveLength(2);
    expect(await printed(OWN_SHOP, orderBody([{ sku: 'PRINT-R3' }]))).toEqual({ account: 'demo-brand', sku: 'OPF-PRINT-R3', destination: 'demo-printer' });
    // And the editor is read-only now.
    expect((await merchantPost(OWN_SHOP, '/admin/mappings/rollback', { version: '1' })).status).toBe(403);
    expect((await h.runtime.shopSettings.get(OWN_SHOP)).mappingVersion).toBeUndefined();
  }, 60_000);
});

/** The editor's text as the page holds it (the app escapes every character that could end an attribute or a tag). */
function textareaOf(page: string): string {
  const escaped = /<textarea id="mapping-yaml"[^>]*>([\s\S]*?)<\/textarea>/.exec(page)![1]!;
  return escaped.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
