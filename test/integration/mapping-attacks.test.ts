import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answering, emulatorOrders, orderBody, SHOP, startHarness, testMapping, waitFor, type Harness } from '../helpers/harness.js';

/**
 * Issue 12 items 4 and 5 against the running app (real Redis, the emulator, the Admin stand-in): a cart property
 * that points the printer at the cloud metadata service, and a mapping edit that tries to read the server's files.
 */

const ARTWORK_FROM_PROPERTY = testMapping().replace('path: "https://files.example.com/{{ line.sku }}.pdf"', 'path: "{{ line.properties._artwork_url }}"');

let h: Harness;
beforeAll(async () => {
  // Public names that resolve inside a network (issue 22 b); every other name resolves to a public address.
  h = await startHarness({
    mapping: ARTWORK_FROM_PROPERTY,
    lookup: answering({ 'art.inside-pointing.com': ['10.0.0.5'], 'art.loopback-pointing.com': ['127.0.0.1'], 'art.no-such-host.com': [] }),
  });
});
afterAll(async () => {
  await h?.close();
});

describe('mapping attacks against the running app', () => {
  it('holds an order whose artwork URL points at the metadata service; nothing reaches the printer', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    (body.line_items[0] as { properties: unknown[] }).properties = [{ name: '_artwork_url', value: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }];
    h.standIn.seedOrder(SHOP, body);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'the order held' });
    expect(link.problems).toHaveLength(1);
    expect(link.problems[0]!.subject).toContain('SKU PRINT-A5');
    expect(`${link.problems[0]!.subject} ${link.problems[0]!.message}`).toMatch(/components\[cover\]\.path/);
    expect(link.problems[0]!.message).toMatch(/https/);
    expect(emulatorOrders(h.emulator, `acme-print-test-${body.order_number}`)).toHaveLength(0);
    expect(h.emulator.store.all().filter((o) => JSON.stringify(o).includes('169.254.169.254'))).toHaveLength(0);
  });

  it('refuses a mapping edit that includes a server file, keeps the last good version, and says where', async () => {
    writeFileSync(join(h.mappingsDir, '.env'), 'PRINT_API_SECRET=server-secret-value\n');
    writeFileSync(join(h.mappingsDir, 'default.yaml'), ARTWORK_FROM_PROPERTY.replace('sku: "{{ line.sku }}"', `sku: "{% include '.env' %}"`));
    const ready = await waitFor(async () => {
      const answer = await fetch(`${h.runtime.url}/readyz`);
      const text = await answer.text();
      return text.includes('include') && text;
    }, { what: 'readiness to report the refused file', timeoutMs: 10_000 });
    expect(ready).toMatch(/default\.yaml:\d+:\d+/);
    expect(ready).not.toContain('server-secret-value');

    const body = orderBody([{ sku: 'PRINT-A4' }]);
    (body.line_items[0] as { properties: unknown[] }).properties = [{ name: '_artwork_url', value: 'https://files.example.com/a4.pdf' }];
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order submitted with the last good mapping' });
    const sent = emulatorOrders(h.emulator, `acme-print-test-${body.order_number}`);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).not.toContain('server-secret-value');
    expect(JSON.stringify(sent[0])).toContain('"sku":"PRINT-A4"');
  });

  const orderWithArtwork = async (url: string) => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    (body.line_items[0] as { properties: unknown[] }).properties = [{ name: '_artwork_url', value: url }];
    h.standIn.seedOrder(SHOP, body);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    return body;
  };

  it.each([
    ['art.inside-pointing.com', '10.0.0.5 is a private address'],
    ['art.loopback-pointing.com', '127.0.0.1 is a loopback address'],
  ])('holds an order whose artwork host %s resolves inside a network; nothing is created at the printer', async (host, reason) => {
    const body = await orderWithArtwork(`https://${host}/covers/a5.pdf`);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'the order held' });
    expect(link.problems).toHaveLength(1);
    expect(link.problems[0]!.kind).toBe('mapping');
    expect(link.problems[0]!.subject).toContain(`line item ${body.line_items[0]!.id}`);
    expect(link.problems[0]!.subject).toContain('SKU PRINT-A5');
    expect(link.problems[0]!.subject).toContain('components[cover].path');
    expect(link.problems[0]!.message).toContain(`the artwork host ${host}`);
    expect(link.problems[0]!.message).toContain(reason);
    expect(emulatorOrders(h.emulator, `acme-print-test-${body.order_number}`)).toHaveLength(0);
    expect(h.emulator.store.all().filter((o) => JSON.stringify(o).includes(host))).toHaveLength(0);
  });

  it('holds an order whose artwork host does not exist, saying so', async () => {
    const body = await orderWithArtwork('https://art.no-such-host.com/a5.pdf');
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'the order held' });
    expect(link.problems[0]!.message).toMatch(/art\.no-such-host\.com does not exist/);
    expect(emulatorOrders(h.emulator, `acme-print-test-${body.order_number}`)).toHaveLength(0);
  });

  it('sends an order whose artwork host resolves to a public address', async () => {
    const body = await orderWithArtwork('https://cdn.public-artwork.com/a5.pdf');
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order submitted' });
    const sent = emulatorOrders(h.emulator, `acme-print-test-${body.order_number}`);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).toContain('https://cdn.public-artwork.com/a5.pdf');
  });
  it("names no store and no server path in /readyz, which anyone can read", async () => {
    // Two files claiming one store: the problem names the store and the other file (security review).
    const claims = testMapping().replace('shops: ["*"]', 'shops: ["big-client-of-operator.myshopify.com"]');
    writeFileSync(join(h.mappingsDir, 'client-a.yaml'), claims);
    writeFileSync(join(h.mappingsDir, 'client-a-copy.yaml'), claims);
    const ready = await waitFor(async () => {
      const text = await (await fetch(`${h.runtime.url}/readyz`)).text();
      return text.includes('also claimed') && text;
    }, { what: 'readiness to report the conflict', timeoutMs: 10_000 });
    expect(ready).toMatch(/client-a(-copy)?\.yaml:\d+:\d+/);
    expect(ready).not.toContain('big-client-of-operator');
    expect(ready).not.toContain(h.mappingsDir);
  });
});
