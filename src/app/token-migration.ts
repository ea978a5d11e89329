import type { ShopSessions } from '../shopify/sessions.js';

/**
 * `print-bridge shops migrate-tokens`: every store whose stored offline token is a non-expiring one from OAuth or token
 * exchange gets it exchanged for an expiring one with a refresh token (Shopify's token exchange of the old token).
 * Shopify refuses non-expiring offline tokens of public apps from 1 January 2027. A custom app's token (`shops add`)
 * is left as it is: the rule does not apply to custom apps. Running it again does nothing for a store already done.
 */

export interface TokenMigrationReport {
  /** One line per store, in words. */
  lines: string[];
  summary: string;
  migrated: number;
  /** Stores still holding a non-expiring token after the run (refused or failed; with --dry-run, every one found). */
  left: string[];
}

export async function migrateStoredTokens(sessions: ShopSessions, options: { dryRun?: boolean } = {}): Promise<TokenMigrationReport> {
  const lines: string[] = [];
  const left: string[] = [];
  const count = { migrated: 0, expiring: 0, custom: 0, refused: 0, failed: 0, pending: 0 };
  for (const shop of await sessions.installedShops()) {
    const kind = await sessions.tokenKind(shop).catch((error: Error) => error);
    if (kind instanceof Error) {
      count.failed++;
      left.push(shop);
      lines.push(`${shop}: could not read its stored token (${kind.message}); nothing changed.`);
      continue;
    }
    if (kind === undefined) continue;
    if (kind === 'custom-app') {
      count.custom++;
      lines.push(`${shop}: custom app token (shops add), left as it is (Shopify's expiring-token rule does not apply to custom apps).`);
      continue;
    }
    if (kind === 'expiring') {
      count.expiring++;
      lines.push(`${shop}: already an expiring token with a refresh token; nothing to do.`);
      continue;
    }
    if (options.dryRun) {
      count.pending++;
      left.push(shop);
      lines.push(`${shop}: non-expiring token; would be exchanged for an expiring one (--dry-run: nothing sent to Shopify).`);
      continue;
    }
    try {
      const outcome = await sessions.migrateToExpiring(shop);
      switch (outcome.kind) {
        case 'migrated':
          count.migrated++;
          lines.push(
            `${shop}: non-expiring token exchanged for an expiring one` +
              `${outcome.expires ? ` (valid until ${outcome.expires.toISOString()}, then refreshed by the app` : ' (refreshed by the app'}` +
              `${outcome.refreshTokenExpires ? `; refresh token valid until ${outcome.refreshTokenExpires.toISOString()}` : ''}); the old token no longer works.`,
          );
          break;
        case 'refused':
          count.refused++;
          left.push(shop);
          lines.push(
            `${shop}: Shopify refused to exchange the non-expiring token (${outcome.reason}); it is left as stored. The merchant must open print-bridge in the store's Shopify admin (or install it again) to reconnect the store.`,
          );
          break;
        default:
          // Changed between the look and the exchange (an embedded open did it, or the app was uninstalled).
          count.expiring++;
          lines.push(`${shop}: its token was replaced meanwhile; nothing to do.`);
      }
    } catch (error) {
      count.failed++;
      left.push(shop);
      lines.push(`${shop}: could not exchange the token (${(error as Error).message}); nothing changed. Run the command again (an answer lost on the way is given again for seven days).`);
    }
  }
  const parts = options.dryRun
    ? [`${count.pending} non-expiring token${s(count.pending)} to exchange`]
    : [`${count.migrated} non-expiring token${s(count.migrated)} exchanged for expiring ones`];
  parts.push(`${count.expiring} already expiring`, `${count.custom} custom app token${s(count.custom)} left as ${count.custom === 1 ? 'it is' : 'they are'}`);
  if (count.refused) parts.push(`${count.refused} refused by Shopify (the merchant must open the app)`);
  if (count.failed) parts.push(`${count.failed} failed (run again)`);
  const summary =
    lines.length === 0
      ? 'No store has a stored token: nothing to do.'
      : !options.dryRun && count.migrated === 0 && left.length === 0
        ? `Nothing to do: no store has a non-expiring token from OAuth or token exchange (${parts.slice(1).join(', ')}).`
        : `${parts.join(', ')}.`;
  return { lines, summary, migrated: count.migrated, left };
}

function s(n: number): string {
  return n === 1 ? '' : 's';
}
