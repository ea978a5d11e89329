import { describe, expect, it } from 'vitest';
import { accountAddressProblem, isBlockedAddress, publicOnlyLookup, publicOnlyLookupVia } from '../../src/shops/account-address.js';
import { connectPrintAccount, type SetupDeps } from '../../src/shops/setup.js';

/**
 * A merchant's print account is an address the app will call from inside the operator's network: only https to a
 * public host name, and no connection to a private, loopback or link-local address whatever the name resolves to.
 */
describe("a merchant's print-service address", () => {
  it.each([
    ['http://print.example.com/api', /https/],
    ['https://127.0.0.1/api', /not an IP address/],
    ['https://[::1]/api', /not an IP address/],
    ['https://2130706433/api', /not an IP address/],
    ['https://169.254.169.254/latest/meta-data', /not an IP address/],
    ['https://localhost/api', /not a public host name/],
    ['https://metadata.google.internal/', /not a public host name/],
    ['https://printer/', /not a public host name/],
    ['https://user:pw@print.example.com/', /user name or password/],
    ['not a url', /absolute URL/],
  ])('refuses %s', (value, reason) => {
    expect(accountAddressProblem(value, 'Base URL')).toMatch(reason);
  });

  it('accepts https to a public name', () => {
    expect(accountAddressProblem('https://orders.print-company.com/api/v2', 'Base URL')).toBeUndefined();
  });

  it('blocks private, loopback, link-local, CGNAT and unique-local addresses, mapped ones too', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34']) expect(isBlockedAddress(address), address).toBe(false);
  });

  it('blocks IPv6 addresses carrying a private IPv4 address, and site-local ones (issue 22)', () => {
    for (const address of ['64:ff9b::7f00:1', '2002:7f00:1::', '::127.0.0.1', 'fec0::1', '2001:0:4136:e378:8000:63bf:80ff:fffe']) expect(isBlockedAddress(address), address).toBe(true);
    for (const address of ['64:ff9b::5db8:d822', '2002:5db8:d822::1']) expect(isBlockedAddress(address), address).toBe(false);
  });

  it('refuses a connection whenever any answer of the lookup port is not public, and passes public ones on', async () => {
    const lookup = publicOnlyLookupVia(async (host) => (host === 'inside.example.com' ? [{ address: '93.184.216.34', family: 4 }, { address: '64:ff9b::a00:5', family: 6 }] : [{ address: '93.184.216.34', family: 4 }]));
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('inside.example.com', {}, (e) => resolve(e)));
    expect(refused?.message).toMatch(/64:ff9b::a00:5 is 10\.0\.0\.5 \(NAT64\), a private address/);
    const answer = await new Promise<unknown>((resolve) => lookup('files.example.com', { all: true }, (e, a) => resolve(e ?? a)));
    expect(answer).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses a connection to a name that resolves to a loopback address', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicOnlyLookup('localhost', {}, (e) => resolve(e)));
    expect(error?.message).toMatch(/may not reach/);
  });

  it('is refused in the app before any call is made, and trusted from the operator', async () => {
    const calls: string[] = [];
    const deps = {
      restrictAccountAddresses: true,
      checkAccount: async (a: { baseUrl: string }) => (calls.push(a.baseUrl), { ok: true, message: 'ok', at: '' }),
      settings: { setPrintAccount: async () => ({ shop: 's', mode: 'test', revision: 1 }) },
      invalidate: () => undefined,
      reexamine: async () => undefined,
      clock: () => new Date(),
    } as unknown as SetupDeps;
    const input = { baseUrl: 'http://127.0.0.1:6379', token: 't', secret: 's', sourceAccount: 'a', destination: undefined };
    const refused = await connectPrintAccount(deps, 's.myshopify.com', input);
    expect(refused).toMatchObject({ kind: 'refused', check: { ok: false, message: expect.stringMatching(/https/) } });
    expect(calls).toEqual([]);
    const operator = await connectPrintAccount({ ...deps, restrictAccountAddresses: false }, 's.myshopify.com', input);
    expect(operator.kind).toBe('saved');
    expect(calls).toEqual(['http://127.0.0.1:6379']);
  });
});
