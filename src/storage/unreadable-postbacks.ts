import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

export interface UnreadablePostback {
  id: string;
  receivedAt: string;
  /** Request headers without credentials. */
  headers: Record<string, string>;
  /** The body as received (cut at UNREADABLE_BODY_LIMIT characters). */
  body: string;
  error: string;
}

export const UNREADABLE_POSTBACKS_LIMIT = 1000;
export const UNREADABLE_BODY_LIMIT = 64 * 1024;

interface Row extends Record<string, unknown> {
  id: string;
  received_at: string;
  headers: Record<string, string>;
  body: string;
  error: string;
}

const columns = sql`id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at, headers, body, error`;

const entry = (row: Row): UnreadablePostback => ({ id: row.id, receivedAt: row.received_at, headers: row.headers, body: row.body, error: row.error });

/** Postbacks the app could not understand, kept for an operator; the newest UNREADABLE_POSTBACKS_LIMIT. */
export class UnreadablePostbacks {
  constructor(
    private readonly database: Database,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async keep(input: Omit<UnreadablePostback, 'id'>): Promise<UnreadablePostback> {
    const stored: UnreadablePostback = {
      id: randomUUID(),
      ...input,
      receivedAt: input.receivedAt || this.clock().toISOString(),
      body: input.body.length > UNREADABLE_BODY_LIMIT ? input.body.slice(0, UNREADABLE_BODY_LIMIT) : input.body,
    };
    await this.database.rows(sql`
      INSERT INTO unreadable_postbacks (id, received_at, headers, body, error)
      VALUES (${stored.id}, ${stored.receivedAt}::timestamptz, ${JSON.stringify(stored.headers)}::jsonb, ${stored.body}, ${stored.error})`);
    // A flood of junk cannot grow the table without bound: the oldest beyond the limit go.
    await this.database.rows(sql`
      DELETE FROM unreadable_postbacks WHERE received_at < (
        SELECT received_at FROM unreadable_postbacks ORDER BY received_at DESC OFFSET ${UNREADABLE_POSTBACKS_LIMIT - 1} LIMIT 1
      )`);
    return stored;
  }

  async list(options: { offset?: number; limit?: number } = {}): Promise<{ total: number; entries: UnreadablePostback[] }> {
    const [total, rows] = await Promise.all([
      this.count(),
      this.database.rows<Row>(sql`SELECT ${columns} FROM unreadable_postbacks ORDER BY received_at DESC, id LIMIT ${options.limit ?? 50} OFFSET ${options.offset ?? 0}`),
    ]);
    return { total, entries: rows.map(entry) };
  }

  async count(): Promise<number> {
    const [row] = await this.database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM unreadable_postbacks`);
    return row?.n ?? 0;
  }

  /** Removes every kept postback whose body mentions one of these references (redaction). Returns how many. */
  async removeMentioning(references: readonly string[]): Promise<number> {
    const wanted = references.filter((r) => r.length >= 3);
    if (wanted.length === 0) return 0;
    const rows = await this.database.rows(sql`
      DELETE FROM unreadable_postbacks
      WHERE EXISTS (SELECT 1 FROM jsonb_array_elements_text(${JSON.stringify(wanted)}::jsonb) r(ref) WHERE strpos(body, r.ref) > 0)
      RETURNING 1 AS n`);
    return rows.length;
  }

  /** An operator has dealt with it. Returns whether it was there. */
  async remove(id: string): Promise<boolean> {
    return (await this.database.rows(sql`DELETE FROM unreadable_postbacks WHERE id = ${id} RETURNING 1 AS n`)).length > 0;
  }
}
