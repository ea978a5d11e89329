import type { IncomingHttpHeaders } from 'node:http';
import {
  AUTHORIZATION_HEADER,
  DATE_HEADER,
  computeSignature,
  formatServiceDate,
  parseAuthorization,
  parseServiceDate,
  signaturesMatch,
} from '../../print-service/signing.js';
import type { EmulatorAccount } from './accounts.js';

/** How far `x-service-date` may be from the emulator's clock, either way (docs/print-service-api.md). */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

export type AuthResult = { ok: true; account: EmulatorAccount } | { ok: false; message: string };

export class Authenticator {
  private readonly byToken: Map<string, EmulatorAccount>;

  constructor(
    accounts: readonly EmulatorAccount[],
    private readonly now: () => Date,
    private readonly maxSkewMs = MAX_CLOCK_SKEW_MS,
  ) {
    this.byToken = new Map(accounts.map((a) => [a.token, a]));
  }

  /**
   * Checks one request. `signedPath` is the path as the client signs it (percent-decoded, no query string). The
   * messages say what is wrong but never the expected signature.
   */
  authenticate(method: string, signedPath: string, headers: IncomingHttpHeaders): AuthResult {
    const date = headers[DATE_HEADER];
    if (typeof date !== 'string' || date === '') return { ok: false, message: `missing ${DATE_HEADER} header` };
    const when = parseServiceDate(date);
    if (!when) {
      return { ok: false, message: `${DATE_HEADER} must be a UTC date in the form yyyy-mm-dd hh:mm:ss, got ${JSON.stringify(date.slice(0, 40))}` };
    }
    const now = this.now();
    if (Math.abs(now.getTime() - when.getTime()) > this.maxSkewMs) {
      return {
        ok: false,
        message:
          `${DATE_HEADER} ${date} is more than ${this.maxSkewMs / 60000} minutes from the service's clock ` +
          `(${formatServiceDate(now)} UTC); check this machine's clock`,
      };
    }
    const header = headers[AUTHORIZATION_HEADER];
    const parsed = parseAuthorization(typeof header === 'string' ? header : undefined);
    if (!parsed.ok) return { ok: false, message: parsed.reason };
    const account = this.byToken.get(parsed.token);
    if (!account) return { ok: false, message: 'unknown access token' };
    const expected = computeSignature(account.secret, method, signedPath, date);
    if (!signaturesMatch(expected, parsed.signature)) {
      return {
        ok: false,
        message: `signature does not match: sign "${method.toUpperCase()} <path> <date>" with the secret key (path percent-decoded, without the query string)`,
      };
    }
    return { ok: true, account };
  }

  accountByName(name: string): EmulatorAccount | undefined {
    for (const account of this.byToken.values()) if (account.name === name) return account;
    return undefined;
  }
}
