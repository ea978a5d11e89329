import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, printApiSettings, REQUIRED_FOR } from './config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ env: {}, dotenvPath: false });
    expect(config).toMatchObject({
      PORT: 3000,
      REDIS_URL: 'redis://127.0.0.1:6379',
      MAPPINGS_DIR: './mappings',
      LOG_LEVEL: 'info',
      SHOPIFY_API_VERSION: '2026-10',
      SHOPIFY_SCOPES: [
        'read_orders',
        'write_orders',
        'read_merchant_managed_fulfillment_orders',
        'write_merchant_managed_fulfillment_orders',
        'write_fulfillments',
        'write_assigned_fulfillment_orders',
      ],
    });
    expect(config.PRINT_API_BASE_URL).toBeUndefined();
  });

  it('lists every problem at once, hiding secret values', () => {
    let error: unknown;
    try {
      loadConfig({
        env: { PORT: 'eighty', REDIS_URL: 'localhost:6379', PRINT_API_BASE_URL: 'ftp://x', LOG_LEVEL: 'loud', PRINT_API_SECRET: '' },
        require: REQUIRED_FOR.printApi,
        dotenvPath: false,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: must be a port number/),
        expect.stringMatching(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/),
        expect.stringMatching(/^PRINT_API_BASE_URL: must be an http\(s\) URL/),
        expect.stringMatching(/^LOG_LEVEL: /),
        'PRINT_API_TOKEN: required but not set',
        'PRINT_API_SECRET: required but not set',
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it('never echoes a secret in a problem', () => {
    expect(() => loadConfig({ env: { PRINT_API_CONNECT_TIMEOUT_MS: '-1', POSTBACK_TOKEN: 'x' }, dotenvPath: false })).toThrow(
      /PRINT_API_CONNECT_TIMEOUT_MS: must be above 0/,
    );
    for (const env of [{ ADMIN_TOKEN: 'hunter2' }, { ADMIN_TOKEN: 'hunter2-hunter2-hunter2-hunter2-long' }, { POSTBACK_TOKEN: 'hunter2' }]) {
      expect(() => loadConfig({ env, require: ['APP_URL'], dotenvPath: false })).toThrow(ConfigError);
      try {
        loadConfig({ env, require: ['APP_URL'], dotenvPath: false });
      } catch (e) {
        expect((e as Error).message).not.toContain('hunter2');
      }
    }
  });

  it('reads .env, with the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=4100\nPRINT_API_TOKEN=from-file\nPOSTBACK_TOKEN=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb ,,cccccccccccccccccccccccccccccccc\n');
    const config = loadConfig({ env: { PORT: '4200' }, dotenvPath: file });
    expect(config.PORT).toBe(4200);
    expect(config.PRINT_API_TOKEN).toBe('from-file');
    expect(config.POSTBACK_TOKEN).toEqual(['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'cccccccccccccccccccccccccccccccc']);
  });

  it('defaults the orders address to the base address', () => {
    const config = loadConfig({
      env: { PRINT_API_BASE_URL: 'https://api.example.com/v1', PRINT_API_TOKEN: 't', PRINT_API_SECRET: 's' },
      dotenvPath: false,
    });
    expect(printApiSettings(config)).toMatchObject({ baseUrl: 'https://api.example.com/v1', ordersUrl: 'https://api.example.com/v1' });
  });
});
