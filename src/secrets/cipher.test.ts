import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretCipher, SecretKeyError } from './cipher.js';

const key = () => randomBytes(32).toString('base64');

describe('SecretCipher', () => {
  it('round-trips, with a fresh IV each time, and hides the text', () => {
    const cipher = new SecretCipher([key()]);
    const a = cipher.encrypt('shpat_secret_token');
    const b = cipher.encrypt('shpat_secret_token');
    expect(a).not.toBe(b);
    expect(a).not.toContain('shpat');
    expect(cipher.decrypt(a)).toEqual({ plain: 'shpat_secret_token', stale: false });
  });

  it('detects tampering', () => {
    const cipher = new SecretCipher([key()]);
    const parts = cipher.encrypt('shpat_secret_token').split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[4] = body.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow(/integrity check/);
  });

  it('rotates: the first key encrypts, every key decrypts, values under an older key are stale', () => {
    const [oldKey, newKey] = [key(), key()];
    const before = new SecretCipher([oldKey]).encrypt('t');
    const rotated = new SecretCipher([newKey, oldKey]);
    expect(rotated.decrypt(before)).toEqual({ plain: 't', stale: true });
    expect(rotated.decrypt(rotated.encrypt('t'))).toEqual({ plain: 't', stale: false });
    expect(() => new SecretCipher([newKey]).decrypt(before)).toThrow(/not in ENCRYPTION_KEY: add that key back/);
  });

  it('refuses a missing or malformed key with what to do', () => {
    expect(() => new SecretCipher([])).toThrow(SecretKeyError);
    expect(() => new SecretCipher(['short'])).toThrow(/openssl rand -base64 32/);
    expect(() => new SecretCipher([Buffer.alloc(16).toString('base64')])).toThrow(/not 32 bytes/);
  });
});
