import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

/**
 * Which of the app's Flow triggers each store uses in an enabled workflow, as Flow's lifecycle callbacks say (the
 * `flow_triggers` table). Flow may deliver callbacks late or out of order: each carries its `timestamp`, and a
 * callback older than the one a row was last set by changes nothing.
 */
export interface FlowTriggerRepository {
  /** Records the callback; false when a newer one had already been recorded (nothing changed). */
  record(change: FlowTriggerChange): Promise<boolean>;
  /** The store's triggers in use, with when Flow said so. */
  enabledOf(shop: string): Promise<Map<string, Date>>;
  /** Every row of the store (its redaction, its uninstall). Returns how many. */
  forgetShop(shop: string): Promise<number>;
}

export interface FlowTriggerChange {
  shop: string;
  handle: string;
  enabled: boolean;
  changedAt: Date;
}

export class PostgresFlowTriggers implements FlowTriggerRepository {
  constructor(private readonly database: Database) {}

  async record(change: FlowTriggerChange): Promise<boolean> {
    // One statement: two callbacks of one trigger arriving together cannot both read "no newer row" and both write.
    const rows = await this.database.rows<{ shop: string }>(sql`
      INSERT INTO flow_triggers (shop, handle, enabled, changed_at)
      VALUES (${change.shop}, ${change.handle}, ${change.enabled}, ${change.changedAt.toISOString()})
      ON CONFLICT (shop, handle) DO UPDATE SET enabled = EXCLUDED.enabled, changed_at = EXCLUDED.changed_at
      WHERE flow_triggers.changed_at < EXCLUDED.changed_at
      RETURNING shop`);
    return rows.length > 0;
  }

  async enabledOf(shop: string): Promise<Map<string, Date>> {
    const rows = await this.database.rows<{ handle: string; changed_at: Date | string }>(
      sql`SELECT handle, changed_at FROM flow_triggers WHERE shop = ${shop} AND enabled`,
    );
    return new Map(rows.map((r) => [r.handle, new Date(r.changed_at)]));
  }

  async forgetShop(shop: string): Promise<number> {
    const rows = await this.database.rows<{ handle: string }>(sql`DELETE FROM flow_triggers WHERE shop = ${shop} RETURNING handle`);
    return rows.length;
  }
}
