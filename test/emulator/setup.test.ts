import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram, runCli } from '../../src/cli.js';
import { DEFAULT_ACCOUNTS, loadAccountsFile, parseAccounts } from '../../src/dev/emulator/accounts.js';
import { loadTriggersFile, parseTriggers } from '../../src/dev/emulator/triggers.js';
import { call } from './helpers.js';

/** The accounts and triggers files, the command line, and a start as a new user would do it. */

const dir = mkdtempSync(join(tmpdir(), 'emulator-setup-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('accounts file', () => {
  it('names the file and every problem', () => {
    const path = file(
      'accounts.json',
      JSON.stringify([
        { name: 'a', token: 't:1', secret: 's', accountId: 'aaaaaaaaaaaaaaaaaaaaaaaa' },
        { name: 'a', token: 't2', secret: '', accountId: 'XYZ', destinations: [{ skus: ['x'] }] },
      ]),
    );
    expect(() => loadAccountsFile(path)).toThrow(
      [
        `${path}: [0].token: must not contain ":" (the authorization header is TOKEN:SIGNATURE)`,
        `${path}: [1].secret: must not be empty`,
        `${path}: [1].accountId: must be 24 lower-case hexadecimal characters`,
        `${path}: [1].destinations[0].name: required`,
      ].join('\n'),
    );
  });

  it('refuses duplicates, an empty list, bad JSON and a missing file', () => {
    const twice = { name: 'a', token: 't', secret: 's', accountId: 'aaaaaaaaaaaaaaaaaaaaaaaa' };
    expect(() => parseAccounts([twice, { ...twice, accountId: 'bbbbbbbbbbbbbbbbbbbbbbbb' }], 'accounts.json')).toThrow(
      'accounts.json: [1].name: must be unique; [0] has the same name\naccounts.json: [1].token: must be unique; [0] has the same token',
    );
    expect(() => parseAccounts([], 'accounts.json')).toThrow('accounts.json: must list at least one account');
    expect(() => parseAccounts({ name: 'x' }, 'accounts.json')).toThrow('accounts.json: must be an array, got an object');
    const broken = file('broken.json', '[\n  {"name": }\n]');
    expect(() => loadAccountsFile(broken)).toThrow(new RegExp(`^${broken}: not valid JSON: Unexpected token`));
    expect(() => loadAccountsFile(join(dir, 'nope.json'))).toThrow(`${join(dir, 'nope.json')}: cannot read the file: no such file`);
  });

  it('has the documented demo account by default', () => {
    expect(parseAccounts(DEFAULT_ACCOUNTS)).toEqual([
      {
        name: 'demo-brand',
        token: 'demo-token',
        secret: 'demo-secret',
        accountId: '64656d6f2d6272616e642d31',
        destinations: new Map([['demo-printer', { name: 'demo-printer', skus: undefined }]]),
        carriers: undefined,
      },
    ]);
  });
});

describe('triggers file', () => {
  it('names the file, the entry and the problem', () => {
    const path = file(
      'triggers.json',
      JSON.stringify([
        { event: 'Order Received', url: 'http://127.0.0.1:1/x', template: '{}' },
        { event: 'Order Shipped', url: 'ftp://x', template: '{}', headers: { 'bad header': 'x' } },
      ]),
    );
    expect(() => loadTriggersFile(path)).toThrow(
      [
        `${path}: [1].event: must be one of "Order Received", "Order Errored", "Order Cancelled", "Order Print Ready", "Shipment Shipped", "Order Submission Error"`,
        `${path}: [1].url: must be an http(s) URL`,
        `${path}: [1].headers["bad header"]: must be a valid HTTP header name`,
      ].join('\n'),
    );
  });

  it('parses every template at load and refuses a syntax error or an unknown filter', () => {
    expect(() => parseTriggers([{ event: 'Order Received', url: 'http://h/x', template: '{{ _id ' }], 'triggers.json')).toThrow(
      /^triggers\.json: \[0\]\.template: output "{{ _id " not closed/,
    );
    expect(() => parseTriggers([{ event: 'Order Received', url: 'http://h/x', template: '{{ _id | jsn }}' }], 'triggers.json')).toThrow(
      /^triggers\.json: \[0\]\.template: undefined filter: jsn/,
    );
  });
});

describe('print-bridge emulator', () => {
  it('documents every flag in --help', () => {
    const help = buildProgram().commands.find((c) => c.name() === 'emulator')!.helpInformation();
    for (const flag of [
      '--port', '--orders-port', '--host', '--accounts', '--triggers', '--profile', '--fetch ', '--fetch-timeout', '--speed', '--manual',
      '--received-delay', '--print-ready-delay', '--ship-delay', '--fail-rate', '--drop-rate', '--seed', '--delivery-attempts',
      '--delivery-backoff', '--delivery-timeout', '--quiet',
    ]) {
      expect(help).toContain(flag);
    }
  });

  it('stops with a message naming a malformed accounts or triggers file, or a bad flag', async () => {
    const accounts = file('bad-accounts.json', '[{"name": "x"}]');
    const stderr: string[] = [];
    const io = { stderr: (s: string) => void stderr.push(s) };
    expect(await runCli(['emulator', '--port', '0', '--accounts', accounts], io)).toBe(1);
    expect(stderr.join('')).toContain(`${accounts}: [0].token: required`);
    const triggers = file('bad-triggers.json', '[{"event": "Order Received", "url": "http://x/y"}]');
    expect(await runCli(['emulator', '--port', '0', '--triggers', triggers], io)).toBe(1);
    expect(stderr.join('')).toContain(`${triggers}: [0].template: required`);
    expect(await runCli(['emulator', '--fail-rate', '2'], io)).toBe(1);
    expect(stderr.join('')).toContain('--fail-rate: must be from 0 to 1 (got "2")');
  });

  it('starts as a new user would start it, prints what to set, answers, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/print-bridge.js', 'emulator', '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 15_000;
      while (!out.includes('Ctrl-C') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('PRINT_API_TOKEN=demo-token');
      expect(out).toContain('PRINT_API_SECRET=demo-secret');
      expect(out).toContain('PRINT_SOURCE_ACCOUNT=demo-brand');
      const baseUrl = /PRINT_API_BASE_URL=(\S+)/.exec(out)?.[1];
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(out).toContain(`PRINT_API_ORDERS_URL=${baseUrl}`);
      const res = await call(baseUrl!, 'GET', '/api/order');
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('stopping');
  });
});
