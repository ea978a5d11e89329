import { describe, expect, it } from 'vitest';
import { html, trusted } from '../../src/admin/html.js';
import { SessionSigner } from '../../src/admin/session.js';

describe('html', () => {
  it('escapes every interpolation unless it was built by the tag', () => {
    const name = `<script>alert("x")</script>&'\``;
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}${[1, ' & ', null, undefined, false]}</p>`.value).toBe(
      '<p title="&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#96;"><b>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#96;</b>1 &#38; </p>',
    );
    expect(html`${trusted('<i>ok</i>')}`.value).toBe('<i>ok</i>');
  });
});

describe('SessionSigner', () => {
  let now = Date.parse('2026-11-23T00:00:00Z');
  const signer = new SessionSigner(['admin-token', 'api-secret'], () => new Date(now));

  it('verifies its own sessions until they expire, and nothing altered or signed with other secrets', () => {
    const { session, token } = signer.create({ kind: 'shop', shop: 'a.myshopify.com' }, 60_000);
    expect(signer.verify(token)).toEqual(session);
    const [payload, mac] = token.split('.');
    const forged = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace('shop"', 'operator"')).toString('base64url');
    expect(signer.verify(`${forged}.${mac}`)).toBeUndefined();
    expect(new SessionSigner(['admin-token', 'other-secret']).verify(token)).toBeUndefined();
    expect(signer.verify('')).toBeUndefined();
    expect(signer.verify('garbage')).toBeUndefined();
    now += 60_001;
    expect(signer.verify(token)).toBeUndefined();
  });

  it('binds the CSRF token to the session', () => {
    const a = signer.create({ kind: 'operator' }, 60_000).session;
    const b = signer.create({ kind: 'operator' }, 60_000).session;
    expect(signer.checkCsrf(a, signer.csrfToken(a))).toBe(true);
    expect(signer.checkCsrf(a, signer.csrfToken(b))).toBe(false);
    expect(signer.checkCsrf(a, undefined)).toBe(false);
    expect(signer.checkCsrf(a, ['x'])).toBe(false);
  });

  it('seals texts for a purpose, which never pass as a session or for another purpose', () => {
    const sealed = signer.seal('flash', 'hello', 60_000);
    expect(signer.unseal('flash', sealed)).toBe('hello');
    expect(signer.unseal('other', sealed)).toBeUndefined();
    expect(signer.verify(sealed)).toBeUndefined();
    const { token } = signer.create({ kind: 'operator' }, 60_000);
    expect(signer.unseal('flash', token)).toBeUndefined();
  });

  it('refuses to run without a secret', () => {
    expect(() => new SessionSigner([])).toThrow(/secret/);
    expect(() => new SessionSigner([''])).toThrow(/secret/);
  });
});
