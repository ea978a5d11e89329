import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { SecretCipher } from '../secrets/cipher.js';
import type { HoldPolicy } from '../bridge/shopify-holds.js';
import { storedHoldPolicy } from './hold-policy.js';
import { OPERATOR_AUTHOR, type AccountCheck, type MappingVersion, type PrintAccount, type PrintMode, type ShopSetup } from './model.js';

/** How long a rotated postback token keeps working beside the new one. */
export const POSTBACK_OVERLAP_MS = 24 * 3600_000;

type SettingsRow = {
  shop: string;
  mode: string;
  fulfillment_mode: string | null;
  fulfillment_service: { locationId?: string } | null;
  print_account: Record<string, unknown> | null;
  account_check: AccountCheck | null;
  test_validated_at: string | null;
  mapping_version: number | null;
  app_holds: boolean;
  hold_policy: unknown;
  revision: number;
  updated_at: string;
};

/**
 * Each store's own print set-up in the database (issue 16): its print-service account (the secret and token encrypted
 * with ENCRYPTION_KEY, never given back to a page), its mode, its postback tokens and its mapping versions. Every write
 * bumps the row's `revision`, which processes holding a client for the store's account compare to notice a change.
 */
export class ShopSettingsStore {
  constructor(
    private readonly database: Database,
    private readonly encryptionKeys: readonly string[],
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(shop: string): Promise<ShopSetup> {
    const [row] = await this.database.rows<SettingsRow>(sql`SELECT ${columns} FROM shop_settings WHERE shop = ${shop}`);
    return row ? this.fromRow(row) : blank(shop);
  }

  async list(): Promise<ShopSetup[]> {
    const rows = await this.database.rows<SettingsRow>(sql`SELECT ${columns} FROM shop_settings ORDER BY shop`);
    return rows.map((r) => this.fromRow(r));
  }

  /** The revision of each store that has a row: cheap to poll. */
  async revisions(): Promise<Map<string, number>> {
    const rows = await this.database.rows<{ shop: string; revision: number }>(sql`SELECT shop, revision FROM shop_settings`);
    return new Map(rows.map((r) => [r.shop, Number(r.revision)]));
  }

  /** The account with its secrets in clear, for the client; undefined when the store uses the operator's. */
  async printAccountOf(shop: string): Promise<{ account: PrintAccount; revision: number } | undefined> {
    const [row] = await this.database.rows<{ print_account: Record<string, unknown> | null; revision: number }>(
      sql`SELECT print_account, revision FROM shop_settings WHERE shop = ${shop}`,
    );
    if (!row?.print_account) return undefined;
    const cipher = this.cipher();
    const stored = row.print_account as unknown as PrintAccount;
    return { account: { ...stored, token: cipher.decrypt(stored.token).plain, secret: cipher.decrypt(stored.secret).plain }, revision: Number(row.revision) };
  }

  /**
   * Gives the store its own account. A store that had none starts in test mode (nothing is created at the printer
   * until the merchant goes live); one that already had its own keeps its mode.
   */
  async setPrintAccount(shop: string, account: PrintAccount, check: AccountCheck | undefined): Promise<ShopSetup> {
    const cipher = this.cipher();
    const sealed = { ...account, token: cipher.encrypt(account.token), secret: cipher.encrypt(account.secret) };
    const [row] = await this.database.rows<SettingsRow>(sql`
      INSERT INTO shop_settings (shop, mode, print_account, account_check) VALUES (${shop}, 'test', ${JSON.stringify(sealed)}::jsonb, ${check ? JSON.stringify(check) : null}::jsonb)
      ON CONFLICT (shop) DO UPDATE SET
        mode = CASE WHEN shop_settings.print_account IS NULL THEN 'test' ELSE shop_settings.mode END,
        print_account = EXCLUDED.print_account, account_check = EXCLUDED.account_check,
        revision = shop_settings.revision + 1, updated_at = now()
      RETURNING ${columns}`);
    return this.fromRow(row!);
  }

  /** Back to the operator's account (and live, as every store on it). */
  async removePrintAccount(shop: string): Promise<ShopSetup> {
    const [row] = await this.database.rows<SettingsRow>(sql`
      UPDATE shop_settings SET print_account = NULL, account_check = NULL, mode = 'live', revision = revision + 1, updated_at = now()
      WHERE shop = ${shop} RETURNING ${columns}`);
    return row ? this.fromRow(row) : blank(shop);
  }

  async recordAccountCheck(shop: string, check: AccountCheck): Promise<void> {
    await this.database.rows(sql`UPDATE shop_settings SET account_check = ${JSON.stringify(check)}::jsonb, updated_at = now() WHERE shop = ${shop}`);
  }

  async setMode(shop: string, mode: PrintMode): Promise<ShopSetup> {
    const [row] = await this.database.rows<SettingsRow>(sql`
      INSERT INTO shop_settings (shop, mode) VALUES (${shop}, ${mode})
      ON CONFLICT (shop) DO UPDATE SET mode = EXCLUDED.mode, revision = shop_settings.revision + 1, updated_at = now()
      RETURNING ${columns}`);
    return this.fromRow(row!);
  }

  /** Whether print-bridge's own waits show in Shopify as a hold of the app's (on by default). */
  async setAppHolds(shop: string, on: boolean): Promise<ShopSetup> {
    const [row] = await this.database.rows<SettingsRow>(sql`
      INSERT INTO shop_settings (shop, app_holds) VALUES (${shop}, ${on})
      ON CONFLICT (shop) DO UPDATE SET app_holds = EXCLUDED.app_holds, revision = shop_settings.revision + 1, updated_at = now()
      RETURNING ${columns}`);
    return this.fromRow(row!);
  }

  /**
   * The store's choice of which of Shopify's holds and risk recommendations its orders wait for; undefined clears it
   * (the mapping's keys decide again). Bumps the revision: other processes' cached set-ups read it again.
   */
  async setHoldPolicy(shop: string, policy: HoldPolicy | undefined): Promise<ShopSetup> {
    const value = policy ? JSON.stringify(storedHoldPolicy.parse(policy)) : null;
    const [row] = await this.database.rows<SettingsRow>(sql`
      INSERT INTO shop_settings (shop, hold_policy) VALUES (${shop}, ${value}::jsonb)
      ON CONFLICT (shop) DO UPDATE SET hold_policy = EXCLUDED.hold_policy, revision = shop_settings.revision + 1, updated_at = now()
      RETURNING ${columns}`);
    return this.fromRow(row!);
  }

  /** The first validated test order; later ones change nothing. */
  async markTestValidated(shop: string): Promise<void> {
    await this.database.rows(sql`
      INSERT INTO shop_settings (shop, test_validated_at) VALUES (${shop}, ${this.clock().toISOString()}::timestamptz)
      ON CONFLICT (shop) DO UPDATE SET test_validated_at = COALESCE(shop_settings.test_validated_at, EXCLUDED.test_validated_at)`);
  }

  // ---- postback tokens --------------------------------------------------------------------------------------------

  /**
   * The store's current postback token, made on first use. With `rotate`, a new one becomes current and every older
   * one keeps working for POSTBACK_OVERLAP_MS (the time to change the triggers at the print service).
   */
  async postbackToken(shop: string, options: { rotate?: boolean } = {}): Promise<{ token: string; previousValidUntil?: string }> {
    const cipher = this.cipher();
    const now = this.clock();
    const current = await this.database.rows<{ token: string }>(
      sql`SELECT token FROM postback_tokens WHERE shop = ${shop} AND expires_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    if (current[0] && !options.rotate) return { token: cipher.decrypt(current[0].token).plain };
    const token = `pb_${randomBytes(24).toString('base64url')}`;
    const until = new Date(now.getTime() + POSTBACK_OVERLAP_MS).toISOString();
    await this.database.transaction(async (tx) => {
      await tx.rows(sql`UPDATE postback_tokens SET expires_at = ${until}::timestamptz WHERE shop = ${shop} AND expires_at IS NULL`);
      await tx.rows(sql`INSERT INTO postback_tokens (token_hash, shop, token) VALUES (${tokenHash(token)}, ${shop}, ${cipher.encrypt(token)})`);
      await tx.rows(sql`DELETE FROM postback_tokens WHERE shop = ${shop} AND expires_at < ${now.toISOString()}::timestamptz`);
    });
    return current[0] ? { token, previousValidUntil: until } : { token };
  }

  async hasPostbackToken(shop: string): Promise<boolean> {
    return (await this.database.rows(sql`SELECT 1 AS n FROM postback_tokens WHERE shop = ${shop} AND expires_at IS NULL LIMIT 1`)).length > 0;
  }

  /** The store a postback token belongs to, while it is valid. The lookup is by the token's hash (no timing to learn). */
  async shopOfPostbackToken(token: string): Promise<string | undefined> {
    if (token.length < 10 || token.length > 200) return undefined;
    const [row] = await this.database.rows<{ shop: string }>(sql`
      SELECT shop FROM postback_tokens WHERE token_hash = ${tokenHash(token)} AND (expires_at IS NULL OR expires_at > ${this.clock().toISOString()}::timestamptz)`);
    return row?.shop;
  }

  // ---- mapping versions -------------------------------------------------------------------------------------------

  /** Stores the text as the store's next version and makes it current. */
  async pushMapping(shop: string, yaml: string, author: string, note: string | undefined): Promise<number> {
    return this.database.transaction(async (tx) => {
      // One writer at a time per store: the next number is read and taken under the row lock.
      await tx.rows(sql`INSERT INTO shop_settings (shop) VALUES (${shop}) ON CONFLICT (shop) DO NOTHING`);
      await tx.rows(sql`SELECT 1 FROM shop_settings WHERE shop = ${shop} FOR UPDATE`);
      const [last] = await tx.rows<{ version: number | null }>(sql`SELECT max(version) AS version FROM mapping_versions WHERE shop = ${shop}`);
      const version = Number(last?.version ?? 0) + 1;
      await tx.rows(sql`INSERT INTO mapping_versions (shop, version, yaml, note, author) VALUES (${shop}, ${version}, ${yaml}, ${note ?? null}, ${author})`);
      await tx.rows(sql`UPDATE shop_settings SET mapping_version = ${version}, revision = revision + 1, updated_at = now() WHERE shop = ${shop}`);
      return version;
    });
  }

  /** Makes an earlier version current again; false when the store has no such version. */
  async useMappingVersion(shop: string, version: number): Promise<boolean> {
    const rows = await this.database.rows(sql`
      UPDATE shop_settings SET mapping_version = ${version}, revision = revision + 1, updated_at = now()
      WHERE shop = ${shop} AND EXISTS (SELECT 1 FROM mapping_versions WHERE shop = ${shop} AND version = ${version}) RETURNING 1 AS n`);
    return rows.length > 0;
  }

  /** Back to the mapping files. */
  async clearMapping(shop: string): Promise<void> {
    await this.database.rows(sql`UPDATE shop_settings SET mapping_version = NULL, revision = revision + 1, updated_at = now() WHERE shop = ${shop}`);
  }

  /** The store's versions, newest first, without their text. */
  async mappingVersions(shop: string): Promise<Omit<MappingVersion, 'yaml'>[]> {
    const rows = await this.database.rows<{ version: number; note: string | null; author: string; created_at: string }>(sql`
      SELECT version, note, author, ${isoOf(sql`created_at`)} AS created_at FROM mapping_versions WHERE shop = ${shop} ORDER BY version DESC`);
    return rows.map((r) => ({ shop, version: Number(r.version), note: r.note ?? undefined, author: r.author, createdAt: r.created_at }));
  }

  async mappingVersion(shop: string, version: number): Promise<MappingVersion | undefined> {
    const [row] = await this.database.rows<{ yaml: string; note: string | null; author: string; created_at: string }>(sql`
      SELECT yaml, note, author, ${isoOf(sql`created_at`)} AS created_at FROM mapping_versions WHERE shop = ${shop} AND version = ${version}`);
    return row ? { shop, version, yaml: row.yaml, note: row.note ?? undefined, author: row.author, createdAt: row.created_at } : undefined;
  }

  /** Which version each store with one of its own uses (cheap to poll). */
  async mappingPointers(): Promise<Map<string, number>> {
    // A merchant's own version serves only a store on its own print account; on the operator's account only a version
    // the operator stored does (DESIGN section 9). Checked here, where the registry learns what serves each store, so
    // no order of the save, the account change or data from before can put a merchant's mapping on the operator's bill.
    const rows = await this.database.rows<{ shop: string; mapping_version: number }>(sql`
      SELECT s.shop, s.mapping_version FROM shop_settings s JOIN mapping_versions v ON v.shop = s.shop AND v.version = s.mapping_version
      WHERE s.mapping_version IS NOT NULL AND (s.print_account IS NOT NULL OR v.author = ${OPERATOR_AUTHOR})`);
    return new Map(rows.map((r) => [r.shop, Number(r.mapping_version)]));
  }

  /** Every store's current version with its text: what the mapping registry serves. */
  async currentMappings(): Promise<{ shop: string; version: number; yaml: string; revision: number }[]> {
    const rows = await this.database.rows<{ shop: string; version: number; yaml: string; revision: number }>(sql`
      SELECT s.shop, v.version, v.yaml, s.revision FROM shop_settings s JOIN mapping_versions v ON v.shop = s.shop AND v.version = s.mapping_version`);
    return rows.map((r) => ({ ...r, version: Number(r.version), revision: Number(r.revision) }));
  }

  /** shop/redact: the store's set-up goes with the rest of its data. */
  async redactShop(shop: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      await tx.rows(sql`DELETE FROM postback_tokens WHERE shop = ${shop}`);
      await tx.rows(sql`DELETE FROM mapping_versions WHERE shop = ${shop}`);
      await tx.rows(sql`DELETE FROM shop_settings WHERE shop = ${shop}`);
    });
  }

  private cipher(): SecretCipher {
    // Throws SecretKeyError with the way out when ENCRYPTION_KEY is not set.
    return new SecretCipher(this.encryptionKeys);
  }

  private fromRow(row: SettingsRow): ShopSetup {
    const account = row.print_account as unknown as PrintAccount | null;
    return {
      shop: row.shop,
      mode: row.mode === 'test' ? 'test' : 'live',
      fulfillment: row.fulfillment_mode === 'service' ? 'service' : 'merchant',
      fulfillmentLocation: row.fulfillment_mode === 'service' ? row.fulfillment_service?.locationId : undefined,
      // What a page may show of the account: never the token or the secret.
      printAccount: account
        ? { baseUrl: account.baseUrl, ordersUrl: account.ordersUrl, sourceAccount: account.sourceAccount, destination: account.destination, connectedAt: account.connectedAt }
        : undefined,
      accountCheck: row.account_check ?? undefined,
      testValidatedAt: row.test_validated_at ? new Date(row.test_validated_at).toISOString() : undefined,
      mappingVersion: row.mapping_version ?? undefined,
      appHolds: row.app_holds !== false,
      holdPolicy: holdPolicyOf(row),
      revision: Number(row.revision),
    };
  }
}

const columns = sql.raw('shop, mode, fulfillment_mode, fulfillment_service, print_account, account_check, test_validated_at, mapping_version, app_holds, hold_policy, revision, updated_at');

function isoOf(column: ReturnType<typeof sql>) {
  return sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}

/**
 * The stored choice, checked at the boundary. One that no longer parses (a reason Shopify dropped, a hand edit) counts
 * as not chosen: the mapping's keys, which are checked when they are loaded, decide instead of a guess.
 */
function holdPolicyOf(row: SettingsRow): HoldPolicy | undefined {
  if (row.hold_policy === null || row.hold_policy === undefined) return undefined;
  const parsed = storedHoldPolicy.safeParse(row.hold_policy);
  return parsed.success ? parsed.data : undefined;
}

function blank(shop: string): ShopSetup {
  return { shop, mode: 'live', fulfillment: 'merchant', appHolds: true, revision: 0 };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
