import { describe, expect, it } from 'vitest';
import { ArtworkHostLookupError, artworkHostProblems } from '../../src/mapping/artwork-hosts.js';
import { cachingLookup, HostLookupTimeoutError, type HostLookup } from '../../src/net/host-lookup.js';
import type { PrintOrder } from '../../src/print-service/schema.js';

/**
 * Issue 22 (b): an artwork host name that resolves to a private address was sent to the printer. Just before an
 * order is sent, every distinct host the printer will fetch from is resolved and judged (src/mapping/artwork-hosts.ts).
 */

function printOrder(paths: string[], attachments: string[] = [], localFile?: string): PrintOrder {
  return {
    destination: { name: 'printer' },
    orderData: {
      sourceOrderId: 'acme-1001',
      items: paths.map((path, i) => ({
        sourceItemId: `li-${i}`,
        sku: `PRINT-${i}`,
        components: [{ code: 'cover', path, fetch: true, localFile: false }, ...(localFile ? [{ code: 'inside', path: localFile, fetch: false, localFile: true }] : [])],
      })),
      shipments: [{ shipTo: {}, carrier: { alias: 'standard' }, attachments: attachments.map((path) => ({ path })) }],
    },
  } as unknown as PrintOrder;
}

function table(answers: Record<string, string[] | Error>, calls: string[] = []): HostLookup {
  return async (host) => {
    calls.push(host);
    const answer = answers[host];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (answer instanceof Error) throw answer;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const lookup = table({
  'files.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'inside.example.com': ['10.0.0.5'],
  'loop.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '169.254.169.254'],
  'nat64.example.com': ['64:ff9b::7f00:1'],
  'down.example.com': Object.assign(new Error('getaddrinfo EAI_AGAIN down.example.com'), { code: 'EAI_AGAIN' }),
});

describe('artwork hosts at submission', () => {
  it('accepts an order whose hosts resolve only to public addresses, each host looked up once', async () => {
    const calls: string[] = [];
    const order = printOrder(['https://files.example.com/a.pdf', 'https://FILES.example.com./b.pdf'], ['https://files.example.com/slip.pdf'], 'blank-inside');
    expect(await artworkHostProblems(order, table({ 'files.example.com': ['93.184.216.34'] }, calls))).toEqual([]);
    expect(calls).toEqual(['files.example.com']);
  });

  it.each([
    ['inside.example.com', /resolves to an address that is not public \(10\.0\.0\.5 is a private address\)/],
    ['loop.example.com', /not public \(127\.0\.0\.1 is a loopback address\)/],
    ['mixed.example.com', /169\.254\.169\.254 is a link-local address/],
    ['nat64.example.com', /127\.0\.0\.1 \(NAT64\), a loopback address/],
  ])('holds an order whose host %s resolves inside a network, naming the line item and the host', async (host, reason) => {
    const order = printOrder(['https://files.example.com/a.pdf', `https://${host}/b.pdf`]);
    const problems = await artworkHostProblems(order, lookup, { itemSubjects: ['line item 1 (SKU PRINT-0, "A")', 'line item 2 (SKU PRINT-1, "B")'] });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.subject).toBe('line item 2 (SKU PRINT-1, "B") items[1].components[cover].path');
    expect(problems[0]!.message).toContain(`the artwork host ${host}`);
    expect(problems[0]!.message).toMatch(reason);
  });

  it('judges shipment attachments too, and names items by sourceItemId and SKU without subjects', async () => {
    const problems = await artworkHostProblems(printOrder(['https://loop.example.com/a.pdf'], ['https://inside.example.com/slip.pdf']), lookup);
    expect(problems.map((p) => p.subject)).toEqual(['item li-0 (SKU PRINT-0) items[0].components[cover].path', 'shipments[0].attachments[0].path']);
  });

  it('makes a name that does not exist a problem for the merchant', async () => {
    const problems = await artworkHostProblems(printOrder(['https://typo.example.com/a.pdf']), lookup);
    expect(problems[0]!.message).toMatch(/typo\.example\.com does not exist/);
  });

  it('makes a resolver that cannot answer now a retryable error, not a problem', async () => {
    const failure = await artworkHostProblems(printOrder(['https://down.example.com/a.pdf']), lookup).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ArtworkHostLookupError);
    expect(failure).toMatchObject({ retryable: true, host: 'down.example.com' });
  });

  it('judges an IP literal without a lookup (mapping refuses them before; the check stands on its own)', async () => {
    const problems = await artworkHostProblems(printOrder(['https://[::ffff:10.0.0.1]/a.pdf', 'https://8.8.8.8/b.pdf']), table({}));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/10\.0\.0\.1 \(IPv4-mapped\), a private address/);
  });

  it('accepts private answers only with allowPrivate (the demo), and still refuses names that do not exist', async () => {
    expect(await artworkHostProblems(printOrder(['https://loop.example.com/a.pdf']), lookup, { allowPrivate: true })).toEqual([]);
    expect(await artworkHostProblems(printOrder(['https://typo.example.com/a.pdf']), lookup, { allowPrivate: true })).toHaveLength(1);
  });
});

describe('the lookup port with a deadline and a short memory', () => {
  it('asks once per host within the time kept, again after it', async () => {
    let now = 0;
    const calls: string[] = [];
    const cached = cachingLookup(table({ 'a.example.com': ['93.184.216.34'] }, calls), { ttlMs: 1_000, now: () => now });
    await cached('a.example.com');
    await cached('A.example.com');
    expect(calls).toHaveLength(1);
    now = 1_001;
    await cached('a.example.com');
    expect(calls).toHaveLength(2);
  });

  it('keeps "no such name" but not a failure to answer', async () => {
    const calls: string[] = [];
    const cached = cachingLookup(table({ 'down.example.com': new Error('EAI_AGAIN') }, calls));
    await expect(cached('nx.example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(cached('nx.example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(cached('down.example.com')).rejects.toThrow();
    await new Promise((r) => setImmediate(r));
    await expect(cached('down.example.com')).rejects.toThrow();
    expect(calls).toEqual(['nx.example.com', 'down.example.com', 'down.example.com']);
  });

  it('gives up after its deadline', async () => {
    const cached = cachingLookup(() => new Promise(() => undefined), { timeoutMs: 20 });
    await expect(cached('slow.example.com')).rejects.toBeInstanceOf(HostLookupTimeoutError);
  });

  it('keeps at most maxHosts names', async () => {
    const calls: string[] = [];
    const cached = cachingLookup(async (host) => (calls.push(host), [{ address: '93.184.216.34', family: 4 }]), { maxHosts: 2 });
    for (const host of ['a.com', 'b.com', 'c.com', 'a.com']) await cached(host);
    expect(calls).toEqual(['a.com', 'b.com', 'c.com', 'a.com']);
  });
});
