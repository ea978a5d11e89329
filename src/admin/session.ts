import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Admin sessions are stateless: a JSON payload and its HMAC-SHA256, base64url, signed with a key derived from the
 * app's secrets. The operator's travels in an HttpOnly cookie; an embedded shop viewer's travels in the page's links
 * and forms (the Shopify admin iframe cannot count on third-party cookies). The CSRF token of a session is an HMAC of
 * its random id, so it needs no storage either.
 */

export const OPERATOR_SESSION_MS = 12 * 3600_000;
/** Short: the token is in URLs. Shopify admin hands a fresh session token each time the app is opened. */
export const SHOP_SESSION_MS = 3600_000;

const sessionSchema = z.object({
  kind: z.enum(['operator', 'shop']),
  /** The shop an embedded viewer is scoped to. */
  shop: z.string().optional(),
  /** Shopify user id (`sub`) of an embedded viewer, for the history. */
  user: z.string().optional(),
  sid: z.string().min(16),
  exp: z.number().int(),
});
export type AdminSession = z.infer<typeof sessionSchema>;

export class SessionSigner {
  private readonly key: Buffer;

  /** `secrets` are the configured secrets the key derives from (ADMIN_TOKEN, SHOPIFY_API_SECRET); none may be empty. */
  constructor(secrets: readonly string[], private readonly clock: () => Date = () => new Date()) {
    if (secrets.length === 0 || secrets.some((s) => !s)) throw new Error('admin sessions need a configured secret');
    this.key = createHash('sha256').update(`print-bridge admin session\0${secrets.join('\0')}`).digest();
  }

  create(fields: { kind: 'operator' | 'shop'; shop?: string; user?: string }, lifetimeMs: number): { session: AdminSession; token: string } {
    const session: AdminSession = { ...fields, sid: randomBytes(16).toString('base64url'), exp: this.clock().getTime() + lifetimeMs };
    return { session, token: this.sign(session) };
  }

  sign(session: AdminSession): string {
    const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
    return `${payload}.${this.mac(`session:${payload}`)}`;
  }

  /** The session when the token is intact and not expired; undefined otherwise. */
  verify(token: string | undefined): AdminSession | undefined {
    if (!token || token.length > 4096) return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = token.slice(0, dot);
    if (!equalText(token.slice(dot + 1), this.mac(`session:${payload}`))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const result = sessionSchema.safeParse(parsed);
    if (!result.success || result.data.exp <= this.clock().getTime()) return undefined;
    return result.data;
  }

  /**
   * Signs a short text for a purpose other than a session (a flash message in a redirect URL). The purpose is part
   * of what is signed, so a sealed text can never pass as a session, nor a session as a sealed text.
   */
  seal(purpose: string, text: string, lifetimeMs: number): string {
    const payload = Buffer.from(JSON.stringify({ text, exp: this.clock().getTime() + lifetimeMs })).toString('base64url');
    return `${payload}.${this.mac(`sealed:${purpose}:${payload}`)}`;
  }

  unseal(purpose: string, sealed: string | undefined): string | undefined {
    if (!sealed || sealed.length > 8192) return undefined;
    const dot = sealed.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = sealed.slice(0, dot);
    if (!equalText(sealed.slice(dot + 1), this.mac(`sealed:${purpose}:${payload}`))) return undefined;
    try {
      const parsed = z.object({ text: z.string(), exp: z.number() }).parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      return parsed.exp > this.clock().getTime() ? parsed.text : undefined;
    } catch {
      return undefined;
    }
  }

  csrfToken(session: AdminSession): string {
    return this.mac(`csrf:${session.sid}`);
  }

  checkCsrf(session: AdminSession, token: unknown): boolean {
    return typeof token === 'string' && equalText(token, this.csrfToken(session));
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}

/** Constant-time comparison of two texts (of any lengths: hashing first hides the length too). */
export function equalText(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
