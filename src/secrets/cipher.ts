import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (Shopify access tokens; print-service secrets next): AES-256-GCM with a random 12-byte IV, under
 * `ENCRYPTION_KEY`. The key is a list: the first encrypts, every one decrypts, so a key is rotated by putting the new
 * one first, letting values be rewritten (each is re-encrypted with the first key when it is next read), then
 * removing the old one. Each value names its key by a short id (a hash of the key, never the key), so a value under
 * a key that is no longer configured says which.
 *
 *   v1.<key id>.<iv>.<tag>.<ciphertext>      (base64url parts)
 */

const VERSION = 'v1';

export class SecretKeyError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

interface Key {
  id: string;
  bytes: Buffer;
  /** The key as node:crypto holds it, made once: making it from the bytes on every decrypt showed in profiles (issue 27). */
  object: KeyObject;
}

/** The keys of ENCRYPTION_KEY (base64 of 32 bytes each), or the reason one is unusable. */
export function parseEncryptionKeys(values: readonly string[]): Key[] {
  return values.map((value, index) => {
    const bytes = Buffer.from(value.trim(), 'base64');
    if (bytes.length !== 32 || bytes.toString('base64').replace(/=+$/, '') !== value.trim().replace(/=+$/, '')) {
      throw new SecretKeyError(`ENCRYPTION_KEY entry ${index + 1} is not 32 bytes of base64 (make one with: openssl rand -base64 32)`);
    }
    return { id: createHash('sha256').update(bytes).digest('base64url').slice(0, 8), bytes, object: createSecretKey(bytes) };
  });
}

export class SecretCipher {
  private readonly keys: Key[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new SecretKeyError('ENCRYPTION_KEY is not set: secrets cannot be stored (make one with: openssl rand -base64 32)');
    this.keys = parseEncryptionKeys(keys);
  }

  static isEncrypted(value: string): boolean {
    return value.startsWith(`${VERSION}.`);
  }

  encrypt(plain: string): string {
    const key = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.object, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** The plain text, and whether it should be stored again (a value under an older key). */
  decrypt(value: string): { plain: string; stale: boolean } {
    const [version, keyId, iv, tag, body] = value.split('.');
    if (version !== VERSION || !keyId || !iv || !tag || body === undefined) throw new SecretKeyError('a stored secret is not in the expected form (v1.<key>.<iv>.<tag>.<data>)');
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) throw new SecretKeyError(`a stored secret was encrypted with key ${keyId}, which is not in ENCRYPTION_KEY: add that key back (after the current one) to read it`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.object, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      return { plain, stale: key !== this.keys[0] };
    } catch {
      throw new SecretKeyError(`a stored secret under key ${keyId} failed its integrity check: it was altered, or the key is not the one it was written with`);
    }
  }
}
